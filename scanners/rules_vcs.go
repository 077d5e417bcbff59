package scanners

import (
	"hash/crc32"
	"strings"
)

// Source hosting and package registries.

const base62Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// base62CRC reports whether the last 6 bytes of body are the base62 (0-9A-Za-z,
// big-endian, zero padded) CRC32-IEEE of the bytes before them: the checksum
// GitHub (ghp_, gho_, ghu_, ghs_, ghr_) and npm (npm_) put in their tokens.
func base62CRC(body []byte) ChecksumResult {
	if len(body) != 36 {
		return ChecksumNone
	}
	var v uint64
	for _, c := range body[30:] {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'A' <= c && c <= 'Z':
			d = c - 'A' + 10
		case 'a' <= c && c <= 'z':
			d = c - 'a' + 36
		default:
			return ChecksumNone
		}
		v = v*62 + uint64(d)
	}
	for _, c := range body[:30] {
		if !setAlnum[c] {
			return ChecksumNone
		}
	}
	if v == uint64(crc32.ChecksumIEEE(body[:30])) {
		return ChecksumValid
	}
	return ChecksumInvalid
}

// withCRC appends the base62 CRC32 of body (30 bytes) to prefix+body; it
// builds valid-looking test tokens at run time (no token is in the source).
func withCRC(prefix, body string) string {
	v := crc32.ChecksumIEEE([]byte(body))
	var s [6]byte
	for i := 5; i >= 0; i-- {
		s[i] = base62Alphabet[v%62]
		v /= 62
	}
	return prefix + body + string(s[:])
}

// fakeChars returns n pseudo-random bytes of charset, deterministic in seed:
// example tables use it so that no credential-shaped literal is committed.
func fakeChars(charset string, n int, seed uint32) string {
	x := seed*2654435761 + 1
	b := make([]byte, n)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = charset[x%uint32(len(charset))]
	}
	return string(b)
}

// githubClassic declares the ghX_ token family: prefix, then 20..255 of
// [A-Za-z0-9_]; when the body is the current 36-byte base62 shape its CRC32
// is verified (and reported), but an invalid checksum is still redacted.
func githubClassic(id string, prefixes []string, what string, seed uint32) ruleDef {
	prefix, last := prefixes[0], prefixes[len(prefixes)-1]
	body30 := func(s uint32) string { return fakeChars(base62Alphabet, 30, s) }
	// ghp_ is the seed's pattern: a floor token (tokenSpec.floor), redacted
	// whatever its body looks like, glued to a word or not.
	floor := id == "github-pat"
	maxBody := 255
	if floor {
		maxBody = seedFloorMax
	}
	r := ruleDef{
		id: id, provider: "GitHub", kind: KindSecret, confidence: "high",
		desc: "GitHub " + what,
		forms: []form{tokenSpec{
			prefixes: prefixes, body: setWord, min: 20, max: maxBody, floor: floor,
			validate: func(b []byte) (bool, ChecksumResult) { return true, base62CRC(b) },
		}.form()},
		examples: func() (tp, fp []string) {
			tp = []string{
				withCRC(prefix, body30(seed)),
				"token: " + withCRC(last, body30(seed+1)) + "\n",
				"GITHUB_TOKEN=" + prefix + body30(seed+2) + "abcdef", // wrong checksum: still redacted
				"(" + prefix + fakeChars(base62Alphabet, 40, seed+3) + ")",
				"x" + withCRC(prefix, body30(seed+4)), // glued to a word, but its checksum is valid
			}
			fp = []string{
				prefix + "short",
				prefix + fakeChars(base62Alphabet, 19, seed+5),
				"the " + prefix[:3] + " prefix",
			}
			if floor {
				tp = append(tp,
					"x"+prefix+body30(seed+6)+"abcdef", // glued, checksum wrong: the seed removes it
					"GITHUB_TOKEN="+prefix+"placeholder000000000000",
					"token: "+prefix+strings.Repeat("x", 36))
			} else {
				fp = append(fp, "x"+prefix+body30(seed+6)+"abcdef") // glued to a word, checksum wrong
			}
			return
		},
	}
	if floor {
		r.desc += " and any ghp_ with 20+ of [A-Za-z0-9_], whatever the body looks like (the seed's floor)"
	}
	return r
}

