package scanners

import (
	"bytes"
	"encoding/base64"
)

// Observability: Datadog, New Relic, Sentry, Grafana, Dynatrace, Honeycomb,
// Splunk.

func observabilityRules() []ruleDef {
	hex := "0123456789abcdef"
	up36 := "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	wd := base62Alphabet + "_-"
	lowAlnum := "abcdefghijklmnopqrstuvwxyz0123456789"
	uuid := func(seed uint32) string {
		h := fakeChars(hex, 32, seed)
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	}
	sntrys := func(seed uint32) string {
		j := base64.StdEncoding.EncodeToString([]byte(`{"iat":1700000000.1,"url":"https://sentry.io","region_url":"https://us.sentry.io","org":"acme-` + fakeChars(lowAlnum, 6, seed) + `"}`))
		return "sntrys_" + j + "_" + fakeChars(base62Alphabet+"+/", 43, seed+1)
	}
	return []ruleDef{
		{
			id: "datadog-api-key", provider: "Datadog", kind: KindSecret, confidence: "high",
			desc: "Datadog API key: 32 lower-case hex assigned to DD_API_KEY, dd-api-key or a name starting with datadog and containing api",
			forms: []form{
				namedSpec{names: []string{"dd_api_key", "dd-api-key", "ddapikey", "dd.api_key"}, tail: 8, body: makeSet("a-f0-9"), min: 32, max: 32}.form(),
				namedSpec{names: []string{"datadog"}, tail: 24, nameHas: []string{"api"}, body: makeSet("a-f0-9"), min: 32, max: 32}.form(),
			},
			examples: func() (tp, fp []string) {
				tp = []string{
					"DD_API_KEY=" + fakeChars(hex, 32, 1),
					"curl -H \"DD-API-KEY: " + fakeChars(hex, 32, 2) + "\"",
					"datadog:\n  datadog_api_key: '" + fakeChars(hex, 32, 3) + "'",
				}
				fp = []string{
					"DD_API_KEY=${DD_API_KEY}",
					"DD_TRACE_ID=" + fakeChars(hex, 32, 4),
					"DD_API_KEY=" + fakeChars(hex, 40, 5),
				}
				return
			},
		},
		{
			id: "datadog-app-key", provider: "Datadog", kind: KindSecret, confidence: "high",
			desc: "Datadog application key: 40 lower-case hex assigned to DD_APP_KEY, dd-application-key or a name starting with datadog and containing app",
			forms: []form{
				namedSpec{names: []string{"dd_app_key", "dd-app-key", "dd_application_key", "dd-application-key", "ddappkey", "ddapplicationkey"}, tail: 8, body: makeSet("a-f0-9"), min: 40, max: 40}.form(),
				namedSpec{names: []string{"datadog"}, tail: 24, nameHas: []string{"app"}, body: makeSet("a-f0-9"), min: 40, max: 40}.form(),
			},
			examples: func() (tp, fp []string) {
				tp = []string{
					"DD_APP_KEY=" + fakeChars(hex, 40, 6),
					"-H \"DD-APPLICATION-KEY: " + fakeChars(hex, 40, 7) + "\"",
					"DATADOG_APP_KEY: \"" + fakeChars(hex, 40, 8) + "\"",
				}
				fp = []string{
					"DD_APP_KEY=" + fakeChars(hex, 32, 9),
					"DD_APP_KEY=<application key>",
					"git_sha=" + fakeChars(hex, 40, 10),
				}
				return
			},
		},
		{
			id: "newrelic-user-api-key", provider: "New Relic", kind: KindSecret, confidence: "high",
			desc:  "New Relic user and admin API keys (NRAK-, NRAA- and 27 of [A-Z0-9])",
			forms: []form{tokenSpec{prefixes: []string{"NRAK-", "NRAA-"}, body: makeSet("A-Z0-9"), min: 27, max: 27}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"NRAK-" + fakeChars(up36, 27, 11),
					"NEW_RELIC_API_KEY=NRAK-" + fakeChars(up36, 27, 12),
					"'API-Key: NRAA-" + fakeChars(up36, 27, 13) + "'",
				}
				fp = []string{
					"NRAK-" + fakeChars(up36, 26, 14),
					"NRAK-" + fakeChars(up36, 27, 15) + "a",
					"XNRAK-" + fakeChars(up36, 27, 16),
				}
				return
			},
		},
		{
			id: "newrelic-insights-key", provider: "New Relic", kind: KindSecret, confidence: "high",
			desc:  "New Relic Insights insert and query keys (NRII-, NRIQ- and 32 of [A-Za-z0-9_-])",
			forms: []form{tokenSpec{prefixes: []string{"NRII-", "NRIQ-"}, body: setWordDash, min: 32, max: 32}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"NRII-" + fakeChars(wd, 32, 17),
					"X-Insert-Key: NRII-" + fakeChars(wd, 32, 18),
					"X-Query-Key: NRIQ-" + fakeChars(wd, 32, 19),
				}
				fp = []string{
					"NRII-" + fakeChars(wd, 31, 20),
					"NRII-" + fakeChars(wd, 33, 21),
					"nrii-" + fakeChars(wd, 32, 22) + ".txt is not a key when lower case",
				}
				return
			},
		},
		{
			id: "newrelic-browser-key", provider: "New Relic", kind: KindSecret, confidence: "medium",
			desc:  "New Relic browser key (NRJS- and 19 lower-case hex)",
			forms: []form{tokenSpec{prefixes: []string{"NRJS-"}, body: makeSet("a-f0-9"), min: 19, max: 19}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"NRJS-" + fakeChars(hex, 19, 23),
					"licenseKey:\"NRJS-" + fakeChars(hex, 19, 24) + "\"",
					"NEW_RELIC_BROWSER_KEY=NRJS-" + fakeChars(hex, 19, 25),
				}
				fp = []string{
					"NRJS-" + fakeChars(hex, 18, 26),
					"NRJS-" + fakeChars(hex, 20, 27),
					"NRJS-" + fakeChars("ghijklmnop", 19, 28),
				}
				return
			},
		},
		{
			id: "newrelic-license-key", provider: "New Relic", kind: KindSecret, confidence: "high",
			desc:  "New Relic ingest license key (36 hex, or eu01xx and 30 hex, then NRAL)",
			forms: []form{nralForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					fakeChars(hex, 36, 29) + "NRAL",
					"NEW_RELIC_LICENSE_KEY=eu01xx" + fakeChars(hex, 30, 30) + "NRAL",
					"license_key: '" + fakeChars(hex, 36, 31) + "NRAL'",
					"new relic license key EU = 'eu01xx" + fakeChars(hex, 26, 30) + "FFFFNRAL'",
				}
				fp = []string{
					fakeChars(hex, 35, 32) + "NRAL",
					"a" + fakeChars(hex, 36, 33) + "NRAL",
					fakeChars(hex, 36, 34) + "nral",
					fakeChars(hex, 36, 35) + "NRALX",
					"eu01xx" + fakeChars("0123456789ABCDEFGHIJ", 30, 36) + "NRAL",
				}
				return
			},
		},
		{
			id: "newrelic-mobile-app-token", provider: "New Relic", kind: KindSecret, confidence: "high",
			desc:  "New Relic mobile application token (AA and 40 hex, or eu01xx and 36 hex, then -NRMA)",
			forms: []form{nrmaForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"AA" + fakeChars(hex, 40, 37) + "-NRMA",
					"NewRelic.withApplicationToken(\"eu01xx" + fakeChars(hex, 36, 38) + "-NRMA\")",
					"new relic mobile app token = 'AA" + fakeChars("0123456789abcdefABCDEF", 40, 39) + "-NRMA'",
				}
				fp = []string{
					"AA" + fakeChars(hex, 39, 40) + "-NRMA",
					"AB" + fakeChars(hex, 40, 41) + "-NRMA",
					"xAA" + fakeChars(hex, 40, 42) + "-NRMA",
					"AA" + fakeChars(hex, 40, 43) + "-NRMAX",
					"AA" + fakeChars(hex, 40, 44) + "-nrma",
				}
				return
			},
		},
		{
			id: "sentry-dsn", provider: "Sentry", kind: KindSecret, confidence: "high",
			desc:  "Sentry DSN (http(s)://32 hex[:32 hex]@host[:port]/[path/]project-id), SaaS or self-hosted; the whole DSN is redacted",
			forms: sentryDSNForms(),
			examples: func() (tp, fp []string) {
				tp = []string{
					"SENTRY_DSN=https://" + fakeChars(hex, 32, 36) + "@o" + fakeChars("0123456789", 16, 37) + ".ingest.us.sentry.io/" + fakeChars("0123456789", 16, 38),
					"Sentry.init({ dsn: \"https://" + fakeChars(hex, 32, 39) + "@sentry.example.com/2\" })",
					"const sentryDsn = `https://" + fakeChars(hex, 32, 46) + "@errors.acme.dev/5`",
					`{"SENTRY_DSN":"https:\/\/` + fakeChars(hex, 32, 47) + `@o4507.ingest.sentry.io\/45078"}`,
					"dsn = 'http://" + fakeChars(hex, 32, 40) + ":" + fakeChars(hex, 32, 41) + "@sentry.internal:9000/sentry/17'",
				}
				fp = []string{
					"https://" + fakeChars(hex, 32, 42) + ".example.com/2",
					"https://" + fakeChars(hex, 32, 43) + "@sentry.example.com/project-name",
					"https://sentry.io/organizations/acme/issues/12345/",
					"https://" + fakeChars(hex, 31, 44) + "@o1.ingest.sentry.io/1",
					"https://" + fakeChars(hex, 32, 45) + "@git.example.com/team/17",
				}
				return
			},
		},
		{
			id: "sentry-org-token", provider: "Sentry", kind: KindSecret, confidence: "high",
			desc:  "Sentry organization auth token (sntrys_eyJ, base64 JSON with iat and region_url, '_', 43 base64 bytes)",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"sntrys_eyJ"}, body: makeSet("A-Za-z0-9+/=_"), notBefore: setB64NB, min: 60, max: 1000, validate: sentryOrgShape})},
			examples: func() (tp, fp []string) {
				tp = []string{
					sntrys(45),
					"SENTRY_AUTH_TOKEN=" + sntrys(47),
					"auth.token=" + sntrys(49) + "\n",
				}
				fp = []string{
					"sntrys_" + base64.StdEncoding.EncodeToString([]byte(`{"iat":1,"org":"x"}`)) + "_" + fakeChars(base62Alphabet, 43, 51),
					"sntrys_eyJ" + fakeChars(base62Alphabet, 100, 52),
					"sntrys_" + base64.StdEncoding.EncodeToString([]byte(`{"iat":1,"region_url":"x"}`)) + "_" + fakeChars(base62Alphabet, 20, 53),
				}
				return
			},
		},
		{
			id: "sentry-user-token", provider: "Sentry", kind: KindSecret, confidence: "high",
			desc:  "Sentry user auth token (sntryu_ and 64 lower-case hex)",
			forms: []form{tokenSpec{prefixes: []string{"sntryu_"}, body: makeSet("a-f0-9"), min: 64, max: 64}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"sntryu_" + fakeChars(hex, 64, 54),
					"SENTRY_AUTH_TOKEN=sntryu_" + fakeChars(hex, 64, 55),
					"Authorization: Bearer sntryu_" + fakeChars(hex, 64, 56),
				}
				fp = []string{
					"sntryu_" + fakeChars(hex, 63, 57),
					"sntryu_" + fakeChars(hex, 65, 58),
					"sntryu_" + fakeChars("ABCDEF0123456789", 64, 59),
				}
				return
			},
		},
		{
			id: "grafana-cloud-token", provider: "Grafana", kind: KindSecret, confidence: "high",
			desc:  "Grafana Cloud access policy token (glc_ and 32-400 base64 bytes)",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"glc_"}, body: setBase64Pad, notBefore: setB64NB, min: 32, max: 400, validate: func(b []byte) (bool, ChecksumResult) { return padOnlyAtEnd(b), ChecksumNone }})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"glc_" + base64.StdEncoding.EncodeToString([]byte(`{"o":"123456","n":"stack-123-logs-write","k":"`+fakeChars(base62Alphabet, 24, 60)+`","m":{"r":"prod-eu-west-0"}}`)),
					"GRAFANA_CLOUD_TOKEN=glc_" + fakeChars(base62Alphabet+"+/", 120, 61),
					"password: glc_" + fakeChars(base62Alphabet, 80, 62) + "==",
				}
				fp = []string{
					"glc_" + fakeChars(base62Alphabet, 20, 63),
					"glc_" + fakeChars(base62Alphabet, 40, 64) + "=" + fakeChars(base62Alphabet, 10, 65),
					"xglc_" + fakeChars(base62Alphabet, 60, 66),
				}
				return
			},
		},
		{
			id: "grafana-service-account-token", provider: "Grafana", kind: KindSecret, confidence: "high",
			desc:  "Grafana service account token (glsa_, 32 alphanumerics, '_', 8 hex)",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"glsa_"}, body: setWord, min: 41, max: 41, validate: grafanaSAShape})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"glsa_" + fakeChars(base62Alphabet, 32, 67) + "_" + fakeChars(hex, 8, 68),
					"Authorization: Bearer glsa_" + fakeChars(base62Alphabet, 32, 69) + "_" + fakeChars(hex, 8, 70),
					"GRAFANA_TOKEN='glsa_" + fakeChars(base62Alphabet, 32, 71) + "_" + fakeChars(hex, 8, 72) + "'",
				}
				fp = []string{
					"glsa_" + fakeChars(base62Alphabet, 32, 73) + "_" + fakeChars("ghijklmn", 8, 74),
					"glsa_" + fakeChars(base62Alphabet, 41, 75),
					"glsa_" + fakeChars(base62Alphabet, 31, 76) + "_" + fakeChars(hex, 8, 77),
				}
				return
			},
		},
		{
			id: "grafana-api-key", provider: "Grafana", kind: KindSecret, confidence: "high",
			desc:  "Grafana API key of before service accounts (eyJrIjoi, base64 of {\"k\":\", and 70-400 base64 bytes)",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"eyJrIjoi"}, body: setBase64Pad, notBefore: setB64NB, min: 70, max: 400, validate: func(b []byte) (bool, ChecksumResult) { return padOnlyAtEnd(b), ChecksumNone }})},
			examples: func() (tp, fp []string) {
				tp = []string{
					base64.StdEncoding.EncodeToString([]byte(`{"k":"` + fakeChars(base62Alphabet, 32, 78) + `","n":"deploy","id":1}`)),
					"Authorization: Bearer " + base64.StdEncoding.EncodeToString([]byte(`{"k":"`+fakeChars(base62Alphabet, 32, 79)+`","n":"ci-bot","id":12}`)),
					"GF_API_KEY=" + base64.StdEncoding.EncodeToString([]byte(`{"k":"`+fakeChars(base62Alphabet, 32, 80)+`","n":"grafana-ci","id":3}`)),
				}
				fp = []string{
					base64.StdEncoding.EncodeToString([]byte(`{"k":"short"}`)),
					"eyJrIjoi" + fakeChars(base62Alphabet, 40, 81),
					base64.RawURLEncoding.EncodeToString([]byte(`{"kid":"1","alg":"RS256"}`)) + "." + fakeChars(base62Alphabet, 80, 82),
				}
				return
			},
		},
		{
			id: "dynatrace-token", provider: "Dynatrace", kind: KindSecret, confidence: "high",
			desc:  "Dynatrace API token (dt0c01. 24 . 64 of [A-Z0-9])",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"dt0c01."}, body: makeSet("A-Z0-9."), min: 89, max: 89, validate: dynatraceShape})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"dt0c01." + fakeChars(up36, 24, 83) + "." + fakeChars(up36, 64, 84),
					"Authorization: Api-Token dt0c01." + fakeChars(up36, 24, 85) + "." + fakeChars(up36, 64, 86),
					"DT_API_TOKEN=dt0c01." + fakeChars(up36, 24, 87) + "." + fakeChars(up36, 64, 88),
				}
				fp = []string{
					"dt0c01." + fakeChars(up36, 24, 89) + "." + fakeChars(up36, 63, 90),
					"dt0c01." + fakeChars(up36, 89, 91),
					"dt0c01.sample.token",
				}
				return
			},
		},
		{
			id: "honeycomb-api-key", provider: "Honeycomb", kind: KindSecret, confidence: "high",
			desc:  "Honeycomb ingest and management keys (hcaik_, hcxik_, hcamk_, hcxmk_ and 40-80 of [a-z0-9])",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"hcaik_", "hcxik_", "hcamk_", "hcxmk_"}, body: makeSet("a-z0-9"), min: 40, max: 80, validate: hasLetterDigit})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"hcxik_01" + fakeChars(lowAlnum, 56, 92),
					"HONEYCOMB_API_KEY=hcaik_01" + fakeChars(lowAlnum, 56, 93),
					"x-honeycomb-team: hcxmk_" + fakeChars(lowAlnum, 40, 94),
				}
				fp = []string{
					"hcxik_" + fakeChars(lowAlnum, 30, 95),
					"hcxik_" + fakeChars(lowAlnum, 58, 96) + "A",
					"hcxik_" + fakeChars("abcdefghijklmnopqrstuvwxyz", 58, 97),
				}
				return
			},
		},
		{
			id: "splunk-hec-token", provider: "Splunk", kind: KindSecret, confidence: "high",
			desc: "Splunk HTTP Event Collector token (a UUID) after \"Splunk \" in an Authorization header or assigned to a name starting with splunk and containing token",
			forms: []form{
				plainForm(tokenSpec{prefixes: []string{"Authorization: Splunk "}, fold: true, body: makeSet("A-Fa-f0-9-"), min: 36, max: 36,
					validate: func(b []byte) (bool, ChecksumResult) { return uuidShaped(b), ChecksumNone }}),
				namedSpec{names: []string{"splunk"}, tail: 24, nameHas: []string{"token"}, body: makeSet("A-Fa-f0-9-"), min: 36, max: 36, validate: uuidShaped}.form(),
			},
			examples: func() (tp, fp []string) {
				tp = []string{
					"curl -H \"Authorization: Splunk " + uuid(98) + "\" -d @event.json",
					"SPLUNK_HEC_TOKEN=" + uuid(99),
					"splunk_token: \"" + strUpper(uuid(100)) + "\"",
				}
				fp = []string{
					"Authorization: Splunk " + fakeChars(hex, 36, 101),
					"SPLUNK_INDEX=" + uuid(102),
					"request_id=" + uuid(103),
				}
				return
			},
		},
	}
}

func strUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

// nralForm: keyword "NRAL" (case-sensitive), preceded by 36 hex or by
// "eu01xx" and 30 hex (and before them no [A-Za-z0-9_-]), followed by no
// [A-Za-z0-9_-]. The match is the whole key. New Relic writes lower-case
// hex; the suffix is what marks the key, so a key typed in upper case is
// one too.
func nralForm() form {
	nb := makeSet("A-Za-z0-9_-")
	return form{
		keywords:  []string{"nral"},
		back:      37,
		ahead:     4 + 1,
		notBefore: notIn(setHex),
		check: func(v *view, ks, ke int) result {
			d := v.data
			if ks < 36 || string(d[ks:ke]) != "NRAL" || ks > 36 && nb[d[ks-37]] {
				return noMatch
			}
			k := d[ks-36 : ks]
			if !allBytesIn(k, setHex) && !(string(k[:6]) == "eu01xx" && allBytesIn(k[6:], setHex)) {
				return noMatch
			}
			c := scanCursor{d: d}
			if c.is(ke, nb) {
				return c.done(v, noMatch)
			}
			return c.done(v, result{status: resMatch, start: ks - 36, end: ke})
		},
	}
}

// nrmaForm: keyword "-NRMA" (case-sensitive), preceded by "AA" and 40 hex or
// by "eu01xx" and 36 hex (and before them no [A-Za-z0-9_-]), followed by no
// [A-Za-z0-9_-]: a New Relic mobile application token, matched whole.
func nrmaForm() form {
	nb := makeSet("A-Za-z0-9_-")
	return form{
		keywords:  []string{"-nrma"},
		back:      43,
		ahead:     5 + 1,
		notBefore: notIn(setHex),
		check: func(v *view, ks, ke int) result {
			d := v.data
			if ks < 42 || string(d[ks:ke]) != "-NRMA" || ks > 42 && nb[d[ks-43]] {
				return noMatch
			}
			k := d[ks-42 : ks]
			if !(string(k[:2]) == "AA" && allBytesIn(k[2:], setHex)) && !(string(k[:6]) == "eu01xx" && allBytesIn(k[6:], setHex)) {
				return noMatch
			}
			c := scanCursor{d: d}
			if c.is(ke, nb) {
				return c.done(v, noMatch)
			}
			return c.done(v, result{status: resMatch, start: ks - 42, end: ke})
		},
	}
}

