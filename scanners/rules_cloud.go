package scanners

import (
	"bytes"
	"strings"
)

// Cloud providers and SaaS APIs.

func cloudRules() []ruleDef {
	hex := "0123456789abcdef"
	up32 := "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b64 := base62Alphabet + "+/"
	wd := base62Alphabet + "_-"
	rs := []ruleDef{
		{
			id: "aws-access-key-id", provider: "AWS", kind: KindSecret, confidence: "high",
			desc: "AWS access key id (AKIA, ASIA, ABIA, ACCA and 16 of [A-Z2-7])",
			forms: []form{tokenSpec{
				prefixes: []string{"AKIA", "ASIA", "ABIA", "ACCA"}, body: setUpperB32, min: 16, max: 16,
				// '=' may come before (KEY=AKIA...); inside base64 it is only padding.
				notBefore: makeSet("A-Za-z0-9_+/"), notAfter: makeSet("A-Za-z0-9_+/="),
			}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"AKIA" + fakeChars(up32, 16, 1),
					"AWS_ACCESS_KEY_ID=AKIA" + fakeChars(up32, 16, 7),
					"aws_access_key_id = ASIA" + fakeChars(up32, 16, 2),
					"\"AccessKeyId\": \"ABIA" + fakeChars(up32, 16, 3) + "\"",
				}
				fp = []string{
					"AKIAIOSFODNN7EXAMPLE", // AWS documentation example: allowlisted
					"Asia" + fakeChars(up32, 16, 4),
					"AKIA" + fakeChars(up32, 17, 5),
					"xAKIA" + fakeChars(up32, 16, 6),
				}
				return
			},
		},
		{
			id: "aws-secret-access-key", provider: "AWS", kind: KindSecret, confidence: "high",
			desc:  "AWS secret access key: 40 base64 bytes right after a secret_access_key / SecretAccessKey name",
			forms: []form{awsSecretForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"aws_secret_access_key = " + fakeChars(b64, 40, 1),
					"\"SecretAccessKey\": \"" + fakeChars(b64, 40, 2) + "\"",
					"export AWS_SECRET_ACCESS_KEY=" + fakeChars(b64, 40, 3),
				}
				fp = []string{
					"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
					"aws_secret_access_key = ${AWS_SECRET}",
					"secret_access_key: " + fakeChars(b64, 41, 4),
					fakeChars(b64, 40, 5) + " is not near a key name",
				}
				return
			},
		},
		{
			id: "google-api-key", provider: "Google", kind: KindSecret, confidence: "high",
			desc:  "Google API key (AIza and 35 of [A-Za-z0-9_-])",
			forms: []form{tokenSpec{prefixes: []string{"AIza"}, body: setWordDash, min: 35, max: 35}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"AIza" + fakeChars(wd, 35, 1),
					"https://maps.googleapis.com/maps/api/js?key=AIza" + fakeChars(wd, 35, 2) + "&callback=x",
					"GOOGLE_API_KEY='AIza" + fakeChars(wd, 35, 3) + "'",
				}
				fp = []string{
					"AIza" + fakeChars(wd, 34, 4),
					"AIza" + fakeChars(wd, 36, 5),
					"aiza" + fakeChars(wd, 35, 6),
				}
				return
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
			examples: func() (tp, fp []string) {
				tp = []string{
					"SG." + fakeChars(wd, 22, 1) + "." + fakeChars(wd, 43, 2),
					"SENDGRID_API_KEY=SG." + fakeChars(wd, 22, 3) + "." + fakeChars(wd, 43, 4),
					"key: 'SG." + fakeChars(wd, 22, 5) + "." + fakeChars(wd, 43, 6) + "'",
				}
				fp = []string{
					"msg." + fakeChars(wd, 22, 7) + "." + fakeChars(wd, 43, 8),
					"SG." + fakeChars(wd, 66, 9),
					"SG.Data",
				}
				return
			},
		},
		{
			id: "slack", provider: "Slack", kind: KindSecret, confidence: "high",
			desc: "Slack tokens (xoxb-, xoxp-, xoxa-, xoxr-, xoxe-, xoxs-, xapp-) and incoming webhook URLs (also with escaped slashes, \\/, in JSON text)",
			forms: []form{
				tokenSpec{
					prefixes: []string{"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxe-", "xoxs-", "xapp-"}, body: makeSet("A-Za-z0-9-"), min: 10, max: 255,
					validate: slackShape,
				}.form(),
				slackHookSpec.form(),
				slackHookSpec.escapedSlashes(),
			},
			examples: func() (tp, fp []string) {
				tp = []string{
					"xoxb-" + fakeChars("0123456789", 12, 1) + "-" + fakeChars("0123456789", 13, 2) + "-" + fakeChars(base62Alphabet, 24, 3),
					"xapp-1-A" + fakeChars("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 10, 4) + "-" + fakeChars("0123456789", 13, 5) + "-" + fakeChars("0123456789abcdef", 64, 6),
					"https://hooks.slack.com/services/T" + fakeChars("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 8, 7) + "/B" + fakeChars("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 8, 8) + "/" + fakeChars(base62Alphabet, 24, 9),
					`{"url":"https:\/\/hooks.slack.com\/services\/T` + fakeChars("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 8, 12) + `\/B` + fakeChars("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 8, 13) + `\/` + fakeChars(base62Alphabet, 24, 14) + `"}`,
				}
				fp = []string{
					"xoxb-placeholder-token",
					"xoxb-123",
					"hooks.slack.com/services/",
					`hooks.slack.com\/services\/T123\/`,
					`hooks.slack.com\/services\/T` + fakeChars("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 8, 15) + `/B` + fakeChars("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 8, 16) + `/` + fakeChars(base62Alphabet, 24, 17),
					"noxoxp-" + fakeChars("0123456789", 12, 10) + "-" + fakeChars("0123456789", 13, 11),
				}
				return
			},
		},
	}
	return append(rs, moreCloudRules(hex, b64, wd)...)
}

