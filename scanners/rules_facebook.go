package scanners

// Facebook app access tokens: the app id (15 or 16 digits), '|', and the
// app secret or client token (27 to 40 of [A-Za-z0-9_-]), written after a
// name that says facebook (FACEBOOK_APP_TOKEN=…, facebook …).

// Facebook app token limits.
const (
	fbMaxName = 32 // name bytes after "facebook"
	fbMaxSep  = 8  // separator bytes between name and value
	fbMinTail = 27
	fbMaxTail = 40
)

func facebookRules() []ruleDef {
	digits := "0123456789"
	wd := base62Alphabet + "_-"
	return []ruleDef{
		provRule("facebook-app-token", "Facebook", "medium", "Facebook app access token (app id of 15 or 16 digits, '|', 27 to 40 bytes) after a facebook name",
			[]form{{keywords: []string{"facebook"}, back: 1, ahead: len("facebook") + fbMaxName + 1 + fbMaxSep + 1 + 16 + 1 + fbMaxTail + 1 + ctxMargin, check: facebookAppToken}},
			func() (tp, fp []string) {
				tp = []string{
					"facebook " + fakeChars(digits, 16, 1) + "|" + fakeChars(wd, 27, 2),
					"FACEBOOK_APP_TOKEN=" + fakeChars(digits, 15, 3) + "|" + fakeChars(wd, 32, 4),
					`"facebook_access_token": "` + fakeChars(digits, 16, 5) + "|" + fakeChars(wd, 40, 6) + `"`,
				}
				fp = []string{
					"facebook " + fakeChars(digits, 14, 7) + "|" + fakeChars(wd, 27, 8),
					"facebook " + fakeChars(digits, 16, 9) + "|" + fakeChars(wd, 26, 10),
					"facebook " + fakeChars(digits, 16, 11) + "|" + fakeChars("abcdefghijklmnopqrstuvwxyz", 30, 12),
					fakeChars(digits, 16, 13) + "|" + fakeChars(wd, 30, 14) + " has no facebook name before it",
				}
				return
			}),
	}
}

// facebookAppToken: "facebook" (not inside a word), the rest of the name
// (at most fbMaxName identifier bytes), 1..fbMaxSep separator bytes
// (quotes, also JSON-escaped, spaces, operators), 15 or 16 digits, '|',
// and fbMinTail..fbMaxTail bytes of [A-Za-z0-9_-] that mix two of upper
// case, lower case and digits and are no filler, not followed by such a
// byte. The match is the token.
func facebookAppToken(v *view, ks, ke int) result {
	d := v.data
	if ks > 0 && setAlnum[d[ks-1]] {
		return noMatch
	}
	i := ke
	for i < len(d) && i-ke <= fbMaxName && setIdent[d[i]] {
		i++
	}
	n := i
	for i < len(d) && i-n <= fbMaxSep && setSumoSep[d[i]] {
		i++
	}
	if v.more(i) {
		return result{status: resMore}
	}
	if n-ke > fbMaxName || i == n || i-n > fbMaxSep {
		return noMatch
	}
	s := i
	for i < len(d) && i-s <= 16 && '0' <= d[i] && d[i] <= '9' {
		i++
	}
	if v.more(i) {
		return result{status: resMore}
	}
	if i-s < 15 || i-s > 16 || i >= len(d) || d[i] != '|' {
		return noMatch
	}
	t := i + 1
	i = t
	for i < len(d) && i-t <= fbMaxTail && setWordDash[d[i]] {
		i++
	}
	if v.more(i) {
		return result{status: resMore}
	}
	if i-t < fbMinTail || i-t > fbMaxTail || placeholderBody(d[t:i]) {
		return noMatch
	}
	if ok, _ := mixes2(d[t:i]); !ok {
		return noMatch
	}
	return result{status: resMatch, start: s, end: i}
}
