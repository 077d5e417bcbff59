package scanners

import (
	"bytes"
	"encoding/base64"
)

// Rules for messaging and communication services. Slack tokens and webhooks
// and SendGrid keys are declared in rules_cloud.go ("slack", "sendgrid").

func messagingRules() []ruleDef {
	hex := "0123456789abcdef"
	digits := "0123456789"
	wd := base62Alphabet + "_-"
	lowAlnum := "abcdefghijklmnopqrstuvwxyz0123456789"
	uuid := func(seed uint32) string {
		h := fakeChars(hex, 32, seed)
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	}
	discordTok := func(id string, seed uint32) string {
		return base64.RawStdEncoding.EncodeToString([]byte(id)) + "." + fakeChars(wd, 6, seed) + "." + fakeChars(wd, 38, seed+1)
	}
	teams := func(seed uint32) string {
		return "https://contoso.webhook.office.com/webhookb2/" + uuid(seed) + "@" + uuid(seed+1) + "/IncomingWebhook/" + fakeChars(hex, 32, seed+2) + "/" + uuid(seed+3)
	}
	return []ruleDef{
		{
			id: "slack-config-token", provider: "Slack", kind: KindSecret, confidence: "high",
			desc:  "Slack app configuration access token (xoxe.xoxp- or xoxe.xoxb-, a digit, '-', and 38-253 of [A-Za-z0-9-])",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"xoxe.xoxp-", "xoxe.xoxb-"}, body: makeSet("A-Za-z0-9-"), min: 40, max: 255, validate: slackConfigShape})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"xoxe.xoxp-1-" + fakeChars(base62Alphabet, 163, 1),
					"SLACK_CONFIG_TOKEN=xoxe.xoxb-1-" + fakeChars(base62Alphabet, 166, 2),
					"\"token\": \"xoxe.xoxp-1-" + fakeChars(base62Alphabet, 120, 3) + "\"",
				}
				fp = []string{
					"xoxe.xoxp-" + fakeChars(base62Alphabet, 60, 4),
					"xoxe.xoxp-1-short",
					"xoxe.xoxq-1-" + fakeChars(base62Alphabet, 163, 5),
				}
				return
			},
		},
		{
			id: "twilio-api-key", provider: "Twilio", kind: KindSecret, confidence: "high",
			desc: "Twilio API key SID (SK and 32 lower-case hex)",
			// The keyword includes the first hex digit so that words
			// beginning with "sk" ("skip", "sky") never reach the check.
			forms: []form{tokenSpec{prefixes: skHexPrefixes(), body: makeSet("a-f0-9"), min: 31, max: 31}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"SK" + fakeChars(hex, 32, 6),
					"TWILIO_API_KEY=SK" + fakeChars(hex, 32, 7),
					"client = Client('SK" + fakeChars(hex, 32, 8) + "', secret)",
				}
				fp = []string{
					"SK" + fakeChars(hex, 31, 9),
					"ASK" + fakeChars(hex, 32, 10),
					"sk" + fakeChars(hex, 32, 11),
					"SK" + fakeChars(hex, 33, 12),
				}
				return
			},
		},
		{
			id: "twilio-auth-token", provider: "Twilio", kind: KindSecret, confidence: "medium",
			desc: "Twilio auth token or API key secret: 32 alphanumerics assigned to a name starting with twilio and containing token or secret",
			forms: []form{namedSpec{names: []string{"twilio"}, tail: 24, nameHas: []string{"token", "secret"}, body: setAlnum, min: 32, max: 32,
				validate: func(b []byte) bool { _, _, d := hasClasses(b); return d }}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"TWILIO_AUTH_TOKEN=" + fakeChars(hex, 32, 13),
					"twilio_api_secret: " + fakeChars(base62Alphabet, 32, 14),
					"\"twilioAuthToken\": \"" + fakeChars(hex, 32, 15) + "\"",
				}
				fp = []string{
					"TWILIO_ACCOUNT_SID=AC" + fakeChars(hex, 32, 16),
					"TWILIO_AUTH_TOKEN=${TWILIO_AUTH_TOKEN}",
					"twilio_message_id=" + fakeChars(hex, 32, 17),
				}
				return
			},
		},
		{
			id: "mailgun-api-key", provider: "Mailgun", kind: KindSecret, confidence: "high",
			desc: "Mailgun API key: key- and 32 hex after \"api:\" (basic auth), or a key-… or 32hex-8hex-8hex key assigned to a name starting with mailgun",
			forms: []form{
				tokenSpec{prefixes: []string{"api:key-"}, body: makeSet("a-f0-9"), min: 32, max: 32}.form(),
				namedSpec{names: []string{"mailgun"}, tail: 32, body: makeSet("a-z0-9-"), min: 36, max: 50, validate: mailgunShape}.form(),
			},
			examples: func() (tp, fp []string) {
				tp = []string{
					"curl -s --user 'api:key-" + fakeChars(hex, 32, 18) + "' https://api.mailgun.net/v3/x/messages",
					"MAILGUN_API_KEY=key-" + fakeChars(hex, 32, 19),
					"MAILGUN_WEBHOOK_SIGNING_KEY: " + fakeChars(hex, 32, 20) + "-" + fakeChars(hex, 8, 21) + "-" + fakeChars(hex, 8, 22),
				}
				fp = []string{
					"cache-key-" + fakeChars(hex, 32, 23),
					"MAILGUN_DOMAIN=mg.example.com",
					"mailgun_message_id: " + fakeChars(hex, 32, 24),
				}
				return
			},
		},
		{
			id: "mailchimp-api-key", provider: "Mailchimp", kind: KindSecret, confidence: "high",
			desc:  "Mailchimp API key (32 lower-case hex, -us and a 1-2 digit data center)",
			forms: []form{mailchimpForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					fakeChars(hex, 32, 25) + "-us6",
					"MAILCHIMP_API_KEY=" + fakeChars(hex, 32, 26) + "-us21",
					"mailchimp.setConfig({ apiKey: \"" + fakeChars(hex, 32, 27) + "-us14\" })",
				}
				fp = []string{
					fakeChars(hex, 31, 28) + "-us6",
					"task-user-" + fakeChars(hex, 32, 29),
					"x" + fakeChars(hex, 32, 30) + "-us6",
					fakeChars(hex, 32, 31) + "-us123",
				}
				return
			},
		},
		{
			id: "discord-bot-token", provider: "Discord", kind: KindSecret, confidence: "high",
			desc: "Discord bot token (base64 of a 17-20 digit id . 6-7 . 27-40 of [A-Za-z0-9_-]): alone when the id starts with 1 (MT…), else after \"Bot \" or assigned to a name starting with discord",
			forms: []form{
				// Ids starting with 1 (every id since 2019) encode to "MT":
				// such a token is found without context.
				plainForm(tokenSpec{prefixes: []string{"MT"}, body: makeSet("A-Za-z0-9_.-"), min: 57, max: 78, validate: func(b []byte) (bool, ChecksumResult) {
					var buf [80]byte
					return discordShape(append(append(buf[:0], "MT"...), b...))
				}}),
				plainForm(tokenSpec{prefixes: []string{"Bot "}, fold: true, body: makeSet("A-Za-z0-9_.-"), min: 59, max: 80, validate: discordShape}),
				namedSpec{names: []string{"discord"}, tail: 24, body: makeSet("A-Za-z0-9_.-"), min: 59, max: 80,
					validate: func(b []byte) bool { ok, _ := discordShape(b); return ok }}.form(),
			},
			examples: func() (tp, fp []string) {
				tp = []string{
					"Authorization: Bot " + discordTok("1162123456789012345", 32),
					"DISCORD_TOKEN=" + discordTok("198622483471925248", 34),
					"discord_bot_token: '" + discordTok("4012345678901234567", 36) + "'",
					"{\"value\": \"" + discordTok("1234567890123456789", 37) + "\"}",
				}
				fp = []string{
					"Authorization: Bot " + base64.RawStdEncoding.EncodeToString([]byte("hello world 123456")) + "." + fakeChars(wd, 6, 38) + "." + fakeChars(wd, 38, 39),
					"DISCORD_CLIENT_ID=1162123456789012345",
					"the bot " + fakeChars(wd, 70, 40),
					"MT" + fakeChars(wd, 22, 41) + "." + fakeChars(wd, 6, 42) + "." + fakeChars(wd, 38, 43),
				}
				return
			},
		},
		{
			id: "discord-webhook", provider: "Discord", kind: KindSecret, confidence: "high",
			desc: "Discord webhook URL (discord.com/api/webhooks/ or discordapp.com/api/webhooks/, a 17-20 digit id, '/', 60-68 of [A-Za-z0-9_-]); also with escaped slashes (\\/) in JSON text",
			forms: []form{
				plainForm(tokenSpec{prefixes: []string{"discord.com/api/webhooks/", "discordapp.com/api/webhooks/"}, fold: true,
					body: makeSet("A-Za-z0-9/_-"), min: 78, max: 89, notBefore: makeSet("A-Za-z0-9_-"), notAfter: makeSet("A-Za-z0-9/_-"), validate: discordHookShape}),
				discordHookEscapedForm(),
			},
			examples: func() (tp, fp []string) {
				tp = []string{
					"https://discord.com/api/webhooks/" + fakeChars(digits, 19, 41) + "/" + fakeChars(wd, 68, 42),
					"DISCORD_WEBHOOK=https://discordapp.com/api/webhooks/" + fakeChars(digits, 18, 43) + "/" + fakeChars(wd, 68, 44),
					"POST https://canary.discord.com/api/webhooks/" + fakeChars(digits, 19, 45) + "/" + fakeChars(wd, 64, 46) + "?wait=true",
					`{"snippet":"const hook = \"https:\/\/discord.com\/api\/webhooks\/` + fakeChars(digits, 19, 47) + `\/` + fakeChars(wd, 68, 48) + `\";"}`,
				}
				fp = []string{
					"https://discord.com/api/webhooks/",
					"https://discord.com/api/webhooks/" + fakeChars(digits, 19, 47) + "/{token}",
					"https://discord.com/api/webhooks/" + fakeChars(digits, 19, 48) + "/" + fakeChars(wd, 30, 49),
				}
				return
			},
		},
		{
			id: "telegram-bot-token", provider: "Telegram", kind: KindSecret, confidence: "high",
			desc:  "Telegram bot token (an 8-10 digit bot id, \":AA\" and 33 of [A-Za-z0-9_-])",
			forms: []form{telegramForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					fakeChars(digits, 10, 50) + ":AA" + fakeChars(wd, 33, 51),
					"https://api.telegram.org/bot" + fakeChars(digits, 9, 52) + ":AA" + fakeChars(wd, 33, 53) + "/sendMessage",
					"TELEGRAM_BOT_TOKEN=\"" + fakeChars(digits, 8, 54) + ":AA" + fakeChars(wd, 33, 55) + "\"",
				}
				fp = []string{
					fakeChars(digits, 11, 56) + ":AA" + fakeChars(wd, 33, 57),
					fakeChars(digits, 10, 58) + ":aa" + fakeChars(wd, 33, 59),
					fakeChars(digits, 10, 60) + ":AA" + fakeChars(wd, 40, 61),
					"12:AA" + fakeChars(wd, 33, 62),
				}
				return
			},
		},
		{
			id: "msteams-webhook", provider: "Microsoft Teams", kind: KindSecret, confidence: "high",
			desc: "Microsoft Teams incoming webhook URL (webhook.office.com/webhookb2/… or outlook.office.com/webhook/… with /IncomingWebhook/); also with escaped slashes (\\/) in JSON text",
			forms: withEscapedSlashes(tokenSpec{prefixes: []string{"webhook.office.com/webhookb2/", "outlook.office.com/webhook/", "outlook.office365.com/webhook/"}, fold: true,
				body: makeSet("A-Za-z0-9@/_.-"), min: 100, max: 300, notBefore: makeSet("A-Za-z0-9_-"), notAfter: makeSet("A-Za-z0-9@/_.-"),
				validate: func(b []byte) (bool, ChecksumResult) {
					return bytes.Contains(b, []byte("/IncomingWebhook/")), ChecksumNone
				}}),
			examples: func() (tp, fp []string) {
				tp = []string{
					teams(63),
					"TEAMS_WEBHOOK_URL=" + teams(67) + "/V2" + fakeChars(wd, 40, 71),
					"curl -H 'Content-Type: application/json' -d @card.json \"" + teams(72) + "\"",
					"https://outlook.office.com/webhook/" + uuid(76) + "@" + uuid(77) + "/IncomingWebhook/" + fakeChars(hex, 32, 78) + "/" + uuid(79),
				}
				fp = []string{
					"https://contoso.webhook.office.com/webhookb2/",
					"https://contoso.webhook.office.com/webhookb2/" + uuid(80) + "@" + uuid(81) + "/OtherConnector/" + fakeChars(hex, 32, 82) + "/" + uuid(83),
					"see outlook.office.com/webhook/ for the connector docs",
				}
				return
			},
		},
		{
			id: "postmark-token", provider: "Postmark", kind: KindSecret, confidence: "high",
			desc: "Postmark server or account token (a UUID) assigned to a name starting with postmark and containing token or key (X-Postmark-Server-Token)",
			forms: []form{namedSpec{names: []string{"postmark"}, tail: 24, nameHas: []string{"token", "key"}, body: makeSet("a-fA-F0-9-"), min: 36, max: 36,
				validate: uuidShaped}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"X-Postmark-Server-Token: " + uuid(84),
					"POSTMARK_API_TOKEN=" + uuid(85),
					"\"postmarkAccountToken\": \"" + uuid(86) + "\"",
				}
				fp = []string{
					"postmark_message_id: " + uuid(87),
					"X-Postmark-Server-Token: " + fakeChars(hex, 36, 88),
					"POSTMARK_API_TOKEN=" + uuid(89)[:35],
				}
				return
			},
		},
		{
			id: "twitch-oauth-token", provider: "Twitch", kind: KindSecret, confidence: "medium",
			desc:  "Twitch chat OAuth token (oauth: and 30 of [a-z0-9] mixing letters and digits)",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"oauth:"}, body: makeSet("a-z0-9"), min: 30, max: 30, validate: hasLetterDigit})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"PASS oauth:" + fakeChars(lowAlnum, 30, 90),
					"TWITCH_OAUTH=oauth:" + fakeChars(lowAlnum, 30, 91),
					"password: 'oauth:" + fakeChars(lowAlnum, 30, 92) + "'",
				}
				fp = []string{
					"oauth:" + fakeChars(lowAlnum, 29, 93),
					"oauth: enabled",
					"oauth:abcdefghijklmnopqrstuvwxyzabcd",
					"oauth:" + fakeChars(lowAlnum, 30, 94) + "X",
				}
				return
			},
		},
		{
			id: "twitter-bearer-token", provider: "X (Twitter)", kind: KindSecret, confidence: "medium",
			desc: "X (Twitter) app-only bearer token (21 A, then 60-140 of [A-Za-z0-9%] containing a percent-escape)",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"AAAAAAAAAAAAAAAAAAAAA"}, body: makeSet("A-Za-z0-9%"), min: 60, max: 140,
				notBefore: makeSet("A-Za-z0-9_+/%-"), notAfter: makeSet("A-Za-z0-9_+/%=-"),
				validate: func(b []byte) (bool, ChecksumResult) {
					return bytes.Contains(b, []byte("%2")) || bytes.Contains(b, []byte("%3")), ChecksumNone
				}})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"AAAAAAAAAAAAAAAAAAAAA" + fakeChars(base62Alphabet, 20, 95) + "%2B" + fakeChars(base62Alphabet, 20, 96) + "%3D" + fakeChars(base62Alphabet, 50, 97),
					"Authorization: Bearer AAAAAAAAAAAAAAAAAAAAA" + fakeChars(base62Alphabet, 30, 98) + "%3D" + fakeChars(base62Alphabet, 50, 99),
					"TWITTER_BEARER_TOKEN=AAAAAAAAAAAAAAAAAAAAAM" + fakeChars(base62Alphabet, 10, 100) + "%2F" + fakeChars(base62Alphabet, 60, 101),
				}
				fp = []string{
					"data:image/png;base64,iVBORw0KGgo" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" + fakeChars(base62Alphabet+"+/", 80, 102),
					"AAAAAAAAAAAAAAAAAAAAA" + fakeChars(base62Alphabet, 90, 103),
					"AAAAAAAAAAAAAAAAAAAAA" + fakeChars(base62Alphabet, 40, 104) + "%3D" + fakeChars(base62Alphabet, 40, 105) + "/x+y",
				}
				return
			},
		},
		{
			id: "zapier-webhook", provider: "Zapier", kind: KindSecret, confidence: "high",
			desc: "Zapier catch hook URL (hooks.zapier.com/hooks/catch/ digits / 5-32 alphanumerics); also with escaped slashes (\\/) in JSON text",
			forms: withEscapedSlashes(tokenSpec{prefixes: []string{"hooks.zapier.com/hooks/catch/"}, fold: true, body: makeSet("A-Za-z0-9/"), min: 8, max: 64,
				notBefore: makeSet("A-Za-z0-9_-"), notAfter: makeSet("A-Za-z0-9_-"), validate: zapierShape}),
			examples: func() (tp, fp []string) {
				tp = []string{
					"https://hooks.zapier.com/hooks/catch/" + fakeChars(digits, 7, 109) + "/" + fakeChars(lowAlnum, 6, 110) + "/",
					"ZAPIER_HOOK=https://hooks.zapier.com/hooks/catch/" + fakeChars(digits, 8, 111) + "/" + fakeChars(lowAlnum, 7, 112),
					"POST hooks.zapier.com/hooks/catch/" + fakeChars(digits, 6, 113) + "/" + fakeChars(lowAlnum, 6, 114) + "/silent/",
					`{"hook":"https:\/\/hooks.zapier.com\/hooks\/catch\/` + fakeChars(digits, 7, 130) + `\/` + fakeChars(lowAlnum, 6, 131) + `\/"}`,
				}
				fp = []string{
					"https://hooks.zapier.com/hooks/catch/",
					"https://hooks.zapier.com/hooks/catch/123456/",
					"https://hooks.zapier.com/hooks/catch/abc/def/",
				}
				return
			},
		},
		{
			id: "google-chat-webhook", provider: "Google Chat", kind: KindSecret, confidence: "high",
			desc: "Google Chat incoming webhook URL (chat.googleapis.com/v1/spaces/…/messages?key=…&token=…); also with escaped slashes (\\/) in JSON text",
			forms: withEscapedSlashes(tokenSpec{prefixes: []string{"chat.googleapis.com/v1/spaces/"}, fold: true, body: makeSet("A-Za-z0-9/?&=%._-"), min: 60, max: 400,
				notBefore: makeSet("A-Za-z0-9_-"), notAfter: makeSet("A-Za-z0-9/?&=%._-"),
				validate: func(b []byte) (bool, ChecksumResult) {
					return bytes.Contains(b, []byte("/messages?")) && bytes.Contains(b, []byte("token=")), ChecksumNone
				}}),
			examples: func() (tp, fp []string) {
				tp = []string{
					"https://chat.googleapis.com/v1/spaces/AAAA" + fakeChars(wd, 7, 115) + "/messages?key=AIza" + fakeChars(wd, 35, 116) + "&token=" + fakeChars(wd, 43, 117) + "%3D",
					"GCHAT_WEBHOOK=\"https://chat.googleapis.com/v1/spaces/AAAA" + fakeChars(wd, 7, 118) + "/messages?key=AIza" + fakeChars(wd, 35, 119) + "&token=" + fakeChars(wd, 43, 120) + "\"",
					"curl -X POST 'https://chat.googleapis.com/v1/spaces/AAQA" + fakeChars(wd, 7, 121) + "/messages?token=" + fakeChars(wd, 43, 122) + "&key=AIza" + fakeChars(wd, 35, 123) + "'",
					`"https:\/\/chat.googleapis.com\/v1\/spaces\/AAAA` + fakeChars(wd, 7, 132) + `\/messages?key=AIza` + fakeChars(wd, 35, 133) + `&token=` + fakeChars(wd, 43, 134) + `"`,
				}
				fp = []string{
					"https://chat.googleapis.com/v1/spaces/AAAA" + fakeChars(wd, 7, 124) + "/messages",
					"GET https://chat.googleapis.com/v1/spaces/AAAA" + fakeChars(wd, 7, 125) + "/members?pageSize=100&pageToken=x",
					"https://chat.googleapis.com/v1/spaces/{space}/messages?key={key}&token={token}",
				}
				return
			},
		},
		{
			id: "intercom-access-token", provider: "Intercom", kind: KindSecret, confidence: "high",
			desc: "Intercom access token (base64 of \"tok:\" and printable text: dG9rO and 40-120 base64 bytes)",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"dG9rO"}, body: setBase64Pad, min: 40, max: 120, notBefore: setB64NB,
				validate: func(b []byte) (bool, ChecksumResult) { return intercomShape(b), ChecksumNone }})},
			examples: func() (tp, fp []string) {
				tp = []string{
					base64.StdEncoding.EncodeToString([]byte("tok:" + uuid(126) + ":1:0")),
					"INTERCOM_ACCESS_TOKEN=" + base64.StdEncoding.EncodeToString([]byte("tok:"+fakeChars(hex, 8, 127)+"_"+fakeChars(hex, 4, 128)+"_"+fakeChars(hex, 4, 129)+"_"+fakeChars(hex, 12, 130)+":1:0")),
					"Authorization: Bearer " + base64.StdEncoding.EncodeToString([]byte("tok:"+uuid(131)+":1:0")),
				}
				fp = []string{
					base64.StdEncoding.EncodeToString([]byte("token: " + uuid(132))),
					"dG9rO" + fakeChars(base62Alphabet, 20, 133),
					base64.StdEncoding.EncodeToString(append([]byte("tok:\x00\x01\x02"), fakeChars(hex, 40, 134)...)),
				}
				return
			},
		},
		{
			id: "brevo-api-key", provider: "Brevo (Sendinblue)", kind: KindSecret, confidence: "high",
			desc:  "Brevo (Sendinblue) API and SMTP keys (xkeysib- or xsmtpsib-, 64 hex, '-', 16 alphanumerics)",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"xkeysib-", "xsmtpsib-"}, body: makeSet("A-Za-z0-9-"), min: 81, max: 81, validate: brevoShape})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"xkeysib-" + fakeChars(hex, 64, 135) + "-" + fakeChars(base62Alphabet, 16, 136),
					"BREVO_API_KEY=xkeysib-" + fakeChars(hex, 64, 137) + "-" + fakeChars(base62Alphabet, 16, 138),
					"smtp password: xsmtpsib-" + fakeChars(hex, 64, 139) + "-" + fakeChars(base62Alphabet, 16, 140),
				}
				fp = []string{
					"xkeysib-" + fakeChars(hex, 63, 141) + "-" + fakeChars(base62Alphabet, 17, 142),
					"xkeysib-" + fakeChars(hex, 64, 143),
					"xkeysib-your-api-key-here",
				}
				return
			},
		},
	}
}