// Character sets and builders shared by the provider rules (AI, source
// hosting, CI, cloud, payments).
var (
	setHexLower    = makeSet("0-9a-f")
	setHexUpper    = makeSet("0-9A-F")
	setLowerAlnum  = makeSet("a-z0-9")
	setUpperAlnum  = makeSet("A-Z0-9")
	setDigits      = makeSet("0-9")
	setWordDashEq  = makeSet("A-Za-z0-9_=-")
	setWordDashDot = makeSet("A-Za-z0-9_.-")
)

// strictForm is t.form() with the notBefore pre-check kept although t has a
// validate func. Only for formats without a checksum (validate never says
// ChecksumValid): a token glued to a preceding word then never matches, so
// the Redactor may reject such a hit without calling the check.
func strictForm(t tokenSpec) form {
	f := t.form()
	if t.notBefore != nil {
		f.notBefore = t.notBefore
	} else {
		f.notBefore = union(t.body, setWord)
	}
	return f
}

// mixes2 accepts a body that mixes at least two of upper case, lower case
// and digits (placeholders such as "xxxx" or "YOUR_KEY_HERE" do not).
func mixes2(b []byte) (bool, ChecksumResult) {
	u, l, d := hasClasses(b)
	return u && l || u && d || l && d, ChecksumNone
}

// mixes3 accepts a body holding upper case, lower case and digits, as a
// random base62 string of 24 or more bytes almost always does.
func mixes3(b []byte) (bool, ChecksumResult) {
	u, l, d := hasClasses(b)
	return u && l && d, ChecksumNone
}

// bodySeg is one fixed-length part of a token body: n bytes of set, or the
// literal lit.
type bodySeg struct {
	set *byteSet
	n   int
	lit string
}

// bodyShape returns a validate func accepting exactly the concatenation of segs.
func bodyShape(segs ...bodySeg) func([]byte) (bool, ChecksumResult) {
	return func(b []byte) (bool, ChecksumResult) {
		i := 0
		for _, s := range segs {
			if s.lit != "" {
				if len(b)-i < len(s.lit) || string(b[i:i+len(s.lit)]) != s.lit {
					return false, ChecksumNone
				}
				i += len(s.lit)
				continue
			}
			if len(b)-i < s.n {
				return false, ChecksumNone
			}
			for _, c := range b[i : i+s.n] {
				if !s.set[c] {
					return false, ChecksumNone
				}
			}
			i += s.n
		}
		return i == len(b), ChecksumNone
	}
}

// provRule declares a provider secret rule whose forms are given; examples
// builds its examples (ruleDef.examples).
func provRule(id, provider, confidence, desc string, forms []form, examples func() (tp, fp []string)) ruleDef {
	return ruleDef{id: id, provider: provider, kind: KindSecret, confidence: confidence, desc: desc, forms: forms, examples: examples}
}

// fakeUUID returns a lower-case hex UUID-shaped string, deterministic in seed.
func fakeUUID(seed uint32) string {
	h := "0123456789abcdef"
	return fakeChars(h, 8, seed) + "-" + fakeChars(h, 4, seed+1) + "-4" + fakeChars(h, 3, seed+2) + "-a" + fakeChars(h, 3, seed+3) + "-" + fakeChars(h, 12, seed+4)
}

// crc32Hex returns s followed by the upper-case hex CRC32-IEEE of s: the
// checksum Atlassian and Bitbucket put at the end of their tokens.
func crc32Hex(s string) string {
	const hexUp = "0123456789ABCDEF"
	v := crc32.ChecksumIEEE([]byte(s))
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = hexUp[v&15]
		v >>= 4
	}
	return s + string(b[:])
}

