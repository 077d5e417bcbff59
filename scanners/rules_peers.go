package scanners

import (
	"bytes"
	"encoding/base64"
	"strings"
)

// Rules for provider formats that gitleaks 8.30.1 covers and the other
// families did not: Mapbox, Meta (Facebook), Dropbox, ReadMe, Typeform,
// Frame.io, Defined Networking, Adobe, SettleMint, 42 Intra, MaxMind, Yandex
// Cloud IAM, Airtable, OpenShift and Authress.
//
// A format is found by its prefix alone only when the prefix and the fixed
// shape after it are distinctive enough (a rare literal, an exact length, a
// mix of character classes); otherwise the value must be assigned to the
// provider's name (namedSpec), as gitleaks requires. Each rule's description
// says which.

func peerRules() []ruleDef {
	hex := "0123456789abcdef"
	b64url := base62Alphabet + "_-"
	lowAlnum := "abcdefghijklmnopqrstuvwxyz0123456789"
	mapbox := func(prefix, user string, seed uint32) string {
		payload := `{"u":"` + user + `","a":"cl` + fakeChars(lowAlnum, 23, seed) + `"}`
		return prefix + base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + fakeChars(b64url, 22, seed+1)
	}
	fb := func(p string, n int, seed uint32) string { return p + fakeChars(base62Alphabet, n, seed) }
	sl := func(seed uint32) string { return "sl.B" + fakeChars(b64url, 134, seed) }
	dbxLong := func(seed uint32) string {
		return fakeChars(base62Alphabet, 11, seed) + "AAAAAAAAAA" + fakeChars(b64url, 43, seed+1)
	}
	yandex := func(mid int, seed uint32) string {
		return "t1.9euelZ" + fakeChars(b64url, mid, seed) + "." + fakeChars(b64url, 86, seed+1)
	}
	mmk := func(seed uint32) string {
		return fakeChars(base62Alphabet, 6, seed) + "_" + fakeChars(base62Alphabet, 29, seed+1) + "_mmk"
	}
	airtable := func(seed uint32) string {
		return "pat" + fakeChars(base62Alphabet, 14, seed) + "." + fakeChars(hex, 64, seed+1)
	}
	authress := func(p string, seed uint32) string {
		return p + fakeChars(base62Alphabet, 10, seed) + "." + fakeChars(base62Alphabet, 4, seed+1) + ".acc_" +
			fakeChars(lowAlnum, 10, seed+2) + "." + fakeChars(b64url, 40, seed+3)
	}
	dnkey := func(a, b int, seed uint32) string {
		return "dnkey-" + fakeChars(base62Alphabet, a, seed) + "-" + fakeChars(base62Alphabet, b, seed+1)
	}
	return []ruleDef{
		provRule("mapbox-secret-token", "Mapbox", "high",
			"Mapbox secret access token: sk.eyJ1Ijoi (sk. and base64url of {\"u\":\"), the rest of a base64url JSON payload that decodes to {\"u\":\"…\",\"a\":\"…\"}, '.', and a 22-byte base64url signature; the prefix and the decoded payload are distinctive, so no name is needed (public pk. tokens are not secrets)",
			[]form{segSpec{
				prefixes:  []string{"sk.eyJ1Ijoi"},
				parts:     []segPart{{set: setWordDash, min: 20, max: 400}, {lit: "."}, {set: setWordDash, min: 22, max: 22}},
				notBefore: setWordDashDot, notAfter: setWordDash, validate: mapboxPayload,
			}.form()},
			func() (tp, fp []string) {
				tp = []string{
					mapbox("sk.", "acme-maps", 1),
					"MAPBOX_SECRET_TOKEN=" + mapbox("sk.", "jdoe", 3),
					"{\"accessToken\": \"" + mapbox("sk.", "geo-team", 5) + "\"}",
					"curl \"https://api.mapbox.com/tokens/v2/acme?access_token=" + mapbox("sk.", "acme", 7) + "\"",
				}
				fp = []string{
					mapbox("pk.", "acme-maps", 9),                                               // public token
					mapbox("sk.", "acme-maps", 11)[:len(mapbox("sk.", "acme-maps", 11))-1],      // 21-byte signature
					"risk." + mapbox("sk.", "acme", 13)[3:],                                     // glued to a word
					"sk.eyJ1Ijoi" + fakeChars(b64url, 60, 15) + "." + fakeChars(b64url, 22, 16), // payload is not {"u":…,"a":…}
					"sk.eyJ1IjoiYOUR_MAPBOX_TOKEN_HERE",
				}
				return
			}),
		provRule("facebook-page-access-token", "Meta", "medium",
			"Meta (Facebook) page or user access token: EAAM or EAAC and 100-512 base62 bytes mixing upper case, lower case and digits, not inside a base64 run (no [+/] around, no '=' after)",
			[]form{strictForm(tokenSpec{
				prefixes: []string{"EAAM", "EAAC"}, body: setAlnum, min: 100, max: 512,
				notBefore: makeSet("A-Za-z0-9_+/"), notAfter: makeSet("A-Za-z0-9_+/=-"), validate: mixes3,
			})},
			func() (tp, fp []string) {
				tp = []string{
					fb("EAAM", 180, 1),
					"FACEBOOK_PAGE_TOKEN=" + fb("EAAC", 120, 2),
					"{\"access_token\": \"" + fb("EAAM", 200, 3) + "\"}",
					"curl -H \"Authorization: Bearer " + fb("EAAC", 150, 4) + "\" https://graph.facebook.com/me",
				}
				fp = []string{
					fb("EAAM", 99, 5),                                   // too short
					fb("EAAA", 120, 6),                                  // EAAA: a Square token prefix
					"eaac" + fakeChars(hex, 124, 7),                     // lower-case prefix (a checksum)
					"QUFB" + fb("EAAC", 120, 8),                         // inside a longer run
					fb("EAAM", 120, 9) + "+" + fakeChars(b64url, 8, 10), // base64 data
					"EAAC" + strings.Repeat("x", 120),
				}
				return
			}),
		provRule("dropbox-short-lived-token", "Dropbox", "high",
			"Dropbox short-lived access token: sl. and 135 of [A-Za-z0-9_-] assigned to a name starting with dropbox (gitleaks' shape without '='), or alone when it is sl.B and 134 of [A-Za-z0-9_=-] mixing upper case, lower case and digits",
			[]form{
				namedSpec{names: []string{"dropbox"}, tail: 24, body: setWordDashDot, min: 138, max: 138, validate: dropboxShortShape}.form(),
				strictForm(tokenSpec{prefixes: []string{"sl.B"}, body: setWordDashEq, min: 134, max: 134, validate: mixes3}),
			},
			func() (tp, fp []string) {
				tp = []string{
					sl(1),
					"DROPBOX_ACCESS_TOKEN=sl." + fakeChars(lowAlnum+"_-", 135, 2),
					"{\"token\": \"" + sl(3) + "\"}",
					"curl -X POST https://api.dropboxapi.com/2/files/list_folder --header \"Authorization: Bearer " + sl(4) + "\"",
				}
				fp = []string{
					"sl.B" + fakeChars(b64url, 133, 5),              // one byte short
					"DROPBOX_TOKEN=sl." + fakeChars(b64url, 136, 6), // too long
					"tsl.B" + fakeChars(b64url, 134, 7),             // glued to a word
					"sl.b" + fakeChars(b64url, 134, 8),              // sl.b alone: wrong case
					"DROPBOX_TOKEN=sl.xxxxxxxxxxxx",
				}
				return
			}),
		provRule("dropbox-long-lived-token", "Dropbox", "medium",
			"Dropbox long-lived access token: 11 alphanumerics, AAAAAAAAAA and 43 of [A-Za-z0-9_-], assigned to a name starting with dropbox",
			[]form{namedSpec{names: []string{"dropbox"}, tail: 24, body: setWordDash, min: 64, max: 64, validate: dropboxLongShape}.form()},
			func() (tp, fp []string) {
				tp = []string{
					"DROPBOX_TOKEN=" + dbxLong(1),
					"dropbox_access_token: '" + dbxLong(3) + "'",
					"{\"dropboxToken\": \"" + dbxLong(5) + "\"}",
				}
				fp = []string{
					"DROPBOX_TOKEN=" + fakeChars(base62Alphabet, 64, 7), // no AAAAAAAAAA
					"DROPBOX_TOKEN=" + dbxLong(9) + "x",                 // too long
					"token=" + dbxLong(11),                              // no dropbox name
					"DROPBOX_TOKEN=" + fakeChars(base62Alphabet, 11, 13) + "aaaaaaaaaa" + fakeChars(b64url, 43, 14), // lower-case run
				}
				return
			}),
		provRule("readme-api-key", "ReadMe", "high",
			"ReadMe API key (rdme_ and 70 of [a-z0-9] with letters and digits)",
			[]form{strictForm(tokenSpec{prefixes: []string{"rdme_"}, body: setLowerAlnum, min: 70, max: 70, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"rdme_" + fakeChars(lowAlnum, 70, 1),
					"README_API_KEY=rdme_" + fakeChars(lowAlnum, 70, 2),
					"curl --user 'rdme_" + fakeChars(lowAlnum, 70, 3) + ":' https://dash.readme.com/api/v1",
				}
				fp = []string{
					"rdme_" + fakeChars(lowAlnum, 69, 4),
					"rdme_" + fakeChars(lowAlnum, 71, 5),
					"RDME_" + fakeChars(lowAlnum, 70, 6),
					"xrdme_" + fakeChars(lowAlnum, 70, 7),
					"rdme_" + strings.Repeat("x", 70),
				}
				return
			}),
		provRule("typeform-api-token", "Typeform", "medium",
			"Typeform personal access token: tfp_ and exactly 59 of [A-Za-z0-9_=-] mixing upper case, lower case and digits (gitleaks also allows '.', which would swallow a full stop after the token)",
			[]form{strictForm(tokenSpec{prefixes: []string{"tfp_"}, body: setWordDashEq, min: 59, max: 59, notBefore: setWordDash, validate: mixes3})},
			func() (tp, fp []string) {
				tp = []string{
					"tfp_" + fakeChars(base62Alphabet, 44, 1) + "_" + fakeChars(base62Alphabet, 14, 2),
					"TYPEFORM_TOKEN=tfp_" + fakeChars(b64url, 59, 3),
					"curl -H \"Authorization: Bearer tfp_" + fakeChars(base62Alphabet, 44, 4) + "_" + fakeChars(base62Alphabet, 14, 5) + "\" https://api.typeform.com/forms",
				}
				fp = []string{
					"tfp_" + fakeChars(b64url, 58, 6),
					"tfp_" + fakeChars(b64url, 60, 7),
					"TFP_" + fakeChars(base62Alphabet, 59, 8),
					"stfp_" + fakeChars(base62Alphabet, 59, 9),
					"tfp_your_typeform_personal_access_token_goes_here_xxxxxxxxxx",
				}
				return
			}),
		provRule("frameio-api-token", "Frame.io", "high",
			"Frame.io developer token (fio-u- and 64 of [A-Za-z0-9_=-] mixing upper case, lower case and digits)",
			[]form{strictForm(tokenSpec{prefixes: []string{"fio-u-"}, body: setWordDashEq, min: 64, max: 64, notBefore: setWordDash, validate: mixes3})},
			func() (tp, fp []string) {
				tp = []string{
					"fio-u-" + fakeChars(b64url, 64, 1),
					"FRAMEIO_TOKEN=fio-u-" + fakeChars(b64url, 64, 2),
					"curl -H 'Authorization: Bearer fio-u-" + fakeChars(b64url, 64, 3) + "' https://api.frame.io/v2/me",
				}
				fp = []string{
					"fio-u-" + fakeChars(b64url, 63, 4),
					"fio-u-" + fakeChars(b64url, 65, 5),
					"FIO-U-" + fakeChars(b64url, 64, 6),
					"xfio-u-" + fakeChars(b64url, 64, 7),
					"fio-u-" + strings.Repeat("x", 64),
				}
				return
			}),
		provRule("defined-networking-api-token", "Defined Networking", "high",
			"Defined Networking (Nebula) API token: dnkey-, 26 of [A-Za-z0-9_=-], '-', 52 of [A-Za-z0-9_=-], with letters and digits",
			[]form{strictForm(tokenSpec{prefixes: []string{"dnkey-"}, body: setWordDashEq, min: 79, max: 79, notBefore: setWordDash, validate: dnkeyShape})},
			func() (tp, fp []string) {
				tp = []string{
					dnkey(26, 52, 1),
					"DN_API_KEY=" + dnkey(26, 52, 3),
					"curl -H \"Authorization: Bearer " + dnkey(26, 52, 5) + "\" https://api.defined.net/v1/hosts",
				}
				fp = []string{
					dnkey(25, 53, 7), // dash at the wrong place
					dnkey(26, 51, 9),
					"DNKEY-" + fakeChars(base62Alphabet, 26, 11) + "-" + fakeChars(base62Alphabet, 52, 12),
					"my" + dnkey(26, 52, 13),
				}
				return
			}),
		provRule("adobe-client-secret", "Adobe", "high",
			"Adobe (I/O) OAuth client secret (p8e- and 32 alphanumerics with at least two of upper case, lower case and digits)",
			[]form{strictForm(tokenSpec{prefixes: []string{"p8e-"}, body: setAlnum, min: 32, max: 32, notBefore: setWordDash, notAfter: setWordDash, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"p8e-" + fakeChars(base62Alphabet, 32, 1),
					"ADOBE_CLIENT_SECRET=p8e-" + fakeChars(lowAlnum, 32, 2),
					"{\"client_secret\": \"p8e-" + fakeChars(base62Alphabet, 32, 3) + "\"}",
				}
				fp = []string{
					"p8e-" + fakeChars(base62Alphabet, 31, 4),
					"p8e-" + fakeChars(base62Alphabet, 33, 5),
					"P8E-" + fakeChars(base62Alphabet, 32, 6),
					"xp8e-" + fakeChars(base62Alphabet, 32, 7),
					"p8e-" + fakeChars(base62Alphabet, 32, 8) + "-suffix",
				}
				return
			}),
		provRule("settlemint-access-token", "SettleMint", "medium",
			"SettleMint application, personal or service access token (sm_aat_, sm_pat_ or sm_sat_ and 16 alphanumerics with at least two of upper case, lower case and digits)",
			[]form{strictForm(tokenSpec{prefixes: []string{"sm_aat_", "sm_pat_", "sm_sat_"}, body: setAlnum, min: 16, max: 16, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"sm_pat_" + fakeChars(base62Alphabet, 16, 1),
					"SETTLEMINT_ACCESS_TOKEN=sm_aat_" + fakeChars(base62Alphabet, 16, 2),
					"curl -H 'x-auth-token: sm_sat_" + fakeChars(base62Alphabet, 16, 3) + "'",
				}
				fp = []string{
					"sm_pat_" + fakeChars(base62Alphabet, 15, 4),
					"sm_pat_" + fakeChars(base62Alphabet, 17, 5),
					"sm_xat_" + fakeChars(base62Alphabet, 16, 6),
					"ism_pat_" + fakeChars(base62Alphabet, 16, 7),
					"sm_pat_xxxxxxxxxxxxxxxx",
				}
				return
			}),
		provRule("intra42-client-secret", "42", "high",
			"42 Intra API client secret (s-s4t2ud- or s-s4t2af- and 64 hex)",
			[]form{strictForm(tokenSpec{prefixes: []string{"s-s4t2ud-", "s-s4t2af-"}, body: makeSet("0-9a-fA-F"), min: 64, max: 64, notBefore: setWordDash, notAfter: setWordDash, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"s-s4t2ud-" + fakeChars(hex, 64, 1),
					"FT_CLIENT_SECRET=s-s4t2af-" + fakeChars(hex, 64, 2),
					"curl -F client_secret=s-s4t2ud-" + fakeChars(hex, 64, 3) + " https://api.intra.42.fr/oauth/token",
				}
				fp = []string{
					"s-s4t2ud-" + fakeChars(hex, 63, 4),
					"s-s4t2ud-" + fakeChars(hex, 65, 5),
					"s-s4t2xx-" + fakeChars(hex, 64, 6),
					"u-s4t2ud-" + fakeChars(hex, 64, 7),
					"s-s4t2ud-" + strings.Repeat("0", 64),
				}
				return
			}),
		{
			id: "maxmind-license-key", provider: "MaxMind", kind: KindSecret, confidence: "high",
			desc:  "MaxMind license key (6 alphanumerics, '_', 29 alphanumerics, _mmk; the 35 mix upper case, lower case and digits)",
			forms: []form{{keywords: []string{"_mmk"}, back: 37, ahead: 5, check: maxmindCheck}},
			examples: func() (tp, fp []string) {
				tp = []string{
					mmk(1),
					"MAXMIND_LICENSE_KEY=" + mmk(3),
					"curl -u \"123456:" + mmk(5) + "\" https://download.maxmind.com",
				}
				fp = []string{
					fakeChars(base62Alphabet, 6, 7) + "_" + fakeChars(base62Alphabet, 28, 8) + "_mmk",
					"x" + mmk(9),
					mmk(11) + "s",
					mmk(13)[:len(mmk(13))-4] + "_MMK",
					"abcdef_ghijklmnopqrstuvwxyzabcdefghi_mmk",
				}
				return
			},
		},
		provRule("yandex-iam-token", "Yandex Cloud", "medium",
			"Yandex Cloud IAM token: t1., base64url, '.', 86 base64url bytes, assigned to a name starting with yandex (gitleaks' yandex-access-token; a '=' pad inside the token is not accepted, one after it is left in place)",
			[]form{namedSpec{names: []string{"yandex"}, tail: 24, body: setWordDashDot, min: 91, max: 512, validate: yandexIAMShape}.form()},
			func() (tp, fp []string) {
				tp = []string{
					"YANDEX_IAM_TOKEN=" + yandex(160, 1),
					"yandex_token: \"" + yandex(120, 3) + "\"",
					"{\"yandexCloudToken\": \"" + yandex(200, 5) + "\"}",
				}
				fp = []string{
					"IAM_TOKEN=" + yandex(160, 7),                                   // no yandex name
					"YANDEX_IAM_TOKEN=" + yandex(160, 9) + fakeChars(b64url, 1, 10), // 87-byte last part
					"YANDEX_IAM_TOKEN=t2." + yandex(160, 11)[3:],
					"yandex_token: t1.x.y",
				}
				return
			}),
		provRule("airtable-pat", "Airtable", "high",
			"Airtable personal access token (pat, 14 alphanumerics with at least two of upper case, lower case and digits, '.', 64 lower-case hex)",
			[]form{segSpec{
				prefixes:  []string{"pat"},
				parts:     []segPart{{set: setAlnum, min: 14, max: 14}, {lit: "."}, {set: setHexLower, min: 64, max: 64}},
				notBefore: setWord, notAfter: setWord, validate: airtableShape,
			}.form()},
			func() (tp, fp []string) {
				tp = []string{
					airtable(1),
					"AIRTABLE_API_KEY=" + airtable(3),
					"curl -H \"Authorization: Bearer " + airtable(5) + "\" https://api.airtable.com/v0/meta/bases",
					"the token is " + airtable(7) + ".",
				}
				fp = []string{
					"pat" + fakeChars(base62Alphabet, 13, 9) + "." + fakeChars(hex, 64, 10),
					"pat" + fakeChars(base62Alphabet, 14, 11) + "." + fakeChars(hex, 63, 12),
					"Pat" + fakeChars(base62Alphabet, 14, 13) + "." + fakeChars(hex, 64, 14),
					"compat" + fakeChars(base62Alphabet, 14, 15) + "." + fakeChars(hex, 64, 16),
					"patXXXXXXXXXXXXXX." + fakeChars(hex, 64, 17),
				}
				return
			}),
		provRule("openshift-user-token", "Red Hat OpenShift", "high",
			"OpenShift OAuth user access token (sha256~ and 43 of [A-Za-z0-9_-] mixing upper case, lower case and digits)",
			[]form{strictForm(tokenSpec{prefixes: []string{"sha256~"}, body: setWordDash, min: 43, max: 43, validate: mixes3})},
			func() (tp, fp []string) {
				tp = []string{
					"sha256~" + fakeChars(b64url, 43, 1),
					"oc login --token=sha256~" + fakeChars(b64url, 43, 2) + " --server=https://api.example.com:6443",
					"curl -H \"Authorization: Bearer sha256~" + fakeChars(b64url, 43, 3) + "\" https://api.example.com:6443/apis",
				}
				fp = []string{
					"sha256~" + fakeChars(b64url, 42, 4),
					"sha256~" + fakeChars(b64url, 44, 5),
					"sha256~XXXXXXXXXX_PUT_YOUR_TOKEN_HERE_XXXXXXXXXXXX",
					"xsha256~" + fakeChars(b64url, 43, 6),
					"SHA256~" + fakeChars(b64url, 43, 7),
				}
				return
			}),
		provRule("authress-access-key", "Authress", "high",
			"Authress service client access key (sc_, ext_, scauth_ or authress_, 5-30 alphanumerics, '.', 4-6 alphanumerics, .acc_ or .acc-, 10-32 of [A-Za-z0-9-], '.', 30-120 of [A-Za-z0-9+/_=-] with at least two classes)",
			[]form{segSpec{
				prefixes: []string{"sc_", "ext_", "scauth_", "authress_"},
				parts: []segPart{
					{set: setAlnum, min: 5, max: 30}, {lit: "."}, {set: setAlnum, min: 4, max: 6}, {lit: ".acc"},
					{set: makeSet("_-"), min: 1, max: 1}, {set: makeSet("A-Za-z0-9-"), min: 10, max: 32}, {lit: "."},
					{set: setAuthressSig, min: 30, max: 120},
				},
				notBefore: setWord, notAfter: union(setAuthressSig, setWord), validate: authressShape,
			}.form()},
			func() (tp, fp []string) {
				tp = []string{
					authress("sc_", 1),
					"AUTHRESS_KEY=" + authress("authress_", 5),
					"{\"accessKey\": \"" + authress("ext_", 9) + "\"}",
					"curl -H 'Authorization: Bearer " + authress("scauth_", 13) + "' https://login.authress.io/api",
				}
				fp = []string{
					strings.Replace(authress("sc_", 17), ".acc_", ".ACC_", 1),
					strings.Replace(authress("sc_", 21), ".acc_", ".acc__", 1),
					"misc_" + authress("sc_", 25)[3:],
					"sc_" + fakeChars(base62Alphabet, 10, 29) + "." + fakeChars(base62Alphabet, 4, 30) + ".acc_" + fakeChars(lowAlnum, 10, 31) + "." + fakeChars(b64url, 29, 32),
					"sc_xxxxxxxxxx.xxxx.acc_xxxxxxxxxx." + strings.Repeat("x", 40),
				}
				return
			}),
	}
}

// setAuthressSig is the alphabet of an Authress access key's last part.
var setAuthressSig = makeSet("A-Za-z0-9+/_=-")

// mapboxPayload accepts a Mapbox token whose payload (from "eyJ" to the
// '.') is unpadded base64url of a JSON object holding "a" after "u":
// {"u":"user","a":"id"}.
func mapboxPayload(tok []byte) bool {
	dot := bytes.IndexByte(tok[3:], '.')
	if dot < 0 {
		return false
	}
	dec, err := base64.RawURLEncoding.DecodeString(string(tok[3 : 3+dot]))
	if err != nil {
		return false
	}
	return bytes.Contains(dec, []byte(`","a":"`)) && bytes.HasSuffix(dec, []byte(`"}`))
}

// dropboxShortShape: sl. and 135 of [A-Za-z0-9_-] (no second '.').
func dropboxShortShape(v []byte) bool {
	return len(v) == 138 && string(v[:3]) == "sl." && bytes.IndexByte(v[3:], '.') < 0
}

// dropboxLongShape: 11 alphanumerics, AAAAAAAAAA, 43 of [A-Za-z0-9_-].
func dropboxLongShape(v []byte) bool {
	if len(v) != 64 || string(v[11:21]) != "AAAAAAAAAA" {
		return false
	}
	for _, c := range v[:11] {
		if !setAlnum[c] {
			return false
		}
	}
	return true
}

// dnkeyShape: 26 bytes, '-', 52 bytes, letters and digits among them.
func dnkeyShape(b []byte) (bool, ChecksumResult) {
	if len(b) != 79 || b[26] != '-' {
		return false, ChecksumNone
	}
	return mixes2(b)
}

// yandexIAMShape: t1., at least one base64url byte, '.', 86 base64url bytes.
func yandexIAMShape(v []byte) bool {
	if len(v) < 91 || string(v[:3]) != "t1." {
		return false
	}
	rest := v[3:]
	dot := bytes.IndexByte(rest, '.')
	return dot >= 1 && dot == bytes.LastIndexByte(rest, '.') && len(rest)-dot-1 == 86
}

// airtableShape: the 14 bytes after pat mix at least two classes.
func airtableShape(tok []byte) bool {
	ok, _ := mixes2(tok[3:17])
	return ok
}

// authressShape: the last part mixes at least two classes.
func authressShape(tok []byte) bool {
	ok, _ := mixes2(tok[bytes.LastIndexByte(tok, '.')+1:])
	return ok
}

// maxmindCheck finds a MaxMind license key ending at the keyword _mmk: the
// 36 bytes before it are 6 alphanumerics, '_' and 29 alphanumerics, not
// preceded by [A-Za-z0-9_], the key not followed by [A-Za-z0-9_], and the 35
// alphanumerics mix upper case, lower case and digits.
func maxmindCheck(v *view, ks, ke int) result {
	d := v.data
	if string(d[ks:ke]) != "_mmk" {
		return noMatch
	}
	s := ks - 36
	if s < 0 || s > 0 && setWord[d[s-1]] {
		return noMatch
	}
	for k := s; k < ks; k++ {
		if k == s+6 {
			if d[k] != '_' {
				return noMatch
			}
		} else if !setAlnum[d[k]] {
			return noMatch
		}
	}
	if v.more(ke) {
		return result{status: resMore}
	}
	if ke < len(d) && setWord[d[ke]] {
		return noMatch
	}
	if u, l, dg := hasClasses(d[s:ks]); !(u && l && dg) {
		return noMatch
	}
	return result{status: resMatch, start: s, end: ke}
}

// segPart is one part of a segSpec token after its prefix: the literal lit,
// or the maximal run of set bytes, min..max long.
type segPart struct {
	lit      string
	set      *byteSet
	min, max int
}

// segSpec declares a token made of a prefix (exact, case-sensitive unless
// fold) and fixed parts (literals and bounded runs): a dot or other literal
// between runs ends a run, and the byte after the last part must not be in
// notAfter. Unlike tokenSpec, a separator inside the token (a '.') is not
// part of a run, so a full stop after the token does not lengthen it. The
// byte before the prefix must not be in notBefore; validate, if set, sees
// the whole match.
type segSpec struct {
	prefixes  []string
	fold      bool
	parts     []segPart
	notBefore *byteSet
	notAfter  *byteSet
	validate  func(tok []byte) bool
}

func (s segSpec) form() form {
	longest := 0
	var kws []string
	for _, p := range s.prefixes {
		longest = max(longest, len(p))
		if kw := strings.ToLower(p); !containsString(kws, kw) {
			kws = append(kws, kw)
		}
	}
	ahead := longest + 1
	for _, p := range s.parts {
		ahead += len(p.lit) + p.max
	}
	f := form{keywords: kws, back: 1, ahead: ahead + 1, check: s.check, notBefore: s.notBefore, tokenOnly: true}
	if len(s.parts) >= 2 && s.parts[0].lit == "" && s.parts[0].min == s.parts[0].max && s.parts[1].lit != "" {
		// check takes exactly that many bytes of the set, then the
		// literal, which it compares byte for byte.
		f.fixed, f.fixedAt, f.fixedByte = true, s.parts[0].max, s.parts[1].lit[0]
	}
	return f
}

func (s *segSpec) check(v *view, ks, ke int) result {
	d := v.data
	if !prefixIs(s.prefixes, s.fold, d[ks:ke]) || ks > 0 && s.notBefore[d[ks-1]] {
		return noMatch
	}
	i := ke
	for _, p := range s.parts {
		if p.lit != "" {
			for k := 0; k < len(p.lit); k++ {
				if i >= len(d) {
					if !v.atEnd {
						return result{status: resMore}
					}
					return noMatch
				}
				if d[i] != p.lit[k] {
					return noMatch
				}
				i++
			}
			continue
		}
		st := i
		for i < len(d) && i-st <= p.max && p.set[d[i]] {
			i++
		}
		if i-st > p.max {
			return noMatch
		}
		if v.more(i) {
			return result{status: resMore}
		}
		if i-st < p.min {
			return noMatch
		}
	}
	if v.more(i) {
		return result{status: resMore}
	}
	if i < len(d) && s.notAfter[d[i]] {
		return noMatch
	}
	if s.validate != nil && !s.validate(d[ks:i]) || placeholderBody(d[ke:i]) {
		return noMatch
	}
	return result{status: resMatch, start: ks, end: i}
}