// skHexPrefixes: "SK" and one lower-case hex digit.
func skHexPrefixes() []string {
	var p []string
	for _, c := range "0123456789abcdef" {
		p = append(p, "SK"+string(c))
	}
	return p
}

func slackConfigShape(b []byte) (bool, ChecksumResult) {
	return setDecimal[b[0]] && b[1] == '-' && bytes.IndexByte(b[2:], '-') < 0, ChecksumNone
}

func hasLetterDigit(b []byte) (bool, ChecksumResult) {
	u, l, d := hasClasses(b)
	return d && (u || l), ChecksumNone
}

// mailgunShape: key- and 32 hex, or 32 hex - 8 hex - 8 hex.
func mailgunShape(b []byte) bool {
	if len(b) == 36 && string(b[:4]) == "key-" {
		return allBytesIn(b[4:], setHexLC)
	}
	return len(b) == 50 && b[32] == '-' && b[41] == '-' && allBytesIn(b[:32], setHexLC) && allBytesIn(b[33:41], setHexLC) && allBytesIn(b[42:], setHexLC)
}

var setHexLC = makeSet("a-f0-9")

func allBytesIn(b []byte, s *byteSet) bool {
	for _, c := range b {
		if !s[c] {
			return false
		}
	}
	return true
}

// notIn returns the complement of s.
func notIn(s *byteSet) *byteSet {
	var c byteSet
	for i := range c {
		c[i] = !s[i]
	}
	return &c
}

