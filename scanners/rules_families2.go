package scanners

// Vendor formats that trufflehog's detectors know and the catalog did not:
// prefixed keys (LaunchDarkly, BestTime), keys with a fixed body shape
// (Asana, Webex bots) and keys with no prefix of their own, found after the
// vendor's name (ipinfo, Mockaroo, Red Hat Pyxis, Smartsheet, Twitch,
// ScrapingBee, Sanity). Formats are facts; the rules and examples are this
// project's own.

// Limits of the name-anchored forms below: how far past the vendor's name
// the value may start (a key name, an operator, quotes and spaces). The gap
// holds no '[' or ']': a redaction marker inside it would make the second
// pass over redacted text find what the first did not (idempotence).
const (
	famNameGap  = 30 // same line: ipinfo token = '…'
	famBlockGap = 60 // across a line break or two: ScrapingBee API key:\n\n  …
)

// checkedForm keeps f's matches whose value ok accepts.
func checkedForm(f form, ok func([]byte) bool) form {
	inner := f.check
	f.check = func(v *view, ks, ke int) result {
		r := inner(v, ks, ke)
		if r.status == resMatch && !ok(v.data[r.start:r.end]) {
			return noMatch
		}
		return r
	}
	return f
}

// dashAt skips f's regexp where the byte n past the keyword, when the data
// holds it, is not '-': api- is frequent in logs (api-gateway, api-server),
// and the UUID after a LaunchDarkly prefix has its first '-' there.
func dashAt(f form, n int) form {
	inner := f.check
	f.check = func(v *view, ks, ke int) result {
		if i := ke + n; i < len(v.data) && v.data[i] != '-' {
			return noMatch
		}
		return inner(v, ks, ke)
	}
	return f
}

// letterDigit reports a value with at least one letter and one digit: a
// random key, not a word, a name or a number.
func letterDigit(b []byte) bool {
	l, d := false, false
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			d = true
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			l = true
		}
	}
	return l && d
}

// mixedCaseDigit reports a value with upper-case and lower-case letters and
// a digit (random base62, not an identifier in one case).
func mixedCaseDigit(b []byte) bool {
	u, l, d := false, false, false
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			d = true
		case 'a' <= c && c <= 'z':
			l = true
		case 'A' <= c && c <= 'Z':
			u = true
		}
	}
	return u && l && d
}