var (
	setHostName = makeSet("A-Za-z0-9.-")
	setDSNPath  = makeSet("A-Za-z0-9_./-")
)

// dsnParse reads a Sentry DSN from d[s:]: "https://" or "http://" (any
// case), 32 lower-case hex, optionally ':' and 32 lower-case hex, '@', a host
// of 1-253 [A-Za-z0-9.-], optionally ':' and 1-5 digits, '/', then a path of
// at most 128 [A-Za-z0-9_./-] whose last segment is all digits (the project
// id). Each '/' may be written "\/" (JSON text with escaped slashes). It returns the end of the DSN; the caller turns the answer into
// resMore (scanCursor.done) when the parse looked past the data.
func dsnParse(c *scanCursor, s int) (int, bool) {
	i := s
	for _, ch := range "http" {
		if b := c.at(i); b < 0 || lowerASCII(byte(b)) != byte(ch) {
			return 0, false
		}
		i++
	}
	if b := c.at(i); b >= 0 && lowerASCII(byte(b)) == 's' {
		i++
	}
	n := schemeSep(c, i)
	if n == 0 {
		return 0, false
	}
	i += n
	k := c.run(i, setHexLC, 32)
	if k-i != 32 {
		return 0, false
	}
	if c.at(k) == ':' {
		j := c.run(k+1, setHexLC, 32)
		if j-(k+1) != 32 {
			return 0, false
		}
		k = j
	}
	if c.at(k) != '@' {
		return 0, false
	}
	h := c.run(k+1, setHostName, 253)
	if h == k+1 || h-(k+1) > 253 {
		return 0, false
	}
	if c.at(h) == ':' {
		p := c.run(h+1, setDecimal, 5)
		if p == h+1 || p-(h+1) > 5 {
			return 0, false
		}
		h = p
	}
	switch {
	case c.at(h) == '/':
		h++
	case c.at(h) == '\\' && c.at(h+1) == '/':
		h += 2
	default:
		return 0, false
	}
	// The path: at most 128 units, each a byte of [A-Za-z0-9_./-] or an
	// escaped slash.
	e, units := h, 0
	for units <= 128 {
		if c.is(e, setDSNPath) {
			e++
		} else if c.at(e) == '\\' && c.at(e+1) == '/' {
			e += 2
		} else {
			break
		}
		units++
	}
	if units > 128 {
		return 0, false
	}
	last := c.d[h:e]
	if x := bytes.LastIndexByte(last, '/'); x >= 0 {
		last = last[x+1:]
	}
	return e, len(last) > 0 && allBytesIn(last, setDecimal)
}

