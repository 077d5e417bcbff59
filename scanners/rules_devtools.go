package scanners

// Developer platforms: package registries and hosting.

func devtoolsRules() []ruleDef {
	hex := "0123456789abcdef"
	b64u := base62Alphabet + "_-"
	pypiPrefix := "pypi-AgEIcHlwaS5vcmc"            // base64 of a macaroon for "pypi.org"
	testPypiPrefix := "pypi-AgENdGVzdC5weXBpLm9yZw" // the same for "test.pypi.org"
	return []ruleDef{
		{
			id: "pypi", provider: "PyPI", kind: KindSecret, confidence: "high",
			desc:  "PyPI and TestPyPI upload tokens (pypi-AgEIcHlwaS5vcmc or pypi-AgENdGVzdC5weXBpLm9yZw and 50-1000 base64url bytes)",
			forms: []form{tokenSpec{prefixes: []string{pypiPrefix, testPypiPrefix}, body: setB64URL, min: 50, max: 1000}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					pypiPrefix + fakeChars(b64u, 160, 1),
					"password = " + pypiPrefix + fakeChars(b64u, 70, 2),
					"TWINE_PASSWORD='" + pypiPrefix + fakeChars(b64u, 200, 3) + "'",
					"twine upload -r testpypi -p " + testPypiPrefix + fakeChars(b64u, 180, 7),
				}
				fp = []string{
					pypiPrefix + fakeChars(b64u, 49, 4),
					"pypi-" + fakeChars(b64u, 100, 5),
					"x" + pypiPrefix + fakeChars(b64u, 100, 6),
				}
				return
			},
		},
		{
			id: "digitalocean", provider: "DigitalOcean", kind: KindSecret, confidence: "high",
			desc:  "DigitalOcean personal, OAuth and refresh tokens (dop_v1_, doo_v1_, dor_v1_ and 64 hex)",
			forms: []form{tokenSpec{prefixes: []string{"dop_v1_", "doo_v1_", "dor_v1_"}, body: makeSet("a-f0-9"), min: 64, max: 64}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"dop_v1_" + fakeChars(hex, 64, 1),
					"DIGITALOCEAN_TOKEN=doo_v1_" + fakeChars(hex, 64, 2),
					"\"dor_v1_" + fakeChars(hex, 64, 3) + "\"",
				}
				fp = []string{
					"dop_v1_" + fakeChars(hex, 63, 4),
					"dop_v1_" + fakeChars(hex, 64, 5) + "a",
					"dop_v2_" + fakeChars(hex, 64, 6),
				}
				return
			},
		},
		{
			id: "shopify", provider: "Shopify", kind: KindSecret, confidence: "high",
			desc:  "Shopify access tokens and shared secrets (shpat_, shpca_, shppa_, shpss_ and 32 hex)",
			forms: []form{tokenSpec{prefixes: []string{"shpat_", "shpca_", "shppa_", "shpss_"}, body: makeSet("a-fA-F0-9"), min: 32, max: 32}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"shpat_" + fakeChars(hex, 32, 1),
					"X-Shopify-Access-Token: shpca_" + fakeChars(hex, 32, 2),
					"secret=shpss_" + fakeChars(hex, 32, 3),
				}
				fp = []string{
					"shpat_" + fakeChars(hex, 31, 4),
					"shpat_" + fakeChars("ghijklmnopqrstuvwxyz", 32, 5),
					"myshpat_" + fakeChars(hex, 32, 6),
				}
				return
			},
		},
	}
}