// uuidShaped: 8-4-4-4-12 hex.
func uuidShaped(b []byte) bool {
	if len(b) != 36 {
		return false
	}
	for i, c := range b {
		if (i == 8 || i == 13 || i == 18 || i == 23) != (c == '-') {
			return false
		}
	}
	return true
}

// mailchimpForm: keyword "-us", preceded by exactly 32 lower-case hex (and
// before them no [A-Za-z0-9_-]), followed by 1-2 digits and no
// [A-Za-z0-9_-]. The match is the whole key.
func mailchimpForm() form {
	nb := makeSet("A-Za-z0-9_-")
	return form{
		keywords: []string{"-us"},
		back:     33,
		ahead:    3 + 3,
		// Only a hex digit may come before "-us": "task-user" costs no call.
		notBefore: notIn(setHexLC),
		check: func(v *view, ks, ke int) result {
			d := v.data
			if ks < 32 || string(d[ks:ke]) != "-us" || !allBytesIn(d[ks-32:ks], setHexLC) || ks > 32 && nb[d[ks-33]] {
				return noMatch
			}
			c := scanCursor{d: d}
			e := c.run(ke, setDecimal, 2)
			if e == ke || e-ke > 2 || c.is(e, nb) {
				return c.done(v, noMatch)
			}
			return c.done(v, result{status: resMatch, start: ks - 32, end: e})
		},
	}
}