// dsnMaxLen bounds a DSN (scheme, keys, host, port, path).
const dsnMaxLen = 10 + 65 + 1 + 253 + 6 + 2 + 2*129 + 8

// sentryDSNForms find a Sentry DSN (see dsnParse) in two ways, so that no
// keyword fires on every URL:
//   - after a name ending in "dsn" (SENTRY_DSN=, sentryDsn: "…",
//     init(dsn=…)): keyword "dsn", at most 8 more name bytes, 1-8 separator
//     bytes with one of ':', '=', '>', then the DSN;
//   - at a SaaS ingest host: keyword "sentry.io/" (or "sentry.io\/"); the
//     DSN starts at the "http" before "://" (or ":\/\/"), the keys, '@' and at most 64 host bytes that end
//     at the keyword, is not preceded by [A-Za-z0-9_+.-], and must reach
//     past the keyword.
//
// The match is the whole DSN.
func sentryDSNForms() []form {
	named := form{
		keywords: []string{"dsn"},
		back:     1,
		ahead:    3 + 9 + namedMaxSep + 1 + dsnMaxLen + 1,
		check: func(v *view, ks, ke int) result {
			d := v.data
			c := scanCursor{d: d}
			i := c.run(ke, setNameTail, 8)
			j := c.run(i, setNamedSep, namedMaxSep)
			if i-ke > 8 || j == i || j-i > namedMaxSep {
				return c.done(v, noMatch)
			}
			sep := d[i:min(j, len(d))]
			if !assignSep(sep) {
				return c.done(v, noMatch)
			}
			e, ok := dsnParse(&c, j)
			if !ok {
				return c.done(v, noMatch)
			}
			return c.done(v, result{status: resMatch, start: j, end: e})
		},
	}
	const hostBack = 64
	ingest := form{
		keywords: []string{"sentry.io/", `sentry.io\/`},
		back:     10 + 65 + 1 + hostBack + 1,
		ahead:    dsnMaxLen,
		check: func(v *view, ks, ke int) result {
			d := v.data
			h := ks
			for h > 0 && ks-h <= hostBack && setHostName[d[h-1]] {
				h--
			}
			if ks-h > hostBack || h == 0 || d[h-1] != '@' {
				return noMatch
			}
			k := h - 1 - 32
			if k < 0 || !allBytesIn(d[k:h-1], setHexLC) {
				return noMatch
			}
			if k > 32 && d[k-1] == ':' && allBytesIn(d[k-33:k-1], setHexLC) {
				k -= 33
			}
			switch {
			case k >= 7 && string(d[k-3:k]) == "://":
				k -= 3
			case k >= 9 && string(d[k-5:k]) == `:\/\/`:
				k -= 5
			default:
				return noMatch
			}
			s := k - 4
			if k >= 5 && lowerASCII(d[k-1]) == 's' {
				s = k - 5
			}
			if s > 0 && setSchemeNB[d[s-1]] {
				return noMatch
			}
			c := scanCursor{d: d}
			e, ok := dsnParse(&c, s)
			if !ok || e < ke {
				return c.done(v, noMatch)
			}
			return c.done(v, result{status: resMatch, start: s, end: e})
		},
	}
	return []form{named, ingest}
}