// hexCRC reports whether the last 8 bytes of tok (upper-case hex) are the
// CRC32-IEEE of the bytes before them.
func hexCRC(tok []byte) ChecksumResult {
	if len(tok) < 9 {
		return ChecksumNone
	}
	var v uint32
	for _, c := range tok[len(tok)-8:] {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | uint32(c-'0')
		case 'A' <= c && c <= 'F':
			v = v<<4 | uint32(c-'A'+10)
		default:
			return ChecksumNone
		}
	}
	if v == crc32.ChecksumIEEE(tok[:len(tok)-8]) {
		return ChecksumValid
	}
	return ChecksumInvalid
}

func vcsRules() []ruleDef {
	rs := []ruleDef{
		githubClassic("github-pat", []string{"ghp_"}, "personal access token, classic (ghp_)", 11),
		githubClassic("github-oauth", []string{"gho_"}, "OAuth access token (gho_)", 21),
		githubClassic("github-app", []string{"ghu_", "ghs_"}, "app user-to-server or server-to-server token (ghu_, ghs_)", 31),
		githubClassic("github-refresh", []string{"ghr_"}, "refresh token (ghr_)", 51),
		{
			id: "github-fine-grained", provider: "GitHub", kind: KindSecret, confidence: "high",
			desc: "GitHub fine-grained personal access token (github_pat_ 22 _ 59)",
			forms: []form{tokenSpec{
				prefixes: []string{"github_pat_"}, body: setWord, min: 82, max: 82,
				validate: func(b []byte) (bool, ChecksumResult) {
					for i, c := range b {
						if (i == 22) != (c == '_') {
							return false, ChecksumNone
						}
					}
					return true, ChecksumNone
				},
			}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"github_pat_" + fakeChars(base62Alphabet, 22, 1) + "_" + fakeChars(base62Alphabet, 59, 2),
					"Authorization: Bearer github_pat_" + fakeChars(base62Alphabet, 22, 3) + "_" + fakeChars(base62Alphabet, 59, 4),
					"'github_pat_" + fakeChars(base62Alphabet, 22, 5) + "_" + fakeChars(base62Alphabet, 59, 6) + "'",
				}
				fp = []string{
					"github_pat_" + fakeChars(base62Alphabet, 22, 7) + "_short",
					"github_pat_" + fakeChars(base62Alphabet, 81, 8),
					"my_github_pat_" + fakeChars(base62Alphabet, 22, 9) + "_" + fakeChars(base62Alphabet, 59, 10),
				}
				return
			},
		},
		{
			id: "npm", provider: "npm", kind: KindSecret, confidence: "high",
			desc: "npm access token (npm_ 36 base62 with CRC32)",
			forms: []form{tokenSpec{
				prefixes: []string{"npm_"}, body: setAlnum, min: 36, max: 36,
				validate: func(b []byte) (bool, ChecksumResult) { return true, base62CRC(b) },
			}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					withCRC("npm_", fakeChars(base62Alphabet, 30, 1)),
					"//registry.npmjs.org/:_authToken=" + withCRC("npm_", fakeChars(base62Alphabet, 30, 2)),
					"NPM_TOKEN=npm_" + fakeChars(base62Alphabet, 36, 3),
				}
				fp = []string{
					"npm_" + fakeChars(base62Alphabet, 35, 4),
					"npm_" + fakeChars(base62Alphabet, 37, 5),
					"run npm_config_cache=" + fakeChars(base62Alphabet, 36, 6),
				}
				return
			},
		},
	}
	rs = append(rs, gitlabRules()...)
	return append(rs, hostingRules()...)
}