// awsSecretForm: a secret access key name, 1..24 separator bytes (quotes,
// spaces, ':', '=', '>', ',', '\\', '('), then exactly 40 of [A-Za-z0-9+/]
// mixing upper and lower case, not followed by another base64 byte.
func awsSecretForm() form {
	return namedValue{
		keywords: []string{"secret_access_key", "secretaccesskey", "secret-access-key", "aws_secret_key"},
		sep:      makeSet("\t\n\f\r \"'`:=>,\\("), maxSep: 24, run: setBase64, n: 40, notAfter: setBase64Pad,
		accept: func(b []byte) bool {
			u, l, _ := hasClasses(b)
			return u && l
		},
	}.form()
}

// moreCloudRules: the cloud rules beyond AWS key ids, AWS secrets by name and
// Google API keys.
func moreCloudRules(hex, b64, wd string) []ruleDef {
	up32 := "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	upAlnum := "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	sts := "IQoJb3JpZ2luX2Vj"
	bedrock := "ABSKQmVkcm9ja0FQSUtleS1" // ABSK + base64("BedrockAPIKey-")
	bedrockShort := "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t"
	sig := func(seed uint32) string {
		raw := fakeChars(b64, 43, seed) + "="
		return strings.NewReplacer("+", "%2B", "/", "%2F", "=", "%3D").Replace(raw)
	}
	adSecret := func(seed uint32) string {
		return fakeChars(base62Alphabet, 3, seed) + "8Q~" + fakeChars(base62Alphabet+"_~.-", 32, seed+1) + "a1"
	}
	accountKey := func(seed uint32) string { return fakeChars(b64, 86, seed) + "==" }
	return []ruleDef{
		provRule("aws-session-token", "AWS", "high", "AWS STS session token (base64 starting IQoJb3JpZ2luX2Vj, FwoGZXIvYXdzE or FQoGZXIvYXdzE, 100+ bytes)",
			[]form{strictForm(tokenSpec{
				prefixes: []string{sts, "FwoGZXIvYXdzE", "FQoGZXIvYXdzE"}, body: setBase64Pad, min: 100, max: 4096,
				validate: func(b []byte) (bool, ChecksumResult) { return paddedBase64(b), ChecksumNone },
			})},
			func() (tp, fp []string) {
				tp = []string{
					sts + fakeChars(b64, 600, 1),
					"aws_session_token = FwoGZXIvYXdzE" + fakeChars(b64, 300, 2) + "=",
					"\"SessionToken\": \"" + sts + fakeChars(b64, 800, 3) + "\"",
				}
				fp = []string{
					sts + fakeChars(b64, 99, 4),
					"x" + sts + fakeChars(b64, 300, 5),
					sts + fakeChars(b64, 200, 6) + "=" + fakeChars(b64, 10, 7),
				}
				return
			}),
		provRule("aws-bedrock-api-key", "AWS", "high", "Amazon Bedrock API key: long-term (ABSK + base64 of \"BedrockAPIKey-\") or short-term (bedrock-api-key- + base64 of \"bedrock.amazonaws.com\")",
			[]form{
				strictForm(tokenSpec{
					prefixes: []string{"ABSK"}, body: setBase64Pad, min: 99, max: 419,
					validate: func(b []byte) (bool, ChecksumResult) {
						return bodyHasPrefix(b, bedrock[4:]) && paddedBase64(b), ChecksumNone
					},
				}),
				strictForm(tokenSpec{
					prefixes: []string{"bedrock-api-key-"}, body: setBase64Pad, min: 128, max: 8220, notBefore: setWordDash,
					validate: func(b []byte) (bool, ChecksumResult) {
						return bodyHasPrefix(b, bedrockShort[16:]) && paddedBase64(b), ChecksumNone
					},
				}),
			},
			func() (tp, fp []string) {
				tp = []string{
					bedrock + fakeChars(b64, 110, 1) + "=",
					"AWS_BEARER_TOKEN_BEDROCK=" + bedrockShort + fakeChars(b64, 900, 2),
					"\"" + bedrock + fakeChars(b64, 150, 3) + "\"",
				}
				fp = []string{
					"ABSK" + fakeChars(b64, 130, 4),
					bedrock + fakeChars(b64, 79, 5),
					"my-" + bedrockShort + fakeChars(b64, 200, 6),
				}
				return
			}),
		provRule("gcp-oauth-client-secret", "Google", "high", "Google Cloud OAuth client secret (GOCSPX- and 28 of [A-Za-z0-9_-])",
			[]form{strictForm(tokenSpec{prefixes: []string{"GOCSPX-"}, body: setWordDash, min: 28, max: 28, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"GOCSPX-" + fakeChars(wd, 28, 1),
					"\"client_secret\": \"GOCSPX-" + fakeChars(wd, 28, 2) + "\"",
					"GOOGLE_CLIENT_SECRET=GOCSPX-" + fakeChars(wd, 28, 3),
				}
				fp = []string{
					"GOCSPX-" + fakeChars(wd, 27, 4),
					"GOCSPX-" + fakeChars(wd, 29, 5),
					"GOCSPX-xxxxxxxxxxxxxxxxxxxxxxxxxxxx",
				}
				return
			}),
		provRule("google-oauth-access-token", "Google", "high", "Google OAuth 2.0 access token (ya29. or ya29.c. and 30+ of [A-Za-z0-9_-])",
			[]form{strictForm(tokenSpec{prefixes: []string{"ya29.", "ya29.c."}, body: setWordDash, min: 30, max: 2048, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"ya29.a0" + fakeChars(wd, 150, 1),
					"gcloud print-access-token: ya29.c." + fakeChars(wd, 200, 2),
					"\"access_token\": \"ya29." + fakeChars(wd, 120, 3) + "\"",
				}
				fp = []string{
					"ya29." + fakeChars(wd, 29, 4),
					"ya29.example",
					"xya29." + fakeChars(wd, 100, 5),
				}
				return
			}),
		provRule("azure-storage-account-key", "Microsoft Azure", "high", "Azure Storage or Cosmos DB account key in a connection string (AccountKey= and 86 base64 and ==; also with escaped slashes, \\/, in JSON text)",
			strictWithEscapedSlashes(tokenSpec{
				prefixes: []string{"AccountKey="}, fold: true, body: setBase64Pad, min: 88, max: 88,
				validate: func(b []byte) (bool, ChecksumResult) {
					return b[85] != '=' && b[86] == '=' && b[87] == '=' && paddedBase64(b), ChecksumNone
				},
			}),
			func() (tp, fp []string) {
				tp = []string{
					"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + accountKey(1) + ";EndpointSuffix=core.windows.net",
					"AccountEndpoint=https://db.documents.azure.com:443/;AccountKey=" + accountKey(2) + ";",
					"accountkey=" + accountKey(3),
					`{"conn":"AccountName=a;AccountKey=` + strings.ReplaceAll("/"+accountKey(7)[1:], "/", `\/`) + `;"}`,
				}
				fp = []string{
					"AccountKey=" + fakeChars(b64, 88, 4),
					"AccountKey=" + accountKey(5)[:80] + "==",
					"AccountKey=<your-key>;",
					"MyAccountKey=" + accountKey(6),
				}
				return
			}),
		provRule("azure-shared-access-key", "Microsoft Azure", "high", "Azure Service Bus, Event Hubs or IoT Hub shared access key in a connection string (SharedAccessKey= and 43 base64 and =; also with escaped slashes, \\/, in JSON text)",
			strictWithEscapedSlashes(tokenSpec{
				prefixes: []string{"SharedAccessKey="}, fold: true, body: setBase64Pad, min: 44, max: 44,
				validate: func(b []byte) (bool, ChecksumResult) {
					return b[42] != '=' && b[43] == '=' && paddedBase64(b), ChecksumNone
				},
			}),
			func() (tp, fp []string) {
				tp = []string{
					"Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=" + fakeChars(b64, 43, 1) + "=",
					"HostName=hub.azure-devices.net;DeviceId=d1;SharedAccessKey=" + fakeChars(b64, 43, 2) + "=",
					"sharedaccesskey=" + fakeChars(b64, 43, 3) + "=;EntityPath=q",
				}
				fp = []string{
					"SharedAccessKeyName=RootManageSharedAccessKey",
					"SharedAccessKey=" + fakeChars(b64, 44, 4),
					"SharedAccessKey=" + fakeChars(b64, 42, 5) + "==",
				}
				return
			}),
		provRule("azure-sas-token", "Microsoft Azure", "high", "Azure shared access signature: the sig= value (32 to 88 base64 and up to two =, maybe percent-encoded; Azure writes an HMAC-SHA256, 43 and =) of a query that also holds sv= or skn=",
			[]form{azureSASForm()},
			func() (tp, fp []string) {
				tp = []string{
					"https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-01-01T00:00:00Z&sig=" + sig(1),
					"SharedAccessSignature sr=sb%3A%2F%2Fns.servicebus.windows.net%2Fq&sig=" + sig(2) + "&se=1767225600&skn=send",
					"BlobEndpoint=https://a.blob.core.windows.net/;SharedAccessSignature=sv=2020-08-04&sr=c&sig=" + fakeChars(b64, 43, 3) + "=",
					`{"url":"https://a.blob.core.windows.net/c/f?sp=r\u0026sv=2022-11-02\u0026sr=b\u0026sig=` + sig(9) + `"}`,
					"AZURE_BLOB_SAS_TOKEN=sp=rcwl&st=2025-03-10T06:58:25Z&sv=2022-11-02&sr=c&sig=" + fakeChars(b64, 45, 10) + "%3D",
					"?sv=2022-11-02&sig=" + fakeChars(b64, 40, 11) + "%3D%3D",
				}
				fp = []string{
					"https://example.com/download?file=a.zip&sig=" + sig(4),
					"https://acct.blob.core.windows.net/c?sv=2022-11-02&sig=" + fakeChars(b64, 31, 5),
					"?sv=2022-11-02&sig=" + fakeChars(b64, 89, 6),
					"?sv=2022-11-02&sig=%3D" + fakeChars(b64, 40, 6),
					"msig=" + sig(7) + "&sv=1",
					"csv=a.csv&sig=" + sig(8),
				}
				return
			}),
		provRule("azure-ad-client-secret", "Microsoft Azure", "high", "Microsoft Entra ID (Azure AD) application client secret (3 chars, a digit, Q~, 31-34 chars)",
			[]form{azureADSecretForm()},
			func() (tp, fp []string) {
				tp = []string{
					adSecret(1),
					"AZURE_CLIENT_SECRET=" + adSecret(2),
					"\"clientSecret\": \"" + adSecret(3) + "\"",
				}
				fp = []string{
					"abcQ~" + fakeChars(base62Alphabet, 34, 4),
					"ab8Q~" + fakeChars(base62Alphabet, 34, 5),
					fakeChars(base62Alphabet, 3, 6) + "8Q~" + fakeChars(base62Alphabet, 30, 7),
					"x" + adSecret(8),
					"press Q~ to quit",
				}
				return
			}),
		provRule("cloudflare-origin-ca-key", "Cloudflare", "high", "Cloudflare Origin CA key (v1.0-, 24 hex, -, 146 hex)",
			[]form{strictForm(tokenSpec{
				prefixes: []string{"v1.0-"}, body: makeSet("0-9a-f-"), min: 171, max: 171,
				validate: bodyShape(bodySeg{set: setHexLower, n: 24}, bodySeg{lit: "-"}, bodySeg{set: setHexLower, n: 146}),
			})},
			func() (tp, fp []string) {
				tp = []string{
					"v1.0-" + fakeChars(hex, 24, 1) + "-" + fakeChars(hex, 146, 2),
					"CF_ORIGIN_CA_KEY=v1.0-" + fakeChars(hex, 24, 3) + "-" + fakeChars(hex, 146, 4),
					"X-Auth-User-Service-Key: v1.0-" + fakeChars(hex, 24, 5) + "-" + fakeChars(hex, 146, 6),
				}
				fp = []string{
					"v1.0-beta",
					"v1.0-" + fakeChars(hex, 24, 7) + "-" + fakeChars(hex, 145, 8),
					"release-v1.0-" + fakeChars(hex, 24, 9) + "-" + fakeChars(hex, 146, 10),
				}
				return
			}),
		provRule("alibaba-access-key-id", "Alibaba Cloud", "high", "Alibaba Cloud AccessKey ID (LTAI and 12-20 base62)",
			[]form{strictForm(tokenSpec{prefixes: []string{"LTAI"}, body: setAlnum, min: 12, max: 20, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"LTAI" + fakeChars(base62Alphabet, 20, 1),
					"ALIBABA_CLOUD_ACCESS_KEY_ID=LTAI" + fakeChars(base62Alphabet, 20, 2),
					"accessKeyId: 'LTAI" + fakeChars(base62Alphabet, 12, 3) + "'",
				}
				fp = []string{
					"LTAI" + fakeChars(base62Alphabet, 21, 4),
					"LTAI" + fakeChars(base62Alphabet, 11, 5),
					"LTAIxxxxxxxxxxxxxxxxxxxx",
					"DELTAI" + fakeChars(base62Alphabet, 20, 6),
				}
				return
			}),
		provRule("tencent-secret-id", "Tencent Cloud", "high", "Tencent Cloud SecretId (AKID and 32 base62)",
			[]form{strictForm(tokenSpec{prefixes: []string{"AKID"}, body: setAlnum, min: 32, max: 32, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"AKID" + fakeChars(base62Alphabet, 32, 1),
					"TENCENTCLOUD_SECRET_ID=AKID" + fakeChars(base62Alphabet, 32, 2),
					"\"SecretId\": \"AKID" + fakeChars(base62Alphabet, 32, 3) + "\"",
				}
				fp = []string{
					"AKID" + fakeChars(base62Alphabet, 31, 4),
					"AKID" + fakeChars(base62Alphabet, 33, 5),
					"AKIDxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
				}
				return
			}),
		provRule("scaleway-access-key", "Scaleway", "medium", "Scaleway access key (SCW and 17 of [A-Z0-9] with letters and digits)",
			[]form{strictForm(tokenSpec{
				prefixes: []string{"SCW"}, body: setUpperAlnum, min: 17, max: 17,
				validate: func(b []byte) (bool, ChecksumResult) {
					u, _, d := hasClasses(b)
					return u && d, ChecksumNone
				},
			})},
			func() (tp, fp []string) {
				tp = []string{
					"SCW" + fakeChars(upAlnum, 17, 1),
					"SCW_ACCESS_KEY=SCW" + fakeChars(upAlnum, 17, 2),
					"access_key = \"SCW" + fakeChars(upAlnum, 17, 3) + "\"",
				}
				fp = []string{
					"SCWXXXXXXXXXXXXXXXXX",
					"SCW" + fakeChars(upAlnum, 18, 4),
					"SCW_ACCESS_KEY",
					"SCW" + fakeChars(up32, 16, 5),
				}
				return
			}),
		provRule("yandex-api-key", "Yandex Cloud", "high", "Yandex Cloud API key (AQVN and 35-38 of [A-Za-z0-9_-])",
			[]form{strictForm(tokenSpec{prefixes: []string{"AQVN"}, body: setWordDash, min: 35, max: 38, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"AQVN" + fakeChars(wd, 36, 1),
					"YC_API_KEY=AQVN" + fakeChars(wd, 38, 2),
					"Api-Key AQVN" + fakeChars(wd, 35, 3),
				}
				fp = []string{
					"AQVN" + fakeChars(wd, 34, 4),
					"AQVN" + fakeChars(wd, 39, 5),
					"xAQVN" + fakeChars(wd, 36, 6),
				}
				return
			}),
		provRule("databricks-token", "Databricks", "high", "Databricks personal access token (dapi and 32 hex)",
			[]form{tokenSpec{prefixes: []string{"dapi"}, body: setHexLower, min: 32, max: 32, notAfter: setWord}.form()},
			func() (tp, fp []string) {
				tp = []string{
					"dapi" + fakeChars(hex, 32, 1),
					"dapi" + fakeChars(hex, 32, 2) + "-2 (expires in 90 days)",
					"token = \"dapi" + fakeChars(hex, 32, 3) + "\"",
				}
				fp = []string{
					"dapi" + fakeChars(hex, 31, 4),
					"dapi" + fakeChars(hex, 33, 5),
					"rapidapi" + fakeChars(hex, 32, 6),
				}
				return
			}),
	}
}

// Azure SAS limits: how far after sv= (or "SharedAccessSignature sr=") the
// &sig= parameter is looked for, and the longest sig= value looked at.
const (
	sasMaxQuery = 512
	sasMaxValue = 200
	sasAmp      = `\u0026` // & as an HTML-safe JSON encoder writes it
)

var (
	setSASValue  = makeSet("A-Za-z0-9%+/=")
	setURLQuery  = makeSet("A-Za-z0-9._~:/?@!$&()*+,;=%[]-")
	setSASNameIn = makeSet("A-Za-z0-9_.~%-")
)

// azureSASForm: a SAS query starts at a parameter sv= (not preceded by a byte
// of a parameter name, [A-Za-z0-9_.~%-]) or at "SharedAccessSignature sr="
// (Service Bus, Event Hubs). Within the run of URL query bytes that follows
// it, at most sasMaxQuery bytes, the first "&sig=" is the signature; its
// value, the run of [A-Za-z0-9%+/=] after it (at most sasMaxValue bytes),
// must percent-decode to 43 base64 bytes and '=' (an HMAC-SHA256). The match
// is the value. A signature placed before sv= is not seen. Text that is
// itself JSON written by an HTML-safe encoder (Go's) holds & as \u0026: that
// escape counts as & both before sv= and before sig=.
func azureSASForm() form {
	const kwSB = "sharedaccesssignature sr="
	return form{
		keywords:  []string{"sv=", kwSB},
		back:      len(sasAmp),
		ahead:     len(kwSB) + sasMaxQuery + sasMaxValue + 2,
		notBefore: nil, // "sv=" and kwSB differ: checked below
		check: func(v *view, ks, ke int) result {
			d := v.data
			if ke-ks == 3 && (string(d[ks:ke]) != "sv=" ||
				ks > 0 && setSASNameIn[d[ks-1]] && !(ks >= len(sasAmp) && string(d[ks-len(sasAmp):ks]) == sasAmp)) {
				return noMatch
			}
			i := ke
			for i < len(d) && i-ke < sasMaxQuery && (setURLQuery[d[i]] || d[i] == '\\') {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			a := -1
			for j := ke; j < i && a < 0; j++ {
				switch {
				case j+5 <= i && string(d[j:j+5]) == "&sig=":
					a = j + 5
				case j+len(sasAmp)+4 <= i && string(d[j:j+len(sasAmp)+4]) == sasAmp+"sig=":
					a = j + len(sasAmp) + 4
				}
			}
			if a < 0 {
				return noMatch
			}
			e := a
			for e < len(d) && e-a <= sasMaxValue && setSASValue[d[e]] {
				e++
			}
			if v.more(e) {
				return result{status: resMore}
			}
			if e-a > sasMaxValue || !sasSignature(d[a:e]) {
				return noMatch
			}
			return result{status: resMatch, start: a, end: e}
		},
	}
}

// sasSignature reports whether v percent-decodes to a signature: 32 to 88
// base64 bytes and at most two '='. Azure writes an HMAC-SHA256 (43 and
// '='), but the sig= of a query that also holds sv= or skn= is the
// signature slot whatever its length: a signature truncated, doubled or of
// another MAC still grants what the URL grants.
func sasSignature(v []byte) bool {
	n, pad := 0, 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '%' {
			if i+2 >= len(v) || !setHex[v[i+1]] || !setHex[v[i+2]] {
				return false
			}
			c = unhex(v[i+1])<<4 | unhex(v[i+2])
			i += 2
		}
		switch {
		case pad == 0 && setBase64[c]:
			n++
		case c == '=' && n > 0 && pad < 2:
			pad++
		default:
			return false
		}
	}
	return n >= 32 && n <= 88
}

var (
	setADHead = makeSet("A-Za-z0-9_~.")
	setADTail = makeSet("A-Za-z0-9_~.-")
)

// azureADSecretForm: 3 of [A-Za-z0-9_~.], a digit, "Q~" (this case), then
// 31-34 of [A-Za-z0-9_~.-]; no byte of [A-Za-z0-9_~.-] on either side; the
// whole holds upper case, lower case and digits.
func azureADSecretForm() form {
	const lead, min, max = 4, 31, 34
	return form{
		keywords: []string{"q~"},
		back:     lead + 1,
		ahead:    2 + max + 1,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if string(d[ks:ke]) != "Q~" || ks < lead || ks > lead && setADTail[d[ks-lead-1]] {
				return noMatch
			}
			for _, c := range d[ks-lead : ks-1] {
				if !setADHead[c] {
					return noMatch
				}
			}
			if !setDigits[d[ks-1]] {
				return noMatch
			}
			i := ke
			for i < len(d) && i-ke <= max && setADTail[d[i]] {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if i-ke < min || i-ke > max {
				return noMatch
			}
			if ok, _ := mixes3(d[ks-lead : i]); !ok || placeholderBody(d[ke:i]) {
				return noMatch // filler after Q~ (xxxx…)
			}
			return result{status: resMatch, start: ks - lead, end: i}
		},
	}
}

// bodyHasPrefix reports whether b starts with p.
func bodyHasPrefix(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }

// slackShape checks a Slack token body (after xoxb- and the like): it holds
// a digit, does not end in '-' (a filler after it: xoxp-…-####), and its
// all-digit segments (team, user and bot ids, 8 digits or more) are not
// all short: xoxb-12345-abc1 or xoxp-1234-1234-1234-… are no ids Slack
// issues. A lone version digit (xapp-1-, xoxe-1-) is no id.
func slackShape(b []byte) (bool, ChecksumResult) {
	if _, _, d := hasClasses(b); !d || b[len(b)-1] == '-' {
		return false, ChecksumNone
	}
	short, long := false, false
	for len(b) > 0 {
		seg := b
		if j := bytes.IndexByte(b, '-'); j >= 0 {
			seg, b = b[:j], b[j+1:]
		} else {
			b = nil
		}
		if len(seg) < 2 || !allDigits(seg) {
			continue
		}
		if len(seg) >= 8 {
			long = true
		} else {
			short = true
		}
	}
	return long || !short, ChecksumNone
}

// allDigits reports a non-empty run of ASCII digits only.
func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}