// discordShape: three dot-separated segments: 24-28 bytes decoding (raw
// base64) to 17-20 ASCII digits, 6-7 bytes, 27-40 bytes.
func discordShape(b []byte) (bool, ChecksumResult) {
	p := bytes.Split(b, []byte("."))
	if len(p) != 3 || len(p[0]) < 24 || len(p[0]) > 28 || len(p[1]) < 6 || len(p[1]) > 7 || len(p[2]) < 27 || len(p[2]) > 40 {
		return false, ChecksumNone
	}
	var buf [24]byte
	n, err := base64.RawStdEncoding.Decode(buf[:], p[0])
	if err != nil || n < 17 || n > 20 {
		return false, ChecksumNone
	}
	return allBytesIn(buf[:n], setDecimal), ChecksumNone
}

// discordHookShape: 17-20 digits, '/', 60-68 of [A-Za-z0-9_-].
func discordHookShape(b []byte) (bool, ChecksumResult) {
	i := bytes.IndexByte(b, '/')
	if i < 17 || i > 20 || !allBytesIn(b[:i], setDecimal) {
		return false, ChecksumNone
	}
	t := b[i+1:]
	return len(t) >= 60 && len(t) <= 68 && allBytesIn(t, setWordDash), ChecksumNone
}

// discordHookEscapedForm: "discord.com\/api\/webhooks\/" or
// "discordapp.com\/api\/webhooks\/" (any case, not preceded by
// [A-Za-z0-9_-]), 17-20 digits, "\/", 60-68 of [A-Za-z0-9_-] not followed
// by another such byte. The match runs from the host.
func discordHookEscapedForm() form {
	nb := makeSet("A-Za-z0-9_-")
	kws := []string{`discord.com\/api\/webhooks\/`, `discordapp.com\/api\/webhooks\/`}
	return form{
		keywords:  kws,
		back:      1,
		ahead:     len(kws[1]) + 21 + 2 + 69 + 1,
		notBefore: nb,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if ks > 0 && nb[d[ks-1]] {
				return noMatch
			}
			c := scanCursor{d: d}
			i := c.run(ke, setDecimal, 20)
			if i-ke < 17 || i-ke > 20 || c.at(i) != '\\' || c.at(i+1) != '/' {
				return c.done(v, noMatch)
			}
			e := c.run(i+2, setWordDash, 68)
			if e-(i+2) < 60 || e-(i+2) > 68 {
				return c.done(v, noMatch)
			}
			return c.done(v, result{status: resMatch, start: ks, end: e})
		},
	}
}

