package scanners

// Sumo Logic access ids: "su" and 12 letters and digits, assigned to a name
// that says sumo and access id (SUMO_ACCESS_ID, sumologic.accessId). The
// id is half of the access key pair; the key itself is taken by the
// assignment rules (SUMO_ACCESS_KEY=...).

// sumoNameBack is how many bytes of the key name before the keyword are
// searched for "sumo".
const sumoNameBack = 32

var setSumoSep = makeSet("\t \"'`:=>,\\") // the backslash of a JSON-escaped quote too

func sumologicRules() []ruleDef {
	id := func(seed uint32) string { return "su" + fakeChars(base62Alphabet, 11, seed) + "7" }
	return []ruleDef{
		provRule("sumologic-access-id", "Sumo Logic", "medium", "Sumo Logic access id (su and 12 letters and digits) assigned to a sumo access id name",
			[]form{{keywords: []string{"accessid", "access_id", "access-id"}, back: sumoNameBack + 1, ahead: len("access_id") + 8 + 14 + 1 + ctxMargin, check: sumoAccessID}},
			func() (tp, fp []string) {
				tp = []string{
					"SUMO_ACCESS_ID=" + id(1),
					`sumo.accessId = "` + id(2) + `"`,
					"export SUMOLOGIC_ACCESSID='" + id(3) + "'",
					`"content": "SUMO_ACCESS_ID = \"` + id(8) + `\""`,
				}
				fp = []string{
					"SUMO_ACCESS_ID=" + "su" + fakeChars("abcdefghijklmnopqrstuvwxyz", 12, 4),
					"AWS_ACCESS_ID=" + id(5),
					"SUMO_ACCESS_ID=" + id(6) + "x",
					"sumo_access_id_file=" + id(7),
				}
				return
			}),
	}
}

// sumoAccessID: a key name holding "sumo" within sumoNameBack bytes before
// the keyword and ending with it, 1..8 separator bytes (quotes, also
// JSON-escaped, spaces, operators), then a run of
// exactly 14 letters and digits, "su" and 12 that mix two of upper case,
// lower case and digits, not filler, not followed by a word byte.
func sumoAccessID(v *view, ks, ke int) result {
	d := v.data
	p := ks
	for p > 0 && ks-p < sumoNameBack && setIdent[d[p-1]] {
		p--
	}
	if !containsFold(d[p:ks], "sumo") {
		return noMatch
	}
	i := ke
	for i < len(d) && i-ke <= 8 && setSumoSep[d[i]] {
		i++
	}
	if v.more(i) {
		return result{status: resMore}
	}
	if i == ke || i-ke > 8 {
		return noMatch
	}
	s := i
	for i < len(d) && i-s <= 14 && setAlnum[d[i]] {
		i++
	}
	if v.more(i) {
		return result{status: resMore}
	}
	if i-s != 14 || i < len(d) && setWord[d[i]] || d[s] != 's' || d[s+1] != 'u' || placeholderBody(d[s+2:i]) {
		return noMatch
	}
	if ok, _ := mixes2(d[s+2 : i]); !ok {
		return noMatch
	}
	return result{status: resMatch, start: s, end: i}
}
