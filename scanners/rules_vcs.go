package scanners

import "hash/crc32"

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
	return ruleDef{
		id: id, provider: "GitHub", kind: KindSecret, confidence: "high",
		desc: "GitHub " + what,
		forms: []form{tokenSpec{
			prefixes: prefixes, body: setWord, min: 20, max: 255,
			validate: func(b []byte) (bool, ChecksumResult) { return true, base62CRC(b) },
		}.form()},
		tp: []string{
			withCRC(prefix, body30(seed)),
			"token: " + withCRC(last, body30(seed+1)) + "\n",
			"GITHUB_TOKEN=" + prefix + body30(seed+2) + "abcdef", // wrong checksum: still redacted
			"(" + prefix + fakeChars(base62Alphabet, 40, seed+3) + ")",
			"x" + withCRC(prefix, body30(seed+4)), // glued to a word, but its checksum is valid
		},
		fp: []string{
			prefix + "short",
			"x" + prefix + body30(seed+6) + "abcdef", // glued to a word, checksum wrong
			prefix + fakeChars(base62Alphabet, 19, seed+5),
			"the " + prefix[:3] + " prefix",
		},
	}
}

func vcsRules() []ruleDef {
	return []ruleDef{
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
			tp: []string{
				"github_pat_" + fakeChars(base62Alphabet, 22, 1) + "_" + fakeChars(base62Alphabet, 59, 2),
				"Authorization: Bearer github_pat_" + fakeChars(base62Alphabet, 22, 3) + "_" + fakeChars(base62Alphabet, 59, 4),
				"'github_pat_" + fakeChars(base62Alphabet, 22, 5) + "_" + fakeChars(base62Alphabet, 59, 6) + "'",
			},
			fp: []string{
				"github_pat_" + fakeChars(base62Alphabet, 22, 7) + "_short",
				"github_pat_" + fakeChars(base62Alphabet, 81, 8),
				"my_github_pat_" + fakeChars(base62Alphabet, 22, 9) + "_" + fakeChars(base62Alphabet, 59, 10),
			},
		},
		{
			id: "gitlab-pat", provider: "GitLab", kind: KindSecret, confidence: "high",
			desc:  "GitLab personal access token (glpat-)",
			forms: []form{tokenSpec{prefixes: []string{"glpat-"}, body: setWordDash, min: 20, max: 255}.form()},
			tp: []string{
				"glpat-" + fakeChars(base62Alphabet+"_-", 20, 1),
				"GITLAB_TOKEN=glpat-" + fakeChars(base62Alphabet, 26, 2),
				"\"glpat-" + fakeChars(base62Alphabet, 40, 3) + "\"",
			},
			fp: []string{
				"glpat-" + fakeChars(base62Alphabet, 19, 4),
				"xglpat-" + fakeChars(base62Alphabet, 20, 5),
				"GLPAT-" + fakeChars(base62Alphabet, 20, 6),
			},
		},
		{
			id: "npm", provider: "npm", kind: KindSecret, confidence: "high",
			desc: "npm access token (npm_ 36 base62 with CRC32)",
			forms: []form{tokenSpec{
				prefixes: []string{"npm_"}, body: setAlnum, min: 36, max: 36,
				validate: func(b []byte) (bool, ChecksumResult) { return true, base62CRC(b) },
			}.form()},
			tp: []string{
				withCRC("npm_", fakeChars(base62Alphabet, 30, 1)),
				"//registry.npmjs.org/:_authToken=" + withCRC("npm_", fakeChars(base62Alphabet, 30, 2)),
				"NPM_TOKEN=npm_" + fakeChars(base62Alphabet, 36, 3),
			},
			fp: []string{
				"npm_" + fakeChars(base62Alphabet, 35, 4),
				"npm_" + fakeChars(base62Alphabet, 37, 5),
				"run npm_config_cache=" + fakeChars(base62Alphabet, 36, 6),
			},
		},
	}
}