// sentryOrgShape: after "sntrys_eyJ": base64 (with '=' padding only before
// the '_'), '_', 43 of [A-Za-z0-9+/]; the JSON part decodes to an object
// with "iat" and "region_url".
func sentryOrgShape(b []byte) (bool, ChecksumResult) {
	k := bytes.LastIndexByte(b, '_')
	if k < 0 || len(b)-k-1 != 43 || !allBytesIn(b[k+1:], setBase64) {
		return false, ChecksumNone
	}
	j := b[:k]
	if bytes.IndexByte(j, '_') >= 0 || !padOnlyAtEnd(j) {
		return false, ChecksumNone
	}
	var src [1024]byte
	s := append(append(src[:0], "eyJ"...), j...)
	enc := base64.StdEncoding
	if len(s)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	var out [768]byte
	n, err := enc.Decode(out[:], s)
	if err != nil {
		return false, ChecksumNone
	}
	o := out[:n]
	return bytes.Contains(o, []byte(`"iat"`)) && bytes.Contains(o, []byte(`"region_url"`)), ChecksumNone
}

// grafanaSAShape: 32 alphanumerics, '_', 8 hex.
func grafanaSAShape(b []byte) (bool, ChecksumResult) {
	return len(b) == 41 && b[32] == '_' && allBytesIn(b[:32], setAlnum) && allBytesIn(b[33:], setHexAny), ChecksumNone
}

var setHexAny = makeSet("A-Fa-f0-9")

// dynatraceShape: 24 [A-Z0-9], '.', 64 [A-Z0-9].
func dynatraceShape(b []byte) (bool, ChecksumResult) {
	return len(b) == 89 && b[24] == '.' && bytes.Count(b, []byte(".")) == 1, ChecksumNone
}
