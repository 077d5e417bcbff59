package scanners

// Families of kingfisher's and detect-secrets' rule sets that the catalog
// did not have (s-detect3): TrueNAS API keys in the websocket API's login
// call, SoftLayer API keys in the path of its API URL. Formats are facts;
// the rules and examples are this project's own.

func familyRules3() []ruleDef {
	hex := "0123456789abcdef"
	dig := "0123456789"
	return []ruleDef{
		provRule("truenas-api-key", "TrueNAS", "high",
			`TrueNAS API key (a key id, '-', 64 of [A-Za-z0-9]) as the parameter of a JSON call, "params": ["<id>-<key>"] (auth.login_with_api_key); in an Authorization header or an assignment the header and assignment rules take it`,
			[]form{checkedForm(regexForm([]string{"params"},
				`params\\?"[\t\n\r ]{0,16}:[\t\n\r ]{0,16}\[[\t\n\r ]{0,16}\\?"([0-9]{1,6}-[A-Za-z0-9]{64})\\?"`, setWord, nil, 120), mixedCaseDigit)},
			func() (tp, fp []string) {
				tp = []string{
					`{"id":"` + fakeUUID(1) + `", "msg":"method", "method":"auth.login_with_api_key", "params":["` + fakeChars(dig, 1, 2) + "-" + fakeChars(base62Alphabet, 64, 3) + `"]}`,
					"{\n  \"method\": \"auth.login_with_api_key\",\n  \"params\": [\n    \"12-" + fakeChars(base62Alphabet, 64, 4) + "\"\n  ]\n}",
					`{\"params\" : [ \"7-` + fakeChars(base62Alphabet, 64, 5) + `\" ]}`,
				}
				fp = []string{
					`"params": ["8-` + fakeChars(hex, 64, 6) + `"]`,
					`"params": ["8-` + fakeChars(base62Alphabet, 63, 7) + `"]`,
					`"params": ["build-` + fakeChars(base62Alphabet, 64, 8) + `"]`,
					`"query_params": ["8-` + fakeChars(base62Alphabet, 64, 9) + `", 2]`,
				}
				return
			}),
		provRule("softlayer-api-key", "IBM SoftLayer", "high",
			"SoftLayer API key (64 letters and digits) in the path of its SOAP or REST API URL (api.softlayer.com/soap/v3/<key>)",
			[]form{checkedForm(regexForm([]string{"api.softlayer.com/"},
				`(?i:api\.softlayer\.com)/(?:soap|rest)/v3(?:\.1)?/([A-Za-z0-9]{64})\b`, nil, nil, 90), hasLetterDigit64)},
			func() (tp, fp []string) {
				tp = []string{
					"https://api.softlayer.com/soap/v3/" + fakeChars(hex, 64, 10),
					"endpoint = 'https://api.softlayer.com/soap/v3.1/" + fakeChars(hex, 64, 11) + "'",
					"GET https://API.SOFTLAYER.COM/rest/v3/" + fakeChars(base62Alphabet, 64, 12) + "/SoftLayer_Account.json",
				}
				fp = []string{
					"https://api.softlayer.com/soap/v3/SoftLayer_Account",
					"https://api.softlayer.com/rest/v3/" + fakeChars(hex, 63, 13),
					"https://api.softlayer.com/soap/v3/" + fakeChars("abcdefghij", 64, 14),
				}
				return
			}),
	}
}

// hasLetterDigit64 reports a value holding a letter and a digit.
func hasLetterDigit64(b []byte) bool {
	l, d := false, false
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			d = true
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			l = true
		}
	}
	return l && d
}
