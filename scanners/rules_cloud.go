package scanners

// Cloud providers and SaaS APIs.

func cloudRules() []ruleDef {
	up32 := "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b64 := base62Alphabet + "+/"
	wd := base62Alphabet + "_-"
	return []ruleDef{
		{
			id: "aws-access-key-id", provider: "AWS", kind: KindSecret, confidence: "high",
			desc: "AWS access key id (AKIA, ASIA, ABIA, ACCA and 16 of [A-Z2-7])",
			forms: []form{tokenSpec{
				prefixes: []string{"AKIA", "ASIA", "ABIA", "ACCA"}, body: setUpperB32, min: 16, max: 16,
				// '=' may come before (KEY=AKIA...); inside base64 it is only padding.
				notBefore: makeSet("A-Za-z0-9_+/"), notAfter: makeSet("A-Za-z0-9_+/="),
			}.form()},
			tp: []string{
				"AKIA" + fakeChars(up32, 16, 1),
				"AWS_ACCESS_KEY_ID=AKIA" + fakeChars(up32, 16, 7),
				"aws_access_key_id = ASIA" + fakeChars(up32, 16, 2),
				"\"AccessKeyId\": \"ABIA" + fakeChars(up32, 16, 3) + "\"",
			},
			fp: []string{
				"AKIAIOSFODNN7EXAMPLE", // AWS documentation example: allowlisted
				"Asia" + fakeChars(up32, 16, 4),
				"AKIA" + fakeChars(up32, 17, 5),
				"xAKIA" + fakeChars(up32, 16, 6),
			},
		},
		{
			id: "aws-secret-access-key", provider: "AWS", kind: KindSecret, confidence: "high",
			desc:  "AWS secret access key: 40 base64 bytes right after a secret_access_key / SecretAccessKey name",
			forms: []form{awsSecretForm()},
			tp: []string{
				"aws_secret_access_key = " + fakeChars(b64, 40, 1),
				"\"SecretAccessKey\": \"" + fakeChars(b64, 40, 2) + "\"",
				"export AWS_SECRET_ACCESS_KEY=" + fakeChars(b64, 40, 3),
			},
			fp: []string{
				"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
				"aws_secret_access_key = ${AWS_SECRET}",
				"secret_access_key: " + fakeChars(b64, 41, 4),
				fakeChars(b64, 40, 5) + " is not near a key name",
			},
		},
		{
			id: "google-api-key", provider: "Google", kind: KindSecret, confidence: "high",
			desc:  "Google API key (AIza and 35 of [A-Za-z0-9_-])",
			forms: []form{tokenSpec{prefixes: []string{"AIza"}, body: setWordDash, min: 35, max: 35}.form()},
			tp: []string{
				"AIza" + fakeChars(wd, 35, 1),
				"https://maps.googleapis.com/maps/api/js?key=AIza" + fakeChars(wd, 35, 2) + "&callback=x",
				"GOOGLE_API_KEY='AIza" + fakeChars(wd, 35, 3) + "'",
			},
			fp: []string{
				"AIza" + fakeChars(wd, 34, 4),
				"AIza" + fakeChars(wd, 36, 5),
				"aiza" + fakeChars(wd, 35, 6),
			},
		},
		{
			id: "stripe", provider: "Stripe", kind: KindSecret, confidence: "high",
			desc: "Stripe secret and restricted keys (sk_live_, sk_test_, rk_live_, rk_test_) and webhook secrets (whsec_); publishable pk_ keys are public",
			forms: []form{
				tokenSpec{prefixes: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"}, body: setAlnum, min: 16, max: 255}.form(),
				tokenSpec{prefixes: []string{"whsec_"}, body: setAlnum, min: 32, max: 255}.form(),
			},
			tp: []string{
				"sk_live_" + fakeChars(base62Alphabet, 24, 1),
				"STRIPE_KEY=rk_test_" + fakeChars(base62Alphabet, 99, 2),
				"whsec_" + fakeChars(base62Alphabet, 32, 3),
			},
			fp: []string{
				"pk_live_" + fakeChars(base62Alphabet, 24, 4),
				"sk_live_short",
				"disk_live_" + fakeChars(base62Alphabet, 24, 5),
			},
		},
		{
			id: "sendgrid", provider: "Twilio SendGrid", kind: KindSecret, confidence: "high",
			desc: "SendGrid API key (SG. 22 . 43)",
			forms: []form{tokenSpec{
				prefixes: []string{"SG."}, body: makeSet("A-Za-z0-9_.-"), min: 66, max: 66,
				validate: func(b []byte) (bool, ChecksumResult) {
					for i, c := range b {
						if (i == 22) != (c == '.') {
							return false, ChecksumNone
						}
					}
					return true, ChecksumNone
				},
			}.form()},
			tp: []string{
				"SG." + fakeChars(wd, 22, 1) + "." + fakeChars(wd, 43, 2),
				"SENDGRID_API_KEY=SG." + fakeChars(wd, 22, 3) + "." + fakeChars(wd, 43, 4),
				"key: 'SG." + fakeChars(wd, 22, 5) + "." + fakeChars(wd, 43, 6) + "'",
			},
			fp: []string{
				"msg." + fakeChars(wd, 22, 7) + "." + fakeChars(wd, 43, 8),
				"SG." + fakeChars(wd, 66, 9),
				"SG.Data",
			},
		},
		{
			id: "slack", provider: "Slack", kind: KindSecret, confidence: "high",
			desc: "Slack tokens (xoxb-, xoxp-, xoxa-, xoxr-, xoxe-, xoxs-, xapp-) and incoming webhook URLs",
			forms: []form{
				tokenSpec{
					prefixes: []string{"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxe-", "xoxs-", "xapp-"}, body: makeSet("A-Za-z0-9-"), min: 10, max: 255,
					validate: func(b []byte) (bool, ChecksumResult) {
						_, _, d := hasClasses(b)
						return d, ChecksumNone
					},
				}.form(),
				tokenSpec{
					prefixes: []string{"hooks.slack.com/services/", "hooks.slack.com/workflows/"}, fold: true,
					body: makeSet("A-Za-z0-9/_-"), min: 20, max: 255, notBefore: makeSet("A-Za-z0-9_.-"),
				}.form(),
			},
			tp: []string{
				"xoxb-" + fakeChars("0123456789", 12, 1) + "-" + fakeChars("0123456789", 13, 2) + "-" + fakeChars(base62Alphabet, 24, 3),
				"xapp-1-A" + fakeChars("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 10, 4) + "-" + fakeChars("0123456789", 13, 5) + "-" + fakeChars("0123456789abcdef", 64, 6),
				"https://hooks.slack.com/services/T" + fakeChars("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 8, 7) + "/B" + fakeChars("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 8, 8) + "/" + fakeChars(base62Alphabet, 24, 9),
			},
			fp: []string{
				"xoxb-placeholder-token",
				"xoxb-123",
				"hooks.slack.com/services/",
				"noxoxp-" + fakeChars("0123456789", 12, 10) + "-" + fakeChars("0123456789", 13, 11),
			},
		},
	}
}

// awsSecretForm: a secret access key name, 1..24 separator bytes (quotes,
// spaces, ':', '=', '>', ',', '\\', '('), then exactly 40 of [A-Za-z0-9+/]
// mixing upper and lower case, not followed by another base64 byte.
func awsSecretForm() form {
	sep := makeSet("\t\n\f\r \"'`:=>,\\(")
	const maxSep, keyLen = 24, 40
	kws := []string{"secret_access_key", "secretaccesskey", "secret-access-key", "aws_secret_key"}
	return form{
		keywords: kws,
		back:     1,
		ahead:    len("secret_access_key") + maxSep + keyLen + 1,
		check: func(v *view, ks, ke int) result {
			d := v.data
			i := ke
			for i < len(d) && i-ke <= maxSep && sep[d[i]] {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if i == ke || i-ke > maxSep {
				return noMatch
			}
			s := i
			for i < len(d) && i-s <= keyLen && setBase64[d[i]] {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if i-s != keyLen || i < len(d) && setBase64Pad[d[i]] {
				return noMatch
			}
			if u, l, _ := hasClasses(d[s:i]); !u || !l {
				return noMatch
			}
			return result{status: resMatch, start: s, end: i}
		},
	}
}
