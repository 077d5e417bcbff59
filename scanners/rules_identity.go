package scanners

import (
	"bytes"
	"strings"
)

// Identity providers and secret managers: Okta, Auth0, HashiCorp Vault, age,
// 1Password. This file also holds namedSpec, the "value assigned to a known
// name" shape several families use for formats without a prefix.

func identityRules() []ruleDef {
	wd := base62Alphabet + "_-"
	b64 := base62Alphabet + "+/"
	return []ruleDef{
		{
			id: "okta-api-token", provider: "Okta", kind: KindSecret, confidence: "high",
			desc: "Okta API token (00 and 40 of [A-Za-z0-9_-]) after \"SSWS \" or assigned to a name starting with okta and containing token or key",
			forms: []form{
				plainForm(tokenSpec{prefixes: []string{"SSWS "}, fold: true, body: setWordDash, min: 42, max: 42, validate: oktaShape}),
				namedSpec{names: []string{"okta"}, tail: 32, nameHas: []string{"token", "key"}, body: setWordDash, min: 42, max: 42,
					validate: func(b []byte) bool { ok, _ := oktaShape(b); return ok }}.form(),
			},
			examples: func() (tp, fp []string) {
				tp = []string{
					"Authorization: SSWS 00" + fakeChars(wd, 40, 1),
					"OKTA_API_TOKEN=00" + fakeChars(wd, 40, 2),
					"okta.token = \"00" + fakeChars(wd, 40, 3) + "\"",
					"\"oktaApiKey\": \"00" + fakeChars(wd, 40, 13) + "\"",
					"\tos.Setenv(\"OKTA_API_TOKEN\", \"00" + fakeChars(wd, 40, 78) + "\")",
				}
				fp = []string{
					"Authorization: SSWS " + fakeChars(wd, 42, 4),
					"OKTA_ORG_URL=00" + fakeChars(wd, 40, 5),
					"OKTA_API_TOKEN=00" + fakeChars(wd, 39, 6),
				}
				return
			},
		},
		{
			id: "auth0-client-secret", provider: "Auth0", kind: KindSecret, confidence: "medium",
			desc: "Auth0 client secret: 64 of [A-Za-z0-9_-] mixing letters and digits, assigned to a name starting with auth0 and containing secret",
			forms: []form{namedSpec{names: []string{"auth0"}, tail: 32, nameHas: []string{"secret"}, body: setWordDash, min: 64, max: 64,
				validate: func(b []byte) bool { u, l, d := hasClasses(b); return d && (u || l) }}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"AUTH0_CLIENT_SECRET=" + fakeChars(wd, 64, 7),
					"auth0_secret: '" + fakeChars(wd, 64, 8) + "'",
					"\"auth0ClientSecret\": \"" + fakeChars(wd, 64, 9) + "\"",
				}
				fp = []string{
					"AUTH0_CLIENT_ID=" + fakeChars(wd, 32, 10),
					"AUTH0_CLIENT_SECRET=" + fakeChars(wd, 63, 11),
					"AUTH0_DOMAIN=" + fakeChars(wd, 64, 12),
				}
				return
			},
		},
		{
			id: "vault-service-token", provider: "HashiCorp Vault", kind: KindSecret, confidence: "high",
			desc:  "HashiCorp Vault service token (hvs. and 24-512 of [A-Za-z0-9_-] mixing two of upper, lower, digit)",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"hvs."}, body: setWordDash, min: 24, max: 512, validate: twoOfThree})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"hvs." + fakeChars(base62Alphabet, 24, 14),
					"VAULT_TOKEN=hvs.CAESI" + fakeChars(wd, 90, 15),
					"X-Vault-Token: hvs." + fakeChars(wd, 91, 16),
				}
				fp = []string{
					"hvs." + fakeChars(base62Alphabet, 23, 17),
					"hvs.configuration_option_name_here",
					"chvs." + fakeChars(base62Alphabet, 30, 18),
				}
				return
			},
		},
		{
			id: "vault-batch-token", provider: "HashiCorp Vault", kind: KindSecret, confidence: "high",
			desc:  "HashiCorp Vault batch token (hvb. and 24-512 of [A-Za-z0-9_-] mixing two of upper, lower, digit)",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"hvb."}, body: setWordDash, min: 24, max: 512, validate: twoOfThree})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"hvb.AAAAAQ" + fakeChars(wd, 140, 19),
					"token: hvb." + fakeChars(wd, 180, 20),
					"\"client_token\":\"hvb." + fakeChars(wd, 150, 21) + "\"",
				}
				fp = []string{
					"hvb." + fakeChars(base62Alphabet, 10, 22),
					"hvb.lowercase_words_only_in_this_name",
					"hvb." + fakeChars(wd, 513, 23),
				}
				return
			},
		},
		{
			id: "vault-recovery-token", provider: "HashiCorp Vault", kind: KindSecret, confidence: "high",
			desc:  "HashiCorp Vault recovery token (hvr. and 24-512 of [A-Za-z0-9_-] mixing two of upper, lower, digit)",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"hvr."}, body: setWordDash, min: 24, max: 512, validate: twoOfThree})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"hvr." + fakeChars(base62Alphabet, 24, 24),
					"recovery token: hvr." + fakeChars(wd, 60, 25),
					"'hvr." + fakeChars(base62Alphabet, 90, 26) + "'",
				}
				fp = []string{
					"hvr." + fakeChars(base62Alphabet, 20, 27),
					"shvr." + fakeChars(base62Alphabet, 30, 28),
					"hvr.ABCDEFGHIJKLMNOPQRSTUVWXYZ",
				}
				return
			},
		},
		{
			id: "vault-legacy-token", provider: "HashiCorp Vault", kind: KindSecret, confidence: "medium",
			desc: "HashiCorp Vault token of before 1.10 (s. and 24 alphanumerics) assigned to a vault_token / X-Vault-Token name",
			forms: []form{namedSpec{names: []string{"vault_token", "vault-token", "vaulttoken"}, tail: 8, body: makeSet("A-Za-z0-9."), min: 26, max: 26,
				validate: func(b []byte) bool {
					return b[0] == 's' && b[1] == '.' && bytes.IndexByte(b[2:], '.') < 0 && twoOfThreeOK(b[2:])
				}}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"VAULT_TOKEN=s." + fakeChars(base62Alphabet, 24, 29),
					"X-Vault-Token: s." + fakeChars(base62Alphabet, 24, 30),
					"{\"vaultToken\": \"s." + fakeChars(base62Alphabet, 24, 31) + "\"}",
				}
				fp = []string{
					"VAULT_TOKEN=s." + fakeChars(base62Alphabet, 23, 32),
					"VAULT_TOKEN=b." + fakeChars(base62Alphabet, 24, 33),
					"s." + fakeChars(base62Alphabet, 24, 34),
				}
				return
			},
		},
		{
			id: "age-secret-key", provider: "age", kind: KindSecret, confidence: "high",
			desc:  "age secret key (AGE-SECRET-KEY-1 and 58 upper-case bech32 characters); the bech32 checksum is verified and reported",
			forms: []form{tokenSpec{prefixes: []string{"AGE-SECRET-KEY-1"}, body: makeSet(strings.ToUpper(bech32Charset)), min: 58, max: 58, validate: ageChecksum}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					ageKey(35),
					"# created: 2025-01-01\n# public key: age1" + fakeChars(bech32Charset, 58, 36) + "\n" + ageKey(37),
					"AGE_KEY='" + ageKey(38)[:40] + fakeChars(strings.ToUpper(bech32Charset), 34, 39) + "'",
				}
				fp = []string{
					"age1" + fakeChars(bech32Charset, 58, 40),
					"AGE-SECRET-KEY-1" + fakeChars(strings.ToUpper(bech32Charset), 57, 41),
					"AGE-SECRET-KEY-1" + strings.ToLower(fakeChars(strings.ToUpper(bech32Charset), 58, 42)),
				}
				return
			},
		},
		{
			id: "1password-service-account-token", provider: "1Password", kind: KindSecret, confidence: "high",
			desc: "1Password service account token (ops_eyJ and 250+ base64 bytes)",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"ops_eyJ"}, body: setBase64Pad, notBefore: setB64NB, min: 250, max: 4096,
				validate: func(b []byte) (bool, ChecksumResult) { return padOnlyAtEnd(b), ChecksumNone }})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"ops_eyJ" + fakeChars(b64, 300, 43),
					"OP_SERVICE_ACCOUNT_TOKEN=ops_eyJ" + fakeChars(b64, 600, 44) + "==",
					"token: \"ops_eyJ" + fakeChars(b64, 251, 45) + "\"",
				}
				fp = []string{
					"ops_eyJ" + fakeChars(b64, 100, 46),
					"ops_eyJ" + fakeChars(b64, 150, 47) + "=" + fakeChars(b64, 150, 48),
					"devops_eyJ" + fakeChars(b64, 300, 49),
				}
				return
			},
		},
		{
			id: "1password-secret-key", provider: "1Password", kind: KindSecret, confidence: "high",
			desc: "1Password account Secret Key (A3- then groups of 6, 6-5 or 11, 5, 5, 5 of [A-Z0-9])",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"A3-"}, body: makeSet("A-Z0-9-"), min: 36, max: 37,
				validate: func(b []byte) (bool, ChecksumResult) { return opSecretKeyShape(b), ChecksumNone }})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"A3-" + up36(6, 50) + "-" + up36(6, 51) + "-" + up36(5, 52) + "-" + up36(5, 53) + "-" + up36(5, 54) + "-" + up36(5, 55),
					"Secret Key: A3-" + up36(6, 56) + "-" + up36(11, 57) + "-" + up36(5, 58) + "-" + up36(5, 59) + "-" + up36(5, 60),
					"\"secret_key\": \"A3-" + up36(6, 61) + "-" + up36(6, 62) + "-" + up36(5, 63) + "-" + up36(5, 64) + "-" + up36(5, 65) + "-" + up36(5, 66) + "\"",
				}
				fp = []string{
					"A3-" + up36(6, 67) + "-" + up36(5, 68) + "-" + up36(5, 69) + "-" + up36(5, 70) + "-" + up36(5, 71) + "-" + up36(5, 72),
					"A3-paper-size-and-other-lowercase-words",
					"BA3-" + up36(6, 73) + "-" + up36(11, 74) + "-" + up36(5, 75) + "-" + up36(5, 76) + "-" + up36(5, 77),
				}
				return
			},
		},
	}
}