// zapierShape: digits, '/', 5-32 alphanumerics, then optionally '/' and
// more path.
func zapierShape(b []byte) (bool, ChecksumResult) {
	i := bytes.IndexByte(b, '/')
	if i < 1 || !allBytesIn(b[:i], setDecimal) {
		return false, ChecksumNone
	}
	t := b[i+1:]
	if j := bytes.IndexByte(t, '/'); j >= 0 {
		t = t[:j]
	}
	return len(t) >= 5 && len(t) <= 32 && allBytesIn(t, setAlnum), ChecksumNone
}

// intercomShape: "dG9rO" + b decodes (standard base64, padded or not) to
// "tok:" and at least 30 printable ASCII bytes.
func intercomShape(b []byte) bool {
	var src [128]byte
	s := append(append(src[:0], "dG9rO"...), b...)
	var out [96]byte
	enc := base64.StdEncoding
	if bytes.IndexByte(s, '=') < 0 {
		enc = base64.RawStdEncoding
	}
	n, err := enc.Decode(out[:], s)
	if err != nil || n < 34 || string(out[:4]) != "tok:" {
		return false
	}
	for _, c := range out[4:n] {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// brevoShape: 64 lower-case hex, '-', 16 alphanumerics.
func brevoShape(b []byte) (bool, ChecksumResult) {
	return len(b) == 81 && b[64] == '-' && allBytesIn(b[:64], setHexLC) && allBytesIn(b[65:], setAlnum), ChecksumNone
}

// telegramForm: keyword ":AA" (case-sensitive), preceded by 8-10 digits
// (and before them no digit), followed by 33 of [A-Za-z0-9_-] and no
// [A-Za-z0-9_-]. The match runs from the first digit.
func telegramForm() form {
	return form{
		keywords:  []string{":aa"},
		back:      11,
		ahead:     3 + 33 + 1,
		notBefore: notIn(setDecimal),
		check: func(v *view, ks, ke int) result {
			d := v.data
			if string(d[ks:ke]) != ":AA" {
				return noMatch
			}
			s := ks
			for s > 0 && ks-s <= 10 && setDecimal[d[s-1]] {
				s--
			}
			if ks-s < 8 || ks-s > 10 {
				return noMatch
			}
			c := scanCursor{d: d}
			e := c.run(ke, setWordDash, 33)
			if e-ke != 33 || c.is(e, setWordDash) {
				return c.done(v, noMatch)
			}
			return c.done(v, result{status: resMatch, start: s, end: e})
		},
	}
}