// gitlabForm: prefix, then min..max of [A-Za-z0-9_=-] not preceded by a byte
// of [A-Za-z0-9_-]; when the body is followed by the suffix of GitLab's
// routable format, ".vv.ccccccccc" (two, then nine of [0-9a-z]: a version and
// a CRC) and the byte after that is not in [A-Za-z0-9_=-], the suffix is part
// of the match. A body of the right length followed by something else still
// matches without the suffix.
func gitlabForm(prefix string, min, max int) form {
	f := tokenSpec{prefixes: []string{prefix}, body: setWordDashEq, min: min, max: max, notBefore: setWordDash}.form()
	base := f.check
	f.ahead += 13
	f.check = func(v *view, ks, ke int) result {
		r := base(v, ks, ke)
		if r.status != resMatch {
			return r
		}
		d := v.data
		for j := 0; j <= 13; j++ {
			i := r.end + j
			if i >= len(d) {
				if !v.atEnd {
					return result{status: resMore}
				}
				if j == 13 {
					r.end = i
				}
				return r
			}
			c := d[i]
			var ok bool
			switch j {
			case 0, 3:
				ok = c == '.'
			case 13:
				if !setWordDashEq[c] {
					r.end = i
				}
				return r
			default:
				ok = setLowerAlnum[c]
			}
			if !ok {
				return r
			}
		}
		return r
	}
	return f
}

// gitlabRule declares one GitLab token type.
func gitlabRule(id, prefix, what string, min, max int, seed uint32) ruleDef {
	return provRule(id, "GitLab", "high", "GitLab "+what+" ("+prefix+")",
		[]form{gitlabForm(prefix, min, max)},
		func() (tp, fp []string) {
			wd := base62Alphabet + "_-"
			body := fakeChars(base62Alphabet, 2, seed) + fakeChars(wd, min-3, seed+1) + fakeChars(base62Alphabet, 1, seed+2)
			tp = []string{
				prefix + body,
				"token: " + prefix + fakeChars(base62Alphabet, min+6, seed+3) + "\n",
				"\"" + prefix + fakeChars(base62Alphabet, min+18, seed+4) + ".01." + fakeChars("0123456789abcdefghijklmnopqrstuvwxyz", 9, seed+5) + "\"",
			}
			fp = []string{
				prefix + fakeChars(base62Alphabet, min-1, seed+6),
				"x" + prefix + fakeChars(base62Alphabet, min, seed+7),
				strings.ToUpper(prefix) + fakeChars(base62Alphabet, min, seed+8),
				"the " + prefix + " prefix",
			}
			return
		})
}