func familyRules2() []ruleDef {
	hex := "0123456789abcdef"
	low := "abcdefghijklmnopqrstuvwxyz0123456789"
	up := "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	dig := "0123456789"
	uuidAny := func(seed uint32) string {
		return fakeChars(low, 8, seed) + "-" + fakeChars(low, 4, seed+1) + "-4" + fakeChars(low, 3, seed+2) + "-" + fakeChars(low, 4, seed+3) + "-" + fakeChars(low, 12, seed+4)
	}
	return []ruleDef{
		provRule("launchdarkly-access-token", "LaunchDarkly", "high", "LaunchDarkly access token, SDK key or mobile key (api-, sdk- or mob- and a version-4 UUID of [a-z0-9])",
			[]form{dashAt(regexForm([]string{"api-", "sdk-", "mob-"}, `(?:api|sdk|mob)-[a-z0-9]{8}-[a-z0-9]{4}-4[a-z0-9]{3}-[a-z0-9]{4}-[a-z0-9]{12}`, setWordDash, setWordDash, 41), 8)},
			func() (tp, fp []string) {
				tp = []string{
					"api-" + fakeUUID(1),
					"LD_SDK_KEY=sdk-" + fakeUUID(6),
					`{"mobileKey": "mob-` + uuidAny(11) + `"}`,
				}
				fp = []string{
					"api-" + fakeChars(hex, 8, 16) + "-" + fakeChars(hex, 4, 17) + "-1" + fakeChars(hex, 3, 18) + "-" + fakeChars(hex, 4, 19) + "-" + fakeChars(hex, 12, 20),
					"my-api-" + fakeUUID(21),
					"sdk-" + fakeUUID(26)[:30],
				}
				return
			}),
		provRule("asana-pat", "Asana", "high", "Asana personal access token after the word asana (a version digit, '/', the 16-32 digit user id, an optional '/' and 16-32 digit token id, ':' and 32-80 of [A-Za-z0-9])",
			[]form{regexForm([]string{"asana"}, `(?i:asana)[^\n\[\]]{0,30}?\b([0-9]{1,4}/[0-9]{16,32}(?:/[0-9]{16,32})?:[A-Za-z0-9]{32,80})\b`, setAlnum, nil, famNameGap+160)},
			func() (tp, fp []string) {
				tp = []string{
					"ASANA_TOKEN=2/" + fakeChars(dig, 16, 1) + "/" + fakeChars(dig, 16, 2) + ":" + fakeChars(hex, 32, 3),
					"asana pat: 1/" + fakeChars(dig, 16, 4) + ":" + fakeChars(base62Alphabet, 32, 5),
					`{"asana": {"token": "2/` + fakeChars(dig, 16, 6) + "/" + fakeChars(dig, 17, 7) + ":" + fakeChars(hex, 32, 8) + `"}}`,
				}
				fp = []string{
					"asana task 2/" + fakeChars(dig, 16, 9),
					"asana ratio 1/" + fakeChars(dig, 16, 10) + ":" + fakeChars(hex, 20, 11),
					"ASANA_TOKEN=${ASANA_TOKEN}",
				}
				return
			}),
		provRule("besttime-api-key", "BestTime", "high", "BestTime API key (pri_ private or pub_ public key and 32 lower-case hex)",
			[]form{regexForm([]string{"pri_", "pub_"}, `pri_[a-f0-9]{32}|pub_[a-f0-9]{32}`, setWordDash, setWordDash, 32)},
			func() (tp, fp []string) {
				tp = []string{
					"pri_" + fakeChars(hex, 32, 1),
					"https://besttime.app/api/v1/keys/pub_" + fakeChars(hex, 32, 2),
					`{"api_key_private": "pri_` + fakeChars(hex, 32, 3) + `"}`,
				}
				fp = []string{
					"pri_" + fakeChars(hex, 31, 4),
					"epub_" + fakeChars(hex, 32, 5),
					"pub_" + fakeChars(hex, 32, 6) + "x",
				}
				return
			}),
		provRule("column-api-key", "Column", "high", "Column API key (live_ or test_ and 27 base62 with both cases and a digit)",
			[]form{checkedForm(regexForm([]string{"live_", "test_"}, `(?:live|test)_[A-Za-z0-9]{27}`, setWordDash, setWordDash, 27), mixedCaseDigit)},
			func() (tp, fp []string) {
				tp = []string{
					"COLUMN_API_KEY=live_" + fakeChars(base62Alphabet, 25, 1) + "K7",
					`column_key: "test_` + fakeChars(base62Alphabet, 25, 2) + `a3"`,
					"Authorization: Basic :live_" + fakeChars(base62Alphabet, 25, 3) + "Q1",
				}
				fp = []string{
					"test_shouldRejectAnExpiredTokenA",
					"live_" + fakeChars(base62Alphabet, 28, 4),
					"sk_live_" + fakeChars(base62Alphabet, 25, 5) + "K7",
				}
				return
			}),
		provRule("webex-bot-token", "Cisco Webex", "high", "Webex bot access token after the word webex (64 base62, '_', the 4-character cluster, '_', and the organization's UUID)",
			[]form{regexForm([]string{"webex"}, `(?i:webex)[^\n\[\]]{0,30}?\b([A-Za-z0-9]{64}_[A-Za-z0-9]{4}_[A-Za-z0-9]{8}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{12})\b`, setAlnum, nil, famNameGap+108)},
			func() (tp, fp []string) {
				tp = []string{
					"WEBEX_BOT_TOKEN=" + fakeChars(base62Alphabet, 64, 1) + "_PF84_" + fakeUUID(2),
					`webex = "` + fakeChars(base62Alphabet, 64, 7) + "_" + fakeChars(up, 4, 8) + "_" + uuidAny(9) + `"`,
					"webexbot token: " + fakeChars(base62Alphabet, 64, 14) + "_PF84_" + fakeUUID(15),
				}
				fp = []string{
					"webex " + fakeChars(base62Alphabet, 64, 20) + "_PF84",
					"webex meeting id " + fakeUUID(21),
					"webex " + fakeChars(base62Alphabet, 60, 26) + "_PF84_" + fakeUUID(27),
				}
				return
			}),
		provRule("ipinfo-token", "IPinfo", "medium", "IPinfo access token after the word ipinfo (14 lower-case hex); the value is replaced",
			[]form{checkedForm(regexForm([]string{"ipinfo"}, `(?i:ipinfo)[^\n\[\]]{0,30}?[ '"=:?&]([a-f0-9]{14})\b`, setAlnum, nil, famNameGap+15), letterDigit)},
			func() (tp, fp []string) {
				tp = []string{
					"ipinfo token = '" + fakeChars("abcdef", 3, 1) + fakeChars(dig, 11, 2) + "'",
					"IPINFO_TOKEN=" + fakeChars(hex, 12, 3) + "a7",
					"curl https://ipinfo.io/8.8.8.8?token=" + fakeChars(hex, 12, 4) + "c1",
				}
				fp = []string{
					"ipinfo token = '" + fakeChars(hex, 16, 5) + "'",
					"ipinfo lookup 12345678901234",
					"ipinfo token = '${IPINFO_TOKEN}'",
				}
				return
			}),
		provRule("mockaroo-api-key", "Mockaroo", "medium", "Mockaroo API key after the word mockaroo (8 of [a-z0-9], letters and digits); the value is replaced",
			[]form{checkedForm(regexForm([]string{"mockaroo"}, `(?i:mockaroo)[^\n\[\]]{0,30}?[ '"=:?&]([a-z0-9]{8})\b`, setAlnum, nil, famNameGap+9), letterDigit)},
			func() (tp, fp []string) {
				tp = []string{
					"mockaroo token = '" + fakeChars("abcdefghjk", 4, 1) + fakeChars(dig, 4, 2) + "'",
					"MOCKAROO_API_KEY=" + fakeChars(low, 6, 3) + "7q",
					"curl 'https://api.mockaroo.com/api/generate.json?key=" + fakeChars(low, 6, 4) + "3b'",
				}
				fp = []string{
					"mockaroo schema 'persons'",
					"mockaroo rows 12345678",
					"mockaroo key = '" + fakeChars(low, 12, 5) + "'",
				}
				return
			}),
		provRule("redhat-pyxis-token", "Red Hat", "medium", "Red Hat Pyxis (container catalog) API key after the word redhat or pyxis (32 of [a-z0-9], letters and digits); the value is replaced",
			[]form{checkedForm(regexForm([]string{"redhat", "pyxis"}, `(?i:redhat|pyxis)[^\n\[\]]{0,30}?[ '"=:]([a-z0-9]{32})\b`, setAlnum, nil, famNameGap+33), letterDigit)},
			func() (tp, fp []string) {
				tp = []string{
					"redhat " + fakeChars(low, 32, 1),
					"PYXIS_API_KEY=" + fakeChars(low, 30, 2) + "9k",
					"redhatpyxis token: '" + fakeChars(low, 32, 3) + "'",
				}
				fp = []string{
					"redhat " + fakeChars("abcdefghijklmnopqrstuvwxyz", 32, 4),
					"redhat " + fakeChars(low, 31, 5),
					"redhat image sha " + fakeChars(hex, 64, 6),
				}
				return
			}),
		provRule("smartsheet-api-token", "Smartsheet", "medium", "Smartsheet API access token in quotes after a name with sheet in it (26 or 37 base62, both cases and digits); the value is replaced",
			[]form{checkedForm(regexForm([]string{"sheet"}, `(?i:sheet)[A-Za-z0-9_]{0,20}[^\n'"\[\]]{0,12}?["']([A-Za-z0-9]{37}|[A-Za-z0-9]{26})["']`, nil, nil, famNameGap+40), mixedCaseDigit)},
			func() (tp, fp []string) {
				tp = []string{
					`SMARTSHEET_ACCESS_TOKEN="` + fakeChars(base62Alphabet, 37, 1) + `"`,
					`sheets := getsmartsheet("` + fakeChars(base62Alphabet, 37, 2) + `")`,
					`smartsheet_token = '` + fakeChars(base62Alphabet, 26, 3) + `'`,
				}
				fp = []string{
					`sheet_name = "QuarterlyRevenueReportFinal"`,
					`SMARTSHEET_ACCESS_TOKEN="` + fakeChars(base62Alphabet, 36, 4) + `"`,
					`stylesheet = "` + fakeChars("abcdefghijklmnopqrstuvwxyz", 37, 5) + `"`,
				}
				return
			}),
		provRule("twitch-access-token", "Twitch", "medium", "Twitch OAuth access token in quotes after a name starting with twitch (30 of [a-z0-9], letters and digits); the value is replaced",
			[]form{checkedForm(regexForm([]string{"twitch"}, `(?i:twitch)[A-Za-z0-9_]{0,24}['"]?[ \t]*(?:=>|:=|=|:)[ \t]*['"]([a-z0-9]{30})['"]`, setAlnum, nil, famNameGap+36), letterDigit)},
			func() (tp, fp []string) {
				tp = []string{
					"twitch_access_token = '" + fakeChars(low, 30, 1) + "'",
					`{"twitch_token": "` + fakeChars(low, 28, 2) + `9a"}`,
					"TWITCH_OAUTH_TOKEN='" + fakeChars(low, 30, 3) + "'",
				}
				fp = []string{
					"twitch_channel = 'somestreamerwithalongname1234'",
					"twitch_token = '" + fakeChars(low, 29, 4) + "'",
					"twitch_client = '" + fakeChars("abcdefghijklmnopqrstuvwxyz", 30, 5) + "'",
				}
				return
			}),
		provRule("scrapingbee-api-key", "ScrapingBee", "medium", "ScrapingBee API key after the word scrapingbee (80 of [A-Z0-9]; within a line or two of the name); the value is replaced",
			[]form{checkedForm(regexForm([]string{"scrapingbee", "scraping_bee", "scraping bee"}, `(?i:scraping[ _]?bee)[^\[\]]{0,60}?\b([A-Z0-9]{80})\b`, setAlnum, nil, famBlockGap+81), letterDigit)},
			func() (tp, fp []string) {
				tp = []string{
					"SCRAPINGBEE_API_KEY=" + fakeChars(up, 80, 1),
					"client = ScrapingBeeClient(api_key='" + fakeChars(up, 80, 2) + "')",
					"ScrapingBee API key:\n\n    " + fakeChars(up, 80, 3),
				}
				fp = []string{
					"SCRAPINGBEE_API_KEY=" + fakeChars(up, 79, 4),
					"scrapingbee " + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZ", 80, 5),
					"scrapingbee " + fakeChars(low, 80, 6),
				}
				return
			}),
		provRule("sanity-api-token", "Sanity", "high", "Sanity API token after the word sanity (sk and 79 base62)",
			[]form{regexForm([]string{"sanity"}, `(?i:sanity)[^\n\[\]]{0,30}?\b(sk[A-Za-z0-9]{79})\b`, setAlnum, nil, famNameGap+82)},
			func() (tp, fp []string) {
				tp = []string{
					"SANITY_API_TOKEN=sk" + fakeChars(base62Alphabet, 79, 1),
					"sanity auth token |sk" + fakeChars(base62Alphabet, 79, 2),
					`{"sanity": {"token": "sk` + fakeChars(base62Alphabet, 79, 3) + `"}}`,
				}
				fp = []string{
					"SANITY_API_TOKEN=sk" + fakeChars(base62Alphabet, 78, 4),
					"sanity check " + fakeChars(base62Alphabet, 81, 5),
					"SANITY_API_TOKEN=${SANITY_API_TOKEN}",
				}
				return
			}),
	}
}
