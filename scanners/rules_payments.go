package scanners

// Rules for payment providers.
//
// Collisions are settled by shape: Paystack and Stripe both use sk_live_ and
// sk_test_, but a Paystack secret key has exactly 40 lower-case hex bytes
// after the prefix, and Stripe's bodies are base62. Both rules match such a
// key at the same span; paystack-secret-key is declared first, so its id is
// the one reported (identical spans go to the lower RuleID).

func paymentRules() []ruleDef {
	hex := "0123456789abcdef"
	wd := base62Alphabet + "_-"
	return []ruleDef{
		provRule("paystack-secret-key", "Paystack", "high", "Paystack secret key (sk_live_ or sk_test_ and 40 hex); takes precedence over stripe on this shape",
			[]form{tokenSpec{prefixes: []string{"sk_live_", "sk_test_"}, body: setHexLower, min: 40, max: 40}.form()},
			func() (tp, fp []string) {
				tp = []string{
					"sk_live_" + fakeChars(hex, 40, 1),
					"PAYSTACK_SECRET_KEY=sk_test_" + fakeChars(hex, 40, 2),
					"paystack key sk_live_" + fakeChars(hex, 40, 3) + " (rotate it)",
				}
				fp = []string{
					"sk_live_" + fakeChars(base62Alphabet, 40, 4),
					"sk_live_" + fakeChars(hex, 41, 5),
					"pk_live_" + fakeChars(hex, 40, 6),
				}
				return
			}),
		{
			id: "stripe", provider: "Stripe", kind: KindSecret, confidence: "high",
			desc: "Stripe secret and restricted keys (sk_live_, sk_test_, rk_live_, rk_test_; sk_prod_ and rk_prod_ as gitleaks reads them) and webhook secrets (whsec_); publishable pk_ keys are public",
			forms: []form{
				tokenSpec{prefixes: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "sk_prod_", "rk_prod_"}, body: setAlnum, min: 16, max: 255}.form(),
				tokenSpec{prefixes: []string{"whsec_"}, body: setAlnum, min: 32, max: 255}.form(),
			},
			examples: func() (tp, fp []string) {
				tp = []string{
					"sk_live_" + fakeChars(base62Alphabet, 24, 1),
					"STRIPE_KEY=rk_test_" + fakeChars(base62Alphabet, 99, 2),
					"whsec_" + fakeChars(base62Alphabet, 32, 3),
				}
				fp = []string{
					"pk_live_" + fakeChars(base62Alphabet, 24, 4),
					"sk_live_short",
					"disk_live_" + fakeChars(base62Alphabet, 24, 5),
					"sk_live_" + fakeChars(hex, 40, 6), // a Paystack key: reported as paystack-secret-key
				}
				return
			},
		},
		provRule("square-access-token", "Square", "high", "Square access token (EAAA and 60 of [A-Za-z0-9_-], or legacy sq0atp- and 22)",
			[]form{
				strictForm(tokenSpec{prefixes: []string{"EAAA"}, body: setWordDash, min: 60, max: 60, validate: mixes2}),
				strictForm(tokenSpec{prefixes: []string{"sq0atp-"}, body: setWordDash, min: 22, max: 22, validate: mixes2}),
			},
			func() (tp, fp []string) {
				tp = []string{
					"EAAA" + fakeChars(wd, 60, 1),
					"SQUARE_ACCESS_TOKEN=sq0atp-" + fakeChars(wd, 22, 2),
					"\"accessToken\": \"EAAA" + fakeChars(base62Alphabet, 60, 3) + "\"",
				}
				fp = []string{
					"EAAA" + fakeChars(wd, 150, 4),
					"sq0atp-" + fakeChars(wd, 21, 5),
					"sq0idp-" + fakeChars(wd, 22, 6),
					"xEAAA" + fakeChars(wd, 60, 7),
				}
				return
			}),
		provRule("square-oauth-secret", "Square", "high", "Square application (OAuth) secret (sq0csp- and 43 of [A-Za-z0-9_-])",
			[]form{strictForm(tokenSpec{prefixes: []string{"sq0csp-"}, body: setWordDash, min: 43, max: 43, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"sq0csp-" + fakeChars(wd, 43, 1),
					"SQUARE_APP_SECRET=sq0csp-" + fakeChars(wd, 43, 2),
					"client_secret: 'sq0csp-" + fakeChars(wd, 43, 3) + "'",
				}
				fp = []string{
					"sq0csp-" + fakeChars(wd, 42, 4),
					"sq0csp-" + fakeChars(wd, 44, 5),
					"sq0csp-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
				}
				return
			}),
		provRule("braintree-access-token", "PayPal", "high", "PayPal Braintree access token (access_token$production$ or $sandbox$, 16 of [a-z0-9], $, 32 hex)",
			[]form{tokenSpec{
				prefixes: []string{"access_token$production$", "access_token$sandbox$"}, body: makeSet("a-z0-9$"), min: 49, max: 49,
				validate: bodyShape(bodySeg{set: setLowerAlnum, n: 16}, bodySeg{lit: "$"}, bodySeg{set: setHexLower, n: 32}),
			}.form()},
			func() (tp, fp []string) {
				tp = []string{
					"access_token$production$" + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789", 16, 1) + "$" + fakeChars(hex, 32, 2),
					"BRAINTREE_ACCESS_TOKEN=access_token$sandbox$" + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789", 16, 3) + "$" + fakeChars(hex, 32, 4),
					"gateway = Gateway(access_token=\"access_token$production$" + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789", 16, 5) + "$" + fakeChars(hex, 32, 6) + "\")",
				}
				fp = []string{
					"access_token$production$" + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789", 16, 7) + "$" + fakeChars(hex, 31, 8),
					"access_token$staging$" + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789", 16, 9) + "$" + fakeChars(hex, 32, 10),
					"access_token$production$",
				}
				return
			}),
		provRule("razorpay-key-id", "Razorpay", "medium", "Razorpay key id (rzp_live_ or rzp_test_ and 14 base62); it pairs with the key secret",
			[]form{strictForm(tokenSpec{prefixes: []string{"rzp_live_", "rzp_test_"}, body: setAlnum, min: 14, max: 14, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"rzp_live_" + fakeChars(base62Alphabet, 14, 1),
					"RAZORPAY_KEY_ID=rzp_test_" + fakeChars(base62Alphabet, 14, 2),
					"key: \"rzp_live_" + fakeChars(base62Alphabet, 14, 3) + "\",",
				}
				fp = []string{
					"rzp_live_" + fakeChars(base62Alphabet, 13, 4),
					"rzp_live_" + fakeChars(base62Alphabet, 15, 5),
					"rzp_test_xxxxxxxxxxxxxx",
				}
				return
			}),
		provRule("plaid-access-token", "Plaid", "high", "Plaid access token (access-production-, access-development- or access-sandbox- and a UUID)",
			[]form{tokenSpec{
				prefixes: []string{"access-production-", "access-development-", "access-sandbox-"}, body: makeSet("0-9a-f-"), min: 36, max: 36,
				notBefore: setWordDash, notAfter: setWordDash, validate: uuidShape,
			}.form()},
			func() (tp, fp []string) {
				tp = []string{
					"access-production-" + fakeUUID(1),
					"PLAID_ACCESS_TOKEN=access-sandbox-" + fakeUUID(2),
					"{\"access_token\": \"access-development-" + fakeUUID(3) + "\"}",
				}
				fp = []string{
					"access-production-" + fakeChars(hex, 36, 4),
					"public-sandbox-" + fakeUUID(5),
					"access-production-ready",
					"xaccess-production-" + fakeUUID(6),
				}
				return
			}),
		provRule("flutterwave-secret-key", "Flutterwave", "high", "Flutterwave secret key (FLWSECK- or FLWSECK_TEST-, 32 hex, -X)",
			[]form{strictForm(tokenSpec{
				prefixes: []string{"FLWSECK-", "FLWSECK_TEST-"}, body: makeSet("0-9a-fA-FX-"), min: 34, max: 34, notBefore: setWordDash, notAfter: setWordDash,
				validate: bodyShape(bodySeg{set: makeSet("0-9a-fA-F"), n: 32}, bodySeg{lit: "-X"}),
			})},
			func() (tp, fp []string) {
				tp = []string{
					"FLWSECK-" + fakeChars(hex, 32, 1) + "-X",
					"FLW_SECRET_KEY=FLWSECK_TEST-" + fakeChars(hex, 32, 2) + "-X",
					"'FLWSECK-" + fakeChars(hex, 32, 3) + "-X'",
				}
				fp = []string{
					"FLWPUBK-" + fakeChars(hex, 32, 4) + "-X",
					"FLWSECK-" + fakeChars(hex, 32, 5),
					"FLWSECK_TEST-" + fakeChars(hex, 31, 6) + "-X",
				}
				return
			}),
		provRule("shippo-api-token", "Shippo", "high", "Shippo API token (shippo_live_ or shippo_test_ and 40 hex)",
			[]form{tokenSpec{prefixes: []string{"shippo_live_", "shippo_test_"}, body: makeSet("0-9a-fA-F"), min: 40, max: 40}.form()},
			func() (tp, fp []string) {
				tp = []string{
					"shippo_live_" + fakeChars(hex, 40, 1),
					"SHIPPO_API_KEY=shippo_test_" + fakeChars(hex, 40, 2),
					"Authorization: ShippoToken shippo_live_" + fakeChars(hex, 40, 3),
				}
				fp = []string{
					"shippo_live_" + fakeChars(hex, 39, 4),
					"shippo_live_" + fakeChars(base62Alphabet, 40, 5),
					"shippo_test_mode_enabled",
				}
				return
			}),
		provRule("easypost-api-key", "EasyPost", "high", "EasyPost production or test API key (EZAK or EZTK and 54 base62)",
			[]form{strictForm(tokenSpec{prefixes: []string{"EZAK", "EZTK"}, body: setAlnum, min: 54, max: 54, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"EZAK" + fakeChars(base62Alphabet, 54, 1),
					"EASYPOST_API_KEY=EZTK" + fakeChars(base62Alphabet, 54, 2),
					"client = EasyPostClient(\"EZAK" + fakeChars(base62Alphabet, 54, 3) + "\")",
				}
				fp = []string{
					"EZAK" + fakeChars(base62Alphabet, 53, 4),
					"EZAK" + fakeChars(base62Alphabet, 55, 5),
					"EZTKxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
				}
				return
			}),
		provRule("duffel-api-token", "Duffel", "high", "Duffel API token (duffel_live_ or duffel_test_ and 43 of [A-Za-z0-9_=-])",
			[]form{strictForm(tokenSpec{prefixes: []string{"duffel_live_", "duffel_test_"}, body: setWordDashEq, min: 43, max: 43, notBefore: setWordDash, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"duffel_test_" + fakeChars(wd, 43, 1),
					"DUFFEL_ACCESS_TOKEN=duffel_live_" + fakeChars(wd, 43, 2),
					"Bearer duffel_live_" + fakeChars(base62Alphabet, 43, 3) + "\n",
				}
				fp = []string{
					"duffel_test_" + fakeChars(wd, 42, 4),
					"duffel_live_" + fakeChars(wd, 44, 5),
					"duffel_test_suite_for_the_booking_flow_and_more_words",
				}
				return
			}),
		provRule("xendit-secret-key", "Xendit", "high", "Xendit secret API key (xnd_production_ or xnd_development_ and 55-70 base62)",
			[]form{strictForm(tokenSpec{prefixes: []string{"xnd_production_", "xnd_development_"}, body: setAlnum, min: 55, max: 70, validate: mixes3})},
			func() (tp, fp []string) {
				tp = []string{
					"xnd_production_" + fakeChars(base62Alphabet, 61, 1),
					"XENDIT_SECRET_KEY=xnd_development_" + fakeChars(base62Alphabet, 62, 2),
					"Xendit::setApiKey('xnd_production_" + fakeChars(base62Alphabet, 61, 3) + "');",
				}
				fp = []string{
					"xnd_production_looks_real",
					"xnd_public_production_" + fakeChars(base62Alphabet, 61, 4),
					"xnd_production_" + fakeChars(base62Alphabet, 54, 5),
				}
				return
			}),
		provRule("paddle-api-key", "Paddle", "high", "Paddle Billing API key (pdl_live_apikey_ or pdl_sdbx_apikey_ and 40-80 of [A-Za-z0-9_])",
			[]form{strictForm(tokenSpec{prefixes: []string{"pdl_live_apikey_", "pdl_sdbx_apikey_"}, body: setWord, min: 40, max: 80, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"pdl_live_apikey_01" + fakeChars("0123456789abcdefghjkmnpqrstvwxyz", 24, 1) + "_" + fakeChars(base62Alphabet, 22, 2) + "_" + fakeChars(base62Alphabet, 3, 3),
					"PADDLE_API_KEY=pdl_sdbx_apikey_01" + fakeChars("0123456789abcdefghjkmnpqrstvwxyz", 24, 4) + "_" + fakeChars(base62Alphabet, 22, 5) + "_" + fakeChars(base62Alphabet, 3, 6),
					"apiKey: 'pdl_live_apikey_" + fakeChars(base62Alphabet, 53, 7) + "'",
				}
				fp = []string{
					"pdl_live_apikey_test_fixture",
					"pdl_live_apikey_" + fakeChars(base62Alphabet, 39, 8),
					"pdl_ntfset_" + fakeChars(base62Alphabet, 53, 9),
				}
				return
			}),
	}
}