func gitlabRules() []ruleDef {
	hex := "0123456789abcdef"
	b36 := "0123456789abcdefghijklmnopqrstuvwxyz"
	pat := gitlabRule("gitlab-pat", "glpat-", "personal, project or group access token", 20, 300, 100)
	patExamples := pat.examples
	pat.examples = func() (tp, fp []string) {
		tp, fp = patExamples()
		tp = append(tp,
			"glpat-"+fakeChars(base62Alphabet, 20, 101),
			"GITLAB_TOKEN=glpat-"+fakeChars(base62Alphabet+"_-", 38, 102)+".01."+fakeChars(b36, 9, 103)+".",
		)
		fp = append(fp, "glpat-"+fakeChars(base62Alphabet, 20, 104)+"_"+fakeChars(base62Alphabet, 281, 105))
		return
	}
	return []ruleDef{
		pat,
		provRule("gitlab-pipeline-trigger-token", "GitLab", "high", "GitLab pipeline trigger token (glptt- and 40 hex)",
			[]form{tokenSpec{prefixes: []string{"glptt-"}, body: setHexLower, min: 40, max: 40, notBefore: setWordDash, notAfter: setWordDash}.form()},
			func() (tp, fp []string) {
				tp = []string{
					"glptt-" + fakeChars(hex, 40, 1),
					"curl -F token=glptt-" + fakeChars(hex, 40, 2) + " -F ref=main",
					"TRIGGER_TOKEN='glptt-" + fakeChars(hex, 40, 3) + "'",
				}
				fp = []string{
					"glptt-" + fakeChars(hex, 39, 4),
					"glptt-" + fakeChars(hex, 40, 5) + "0",
					"glptt-" + fakeChars("ABCDEF0123456789", 40, 6),
				}
				return
			}),
		gitlabRule("gitlab-runner-token", "glrt-", "runner authentication token", 20, 300, 110),
		provRule("gitlab-runner-registration-token", "GitLab", "high", "GitLab legacy runner registration token (GR1348941 and 20+ of [A-Za-z0-9_-])",
			[]form{strictForm(tokenSpec{prefixes: []string{"GR1348941"}, body: setWordDash, min: 20, max: 64, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"GR1348941" + fakeChars(base62Alphabet, 20, 1),
					"--registration-token GR1348941" + fakeChars(base62Alphabet+"_-", 20, 2) + " --executor docker",
					"REGISTRATION_TOKEN=\"GR1348941" + fakeChars(base62Alphabet, 20, 3) + "\"",
				}
				fp = []string{
					"GR1348941" + fakeChars(base62Alphabet, 19, 4),
					"GR1348941" + "xxxxxxxxxxxxxxxxxxxxxxxx",
					"build GR13489410 passed",
					"aGR1348941" + fakeChars(base62Alphabet, 20, 5),
				}
				return
			}),
		gitlabRule("gitlab-deploy-token", "gldt-", "deploy token", 20, 300, 120),
		gitlabRule("gitlab-feed-token", "glft-", "feed token", 20, 300, 130),
		gitlabRule("gitlab-incoming-mail-token", "glimt-", "incoming email token", 25, 300, 140),
		gitlabRule("gitlab-agent-token", "glagent-", "agent for Kubernetes token", 50, 300, 150),
		gitlabRule("gitlab-oauth-app-secret", "gloas-", "OAuth application secret", 64, 300, 160),
		gitlabRule("gitlab-scim-token", "glsoat-", "SCIM OAuth access token", 20, 300, 170),
		gitlabRule("gitlab-ci-job-token", "glcbt-", "CI/CD job token", 20, 300, 180),
		gitlabRule("gitlab-feature-flags-token", "glffct-", "feature flags client token", 20, 300, 190),
		provRule("gitlab-session-cookie", "GitLab", "high", "GitLab session cookie (_gitlab_session= and 32 hex)",
			[]form{tokenSpec{prefixes: []string{"_gitlab_session="}, body: setHexLower, min: 32, max: 32}.form()},
			func() (tp, fp []string) {
				tp = []string{
					"_gitlab_session=" + fakeChars(hex, 32, 1),
					"Cookie: _gitlab_session=" + fakeChars(hex, 32, 2) + "; path=/",
					"curl -b \"_gitlab_session=" + fakeChars(hex, 32, 3) + "\" https://gitlab.example.com",
				}
				fp = []string{
					"_gitlab_session=" + fakeChars(hex, 31, 4),
					"_gitlab_session=" + fakeChars(hex, 33, 5),
					"_gitlab_session=deleted",
				}
				return
			}),
	}
}

// hostingRules: Atlassian (Bitbucket, Jira, Confluence) and Sourcegraph.
func hostingRules() []ruleDef {
	hex := "0123456789abcdef"
	wd := base62Alphabet + "_-"
	atbb := func(seed uint32) string { return crc32Hex("ATBB" + fakeChars(base62Alphabet, 24, seed)) }
	atatt := func(seed uint32) string { return crc32Hex("ATATT3" + fakeChars(wd, 177, seed) + "=") }
	return []ruleDef{
		provRule("bitbucket-app-password", "Atlassian", "high", "Bitbucket app password (ATBB, 24 base62 and the upper-case hex CRC32 of what precedes)",
			[]form{tokenSpec{
				prefixes: []string{"ATBB"}, body: setAlnum, min: 32, max: 32,
				validate: func(b []byte) (bool, ChecksumResult) {
					for _, c := range b[24:] {
						if !setHexUpper[c] {
							return false, ChecksumNone
						}
					}
					return true, hexCRC(append([]byte("ATBB"), b...))
				},
			}.form()},
			func() (tp, fp []string) {
				tp = []string{
					atbb(1),
					"BITBUCKET_APP_PASSWORD=\"" + atbb(2) + "\"",
					"https://user:" + atbb(3) + "@bitbucket.org/team/repo.git",
					"x" + atbb(4), // glued, but its checksum is valid
					"ATBB" + fakeChars(base62Alphabet, 24, 5) + "0123ABCD", // wrong checksum: still redacted
				}
				fp = []string{
					"ATBB" + fakeChars(base62Alphabet, 32, 6) + "a",
					"ATBB" + fakeChars(base62Alphabet, 24, 7) + "0123abcd",
					"ATBBaseWeapon::ATBBaseWeapon()",
					"x" + atbb(8)[:35] + "Z",
				}
				return
			}),
		provRule("atlassian-api-token", "Atlassian", "high", "Atlassian (Jira, Confluence) API token (ATATT3, base64url, '=' and the upper-case hex CRC32 of what precedes)",
			[]form{tokenSpec{
				prefixes: []string{"ATATT3"}, body: setWordDashEq, min: 179, max: 199,
				validate: func(b []byte) (bool, ChecksumResult) {
					n := len(b)
					if b[n-9] != '=' {
						return false, ChecksumNone
					}
					for _, c := range b[:n-9] {
						if c == '=' {
							return false, ChecksumNone
						}
					}
					for _, c := range b[n-8:] {
						if !setHexUpper[c] {
							return false, ChecksumNone
						}
					}
					return true, hexCRC(append([]byte("ATATT3"), b...))
				},
				notBefore: setWordDash, notAfter: setWordDashEq,
			}.form()},
			func() (tp, fp []string) {
				tp = []string{
					atatt(1),
					"JIRA_API_TOKEN=" + atatt(2),
					"Authorization: Basic user@example.com:" + atatt(3),
					"ATATT3" + fakeChars(wd, 177, 4) + "=0123ABCD", // wrong checksum: still redacted
				}
				fp = []string{
					"ATATT3xFfGF0-EXAMPLE-NOT-A-REAL-TOKEN",
					"ATATT3" + fakeChars(wd, 177, 5) + "0123ABCD",
					"ATATT3" + fakeChars(wd, 177, 6) + "=0123abcd",
					"x" + atatt(7)[:183] + "=00000000",
				}
				return
			}),
		provRule("sourcegraph-token", "Sourcegraph", "high", "Sourcegraph access token (sgp_ and 40 hex, sgp_<16 hex>_<40 hex>, sgp_local_<40 hex>; hex of either case)",
			[]form{strictForm(tokenSpec{
				prefixes: []string{"sgp_"}, body: setWord, min: 40, max: 57,
				validate: func(b []byte) (bool, ChecksumResult) {
					switch len(b) {
					case 40:
						return bodyShape(bodySeg{set: setHex, n: 40})(b)
					case 46:
						return bodyShape(bodySeg{lit: "local_"}, bodySeg{set: setHex, n: 40})(b)
					case 57:
						return bodyShape(bodySeg{set: setHex, n: 16}, bodySeg{lit: "_"}, bodySeg{set: setHex, n: 40})(b)
					}
					return false, ChecksumNone
				},
			})},
			func() (tp, fp []string) {
				tp = []string{
					"sgp_" + fakeChars(hex, 40, 1),
					"SRC_ACCESS_TOKEN=sgp_" + fakeChars(hex, 16, 2) + "_" + fakeChars(hex, 40, 3),
					"token sgp_local_" + fakeChars(hex, 40, 4),
					"sgp_" + fakeChars("0123456789abcdefABCDEF", 16, 10) + "_" + fakeChars("0123456789abcdefABCDEF", 40, 11),
				}
				fp = []string{
					"sgp_" + fakeChars(hex, 39, 5),
					"sgp_" + fakeChars(hex, 15, 6) + "_" + fakeChars(hex, 40, 7),
					"sgp_" + fakeChars(base62Alphabet, 40, 8),
					"msgp_" + fakeChars(hex, 40, 9),
				}
				return
			}),
	}
}