func up36(n int, seed uint32) string {
	return fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", n, seed)
}

// oktaShape: 00 then 40 more bytes mixing two of upper, lower, digit.
func oktaShape(b []byte) (bool, ChecksumResult) {
	return len(b) == 42 && b[0] == '0' && b[1] == '0' && twoOfThreeOK(b[2:]), ChecksumNone
}

func twoOfThreeOK(b []byte) bool {
	u, l, d := hasClasses(b)
	n := 0
	for _, x := range []bool{u, l, d} {
		if x {
			n++
		}
	}
	return n >= 2
}

func twoOfThree(b []byte) (bool, ChecksumResult) { return twoOfThreeOK(b), ChecksumNone }

// padOnlyAtEnd: '=' occurs only as the last 0-3 bytes.
func padOnlyAtEnd(b []byte) bool {
	t := bytes.TrimRight(b, "=")
	return len(b)-len(t) <= 3 && bytes.IndexByte(t, '=') < 0
}

// opSecretKeyShape checks the groups after "A3-": 6-6-5-5-5-5 or 6-11-5-5-5.
func opSecretKeyShape(b []byte) bool {
	var lens []int
	for _, g := range bytes.Split(b, []byte("-")) {
		lens = append(lens, len(g))
	}
	eq := func(want ...int) bool {
		if len(want) != len(lens) {
			return false
		}
		for i := range want {
			if want[i] != lens[i] {
				return false
			}
		}
		return true
	}
	return eq(6, 6, 5, 5, 5, 5) || eq(6, 11, 5, 5, 5)
}

const bech32Charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

func bech32Polymod(values []byte) uint32 {
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := uint32(1)
	for _, v := range values {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for i := 0; i < 5; i++ {
			if (top>>i)&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk
}

// ageHRP is the bech32 human-readable part of an age secret key.
const ageHRP = "age-secret-key-"

// ageValues returns the bech32 checksum input for the human-readable part
// and data (upper-case bech32 characters, already checked to be in the set).
func ageValues(data []byte) []byte {
	v := make([]byte, 0, 2*len(ageHRP)+1+len(data))
	for i := 0; i < len(ageHRP); i++ {
		v = append(v, ageHRP[i]>>5)
	}
	v = append(v, 0)
	for i := 0; i < len(ageHRP); i++ {
		v = append(v, ageHRP[i]&31)
	}
	for _, c := range data {
		v = append(v, byte(strings.IndexByte(bech32Charset, lowerASCII(c))))
	}
	return v
}

// ageChecksum verifies the bech32 checksum of the 58 data characters.
func ageChecksum(b []byte) (bool, ChecksumResult) {
	if bech32Polymod(ageValues(b)) == 1 {
		return true, ChecksumValid
	}
	return true, ChecksumInvalid
}

// ageKey builds an age secret key with a valid checksum from a seed, for
// the example tables.
func ageKey(seed uint32) string {
	data := []byte(fakeChars(strings.ToUpper(bech32Charset), 52, seed))
	v := append(ageValues(data), 0, 0, 0, 0, 0, 0)
	pm := bech32Polymod(v) ^ 1
	for i := 0; i < 6; i++ {
		data = append(data, strings.ToUpper(bech32Charset)[(pm>>(5*(5-i)))&31])
	}
	return "AGE-SECRET-KEY-1" + string(data)
}

// namedSpec declares a value assigned to a known name: a keyword (a name or
// its first part, matched case-insensitively, not preceded by [A-Za-z0-9]),
// at most tail further name bytes [A-Za-z0-9_.-], 1-8 separator bytes (tab,
// space, quotes, backslash, ':', '=', '>', ',') that assign (see assignSep),
// then the value: the maximal run of body bytes, min..max long, not followed
// by a body or [A-Za-z0-9_] byte. If nameHas is set the whole name (keyword
// and tail, any case) must contain one of its words. The match is the value
// only. body must not contain separator bytes.
type namedSpec struct {
	names    []string
	tail     int
	nameHas  []string
	body     *byteSet
	min, max int
	validate func(v []byte) bool
}

const namedMaxSep = 8

var (
	setNameTail = makeSet("A-Za-z0-9_.-")
	setNamedSep = makeSet("\t \"'`:=>,\\")
)

func (n namedSpec) form() form {
	longest := 0
	for _, k := range n.names {
		longest = max(longest, len(k))
	}
	notAfter := union(n.body, setWord)
	return form{
		keywords:  n.names,
		back:      1,
		ahead:     longest + n.tail + 1 + namedMaxSep + 1 + n.max + 2,
		notBefore: setAlnum,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if ks > 0 && setAlnum[d[ks-1]] {
				return noMatch
			}
			c := scanCursor{d: d}
			i := c.run(ke, setNameTail, n.tail)
			if i-ke > n.tail {
				return c.done(v, noMatch)
			}
			j := c.run(i, setNamedSep, namedMaxSep)
			if j == i || j-i > namedMaxSep {
				return c.done(v, noMatch)
			}
			sep := d[i:min(j, len(d))]
			if !assignSep(sep) {
				return c.done(v, noMatch)
			}
			e := c.run(j, n.body, n.max)
			if e-j < n.min || e-j > n.max || c.is(e, notAfter) {
				return c.done(v, noMatch)
			}
			if c.short && !v.atEnd {
				return result{status: resMore}
			}
			if n.nameHas != nil && !nameContains(d[ks:i], n.nameHas) {
				return noMatch
			}
			if n.validate != nil && !n.validate(d[j:e]) || placeholderBody(d[j:e]) {
				return noMatch
			}
			return result{status: resMatch, start: j, end: e}
		},
	}
}

// assignSep reports whether the separator bytes between a name and a value
// assign: they hold ':', '=' or '>', or a ',' and a quote (the arguments of
// os.Setenv("NAME", "value") or a ["NAME", "value"] pair).
func assignSep(sep []byte) bool {
	if bytes.IndexByte(sep, ':') >= 0 || bytes.IndexByte(sep, '=') >= 0 || bytes.IndexByte(sep, '>') >= 0 {
		return true
	}
	return bytes.IndexByte(sep, ',') >= 0 && bytes.ContainsAny(sep, "\"'`")
}

// nameContains reports whether name (any case) contains one of the
// lower-case words.
func nameContains(name []byte, words []string) bool {
	var buf [128]byte
	l := buf[:0]
	for _, c := range name {
		l = append(l, lowerASCII(c))
	}
	for _, w := range words {
		if bytes.Contains(l, []byte(w)) {
			return true
		}
	}
	return false
}
