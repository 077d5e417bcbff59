package scanners

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// Reference forms of the messaging, registry, database, observability,
// identity and extra private-key rules: regexps and plain string code, no
// shared helper of the rules themselves (see reference_test.go).

func init() { refFormsMore = append(refFormsMore, refFormsGroupB) }

var (
	refAlnumByteB   = regexp.MustCompile(`^[A-Za-z0-9]$`)
	refWordByteB    = regexp.MustCompile(`^[A-Za-z0-9_]$`)
	refUUIDB        = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	refPlaceholderB = regexp.MustCompile(`^(?s:.*(?:\$\{|\{\{|\$\().*|<.*>|\[.*\]|\{.*\}|%.*%|%\(.*|%s|\$[A-Za-z0-9_]+|\*+|\.+|[xX]+|)$`)
	refPortPathB    = regexp.MustCompile(`^[0-9]+/`)
)

// refBodyB wraps a check of the token body (the match without its first n
// bytes) as a refToken post func.
func refBodyB(n int, f func(string) bool) func(string) (bool, ChecksumResult) {
	return func(m string) (bool, ChecksumResult) { return f(m[n:]), ChecksumNone }
}

func refClassesB(b string) int {
	n := 0
	for _, re := range []*regexp.Regexp{refUpper, refLower, refDigit} {
		if re.MatchString(b) {
			n++
		}
	}
	return n
}

func refLetterDigitB(b string) bool {
	return refDigit.MatchString(b) && (refUpper.MatchString(b) || refLower.MatchString(b))
}

func refPadEndB(b string) bool {
	t := strings.TrimRight(b, "=")
	return len(b)-len(t) <= 3 && !strings.Contains(t, "=")
}

// refAssigns mirrors assignSep.
func refAssigns(sep string) bool {
	return strings.ContainsAny(sep, ":=>") || strings.Contains(sep, ",") && strings.ContainsAny(sep, "\"'`")
}

// refNamedB mirrors namedSpec.
func refNamedB(names []string, tail int, nameHas []string, body string, min, max int, post func(string) bool) refForm {
	rx := regexp.MustCompile(fmt.Sprintf("^[A-Za-z0-9_.-]{0,%d}([\\t \"'`:=>,\\\\]{1,8})([%s]{%d,%d})", tail, body, min, max))
	na := regexp.MustCompile("^[A-Za-z0-9_" + body + "]$")
	return refForm{keywords: names, atKw: func(s string, p, kwLen int) (int, int, ChecksumResult, bool) {
		if p > 0 && refAlnumByteB.MatchString(s[p-1:p]) {
			return 0, 0, 0, false
		}
		b := p + kwLen
		m := rx.FindStringSubmatchIndex(s[b:])
		if m == nil || !refAssigns(s[b+m[2]:b+m[3]]) {
			return 0, 0, 0, false
		}
		a, e := b+m[4], b+m[5]
		if e < len(s) && na.MatchString(s[e:e+1]) {
			return 0, 0, 0, false
		}
		if nameHas != nil {
			name, ok := strings.ToLower(s[p:b+m[2]]), false
			for _, w := range nameHas {
				ok = ok || strings.Contains(name, w)
			}
			if !ok {
				return 0, 0, 0, false
			}
		}
		if post != nil && !post(s[a:e]) {
			return 0, 0, 0, false
		}
		return a, e, ChecksumNone, true
	}}
}

// refURLB mirrors dbURLForm.
func refURLB(schemes []string, drivers bool) refForm {
	var kws []string
	for _, s := range schemes {
		kws = append(kws, s+"://", s+`:\/\/`)
		if drivers {
			kws = append(kws, s+"+")
		}
	}
	drv := ""
	if drivers {
		drv = `(?:\+[A-Za-z0-9_]{1,24})?`
	}
	head := regexp.MustCompile(`^(?i:` + strings.Join(schemes, "|") + `)` + drv + `:(?://|\\/\\/)`)
	auth := regexp.MustCompile("^[^\\t\\n\\f\\r \"'`<>\\\\?#]{0,256}")
	nb := regexp.MustCompile(`^[A-Za-z0-9_+.-]$`)
	return refForm{keywords: kws, at: func(s string, p int) (int, int, ChecksumResult, bool) {
		if p > 0 && nb.MatchString(s[p-1:p]) {
			return 0, 0, 0, false
		}
		h := head.FindStringIndex(s[p:])
		if h == nil {
			return 0, 0, 0, false
		}
		st := p + h[1]
		t := auth.FindString(s[st:])
		at := strings.LastIndex(t, "@")
		if at < 0 {
			return 0, 0, 0, false
		}
		colon := strings.Index(t[:at], ":")
		if colon < 0 || strings.Contains(t[:colon], "/") {
			return 0, 0, 0, false
		}
		pw := t[colon+1 : at]
		if refPlaceholderB.MatchString(pw) || refPortPathB.MatchString(pw) {
			return 0, 0, 0, false
		}
		return st + colon + 1, st + at, ChecksumNone, true
	}}
}

// refOpenTailB is where a fail-closed match that reached win ends (see
// refPEM): the rest of the string if it ends by win, else the base64 and
// whitespace after win and an END marker right after them.
func refOpenTailB(s string, win int) int {
	if len(s) <= win {
		return len(s)
	}
	i := win + len(refPEMBody.FindString(s[win:]))
	if strings.HasPrefix(s[i:], "-----END") {
		e := i + 8
		if c := strings.Index(s[e:min(len(s), e+85)], "-----"); c >= 0 {
			return e + c + 5
		}
		return e
	}
	return i
}

// refDSN parses a Sentry DSN at a (see dsnParse).
func refDSN(s string, a int) (int, bool) {
	m := regexp.MustCompile(`^(?i:https?)(?:://|:\\/\\/)[0-9a-f]{32}(?::[0-9a-f]{32})?@[A-Za-z0-9.-]{1,253}(?::[0-9]{1,5})?(?:/|\\/)((?:[A-Za-z0-9_./-]|\\/){0,128})`).FindStringSubmatchIndex(s[a:])
	if m == nil {
		return 0, false
	}
	e := a + m[1]
	path := s[a+m[2] : e]
	last := path[strings.LastIndex(path, "/")+1:]
	if regexp.MustCompile(`^(?:[A-Za-z0-9_./-]|\\/)`).MatchString(s[e:]) || !regexp.MustCompile(`^[0-9]+$`).MatchString(last) {
		return 0, false
	}
	return e, true
}

func refBech32OKB(data string) bool {
	const cs = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
	var vals []int
	hrp := "age-secret-key-"
	for _, c := range hrp {
		vals = append(vals, int(c)>>5)
	}
	vals = append(vals, 0)
	for _, c := range hrp {
		vals = append(vals, int(c)&31)
	}
	for _, c := range strings.ToLower(data) {
		vals = append(vals, strings.IndexRune(cs, c))
	}
	gen := []int{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := 1
	for _, v := range vals {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ v
		for i := 0; i < 5; i++ {
			if (top>>i)&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk == 1
}

func refFormsGroupB() map[string][]refForm {
	tok := func(kws []string, re, nb, na string, post func(string) (bool, ChecksumResult)) []refForm {
		return []refForm{refToken(kws, re, nb, na, post)}
	}
	const w = `A-Za-z0-9_`
	uuidOK := func(b string) bool { return refUUIDB.MatchString(b) }
	discordOK := func(b string) bool {
		m := regexp.MustCompile(`^([A-Za-z0-9_-]{24,28})\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}$`).FindStringSubmatch(b)
		if m == nil {
			return false
		}
		dec, err := base64.RawStdEncoding.DecodeString(m[1])
		return err == nil && regexp.MustCompile(`^[0-9]{17,20}$`).Match(dec)
	}
	oktaOK := func(b string) bool { return strings.HasPrefix(b, "00") && refClassesB(b[2:]) >= 2 }
	mailgunOK := func(b string) bool {
		return regexp.MustCompile(`^(?:key-[a-f0-9]{32}|[a-f0-9]{32}-[a-f0-9]{8}-[a-f0-9]{8})$`).MatchString(b)
	}
	vault := func(p string) []refForm {
		return tok([]string{p}, regexp.QuoteMeta(p)+`[A-Za-z0-9_-]{24,512}`, `A-Za-z0-9_-`, `A-Za-z0-9_-`, refBodyB(4, func(b string) bool { return refClassesB(b) >= 2 }))
	}
	return map[string][]refForm{
		// Messaging.
		"slack-config-token": tok([]string{"xoxe.xoxp-", "xoxe.xoxb-"}, `xoxe\.xox[pb]-[0-9]-[A-Za-z0-9]{38,253}`, `A-Za-z0-9_-`, `A-Za-z0-9_-`, refBodyB(0, func(string) bool { return true })),
		"twilio-api-key": tok([]string{"sk0", "sk1", "sk2", "sk3", "sk4", "sk5", "sk6", "sk7", "sk8", "sk9", "ska", "skb", "skc", "skd", "ske", "skf"},
			`SK[0-9a-f]{32}`, w, w, nil),
		"twilio-auth-token": {refNamedB([]string{"twilio"}, 24, []string{"token", "secret"}, `A-Za-z0-9`, 32, 32, func(b string) bool { return refDigit.MatchString(b) })},
		"mailgun-api-key": {
			refToken([]string{"api:key-"}, `api:key-[a-f0-9]{32}`, w, w, nil),
			refNamedB([]string{"mailgun"}, 32, nil, `a-z0-9-`, 36, 50, mailgunOK),
		},
		"mailchimp-api-key": {{keywords: []string{"-us"}, at: func(s string, p int) (int, int, ChecksumResult, bool) {
			if p < 32 || !strings.HasPrefix(s[p:], "-us") {
				return 0, 0, 0, false
			}
			m := regexp.MustCompile(`^[0-9a-f]{32}-us[0-9]{1,2}`).FindStringIndex(s[p-32:])
			edge := regexp.MustCompile(`^[A-Za-z0-9_-]$`)
			if m == nil || p > 32 && edge.MatchString(s[p-33:p-32]) {
				return 0, 0, 0, false
			}
			e := p - 32 + m[1]
			if e < len(s) && edge.MatchString(s[e:e+1]) {
				return 0, 0, 0, false
			}
			return p - 32, e, ChecksumNone, true
		}}},
		"discord-bot-token": {
			refToken([]string{"mt"}, `MT[A-Za-z0-9_.-]{57,78}`, `A-Za-z0-9_.-`, `A-Za-z0-9_.-`, refBodyB(0, discordOK)),
			refToken([]string{"bot "}, `(?i:bot )[A-Za-z0-9_.-]{59,80}`, `A-Za-z0-9_.-`, `A-Za-z0-9_.-`, refBodyB(4, discordOK)),
			refNamedB([]string{"discord"}, 24, nil, `A-Za-z0-9_.-`, 59, 80, discordOK),
		},
		"discord-webhook": {
			refToken([]string{"discord.com/api/webhooks/", "discordapp.com/api/webhooks/"},
				`(?i:discord(?:app)?\.com/api/webhooks/)[0-9]{17,20}/[A-Za-z0-9_-]{60,68}`, `A-Za-z0-9_-`, `A-Za-z0-9/_-`, refBodyB(0, func(string) bool { return true })),
			refToken([]string{`discord.com\/api\/webhooks\/`, `discordapp.com\/api\/webhooks\/`},
				`(?i:discord(?:app)?\.com\\/api\\/webhooks\\/)[0-9]{17,20}\\/[A-Za-z0-9_-]{60,68}`, `A-Za-z0-9_-`, `A-Za-z0-9_-`, nil),
		},
		"telegram-bot-token": {{keywords: []string{":aa"}, at: func(s string, p int) (int, int, ChecksumResult, bool) {
			if !strings.HasPrefix(s[p:], ":AA") {
				return 0, 0, 0, false
			}
			a := p
			for a > 0 && p-a < 11 && s[a-1] >= '0' && s[a-1] <= '9' {
				a--
			}
			if p-a < 8 || p-a > 10 {
				return 0, 0, 0, false
			}
			m := regexp.MustCompile(`^[A-Za-z0-9_-]{33}`).FindString(s[p+3:])
			e := p + 3 + len(m)
			if m == "" || e < len(s) && regexp.MustCompile(`^[A-Za-z0-9_-]$`).MatchString(s[e:e+1]) {
				return 0, 0, 0, false
			}
			return a, e, ChecksumNone, true
		}}},
		"msteams-webhook": append(tok([]string{"webhook.office.com/webhookb2/", "outlook.office.com/webhook/", "outlook.office365.com/webhook/"},
			`(?i:webhook\.office\.com/webhookb2/|outlook\.office(?:365)?\.com/webhook/)[A-Za-z0-9@/_.-]{100,300}`, `A-Za-z0-9_-`, `A-Za-z0-9@/_.-`,
			refBodyB(0, func(m string) bool { return strings.Contains(m, "/IncomingWebhook/") })),
			refEscapedSlashes(`webhook\.office\.com\\/webhookb2\\/|outlook\.office(?:365)?\.com\\/webhook\\/`, `A-Za-z0-9@_.-`, 100, 300, `A-Za-z0-9_-`, `A-Za-z0-9@/_.-`,
				refBodyB(0, func(m string) bool { return strings.Contains(m, "/IncomingWebhook/") }))),
		"postmark-token":     {refNamedB([]string{"postmark"}, 24, []string{"token", "key"}, `a-fA-F0-9-`, 36, 36, uuidOK)},
		"twitch-oauth-token": tok([]string{"oauth:"}, `oauth:[a-z0-9]{30}`, w, w, refBodyB(6, refLetterDigitB)),
		"twitter-bearer-token": tok([]string{strings.Repeat("a", 21)}, `A{21}[A-Za-z0-9%]{60,140}`, `A-Za-z0-9_+/%-`, `A-Za-z0-9_+/%=-`,
			refBodyB(21, func(b string) bool { return strings.Contains(b, "%2") || strings.Contains(b, "%3") })),
		"zapier-webhook": append(tok([]string{"hooks.zapier.com/hooks/catch/"}, `(?i:hooks\.zapier\.com/hooks/catch/)[A-Za-z0-9/]{8,64}`, `A-Za-z0-9_-`, `A-Za-z0-9/_-`,
			refBodyB(len("hooks.zapier.com/hooks/catch/"), func(b string) bool {
				return regexp.MustCompile(`^[0-9]+/[A-Za-z0-9]{5,32}(?:/|$)`).MatchString(b)
			})),
			refEscapedSlashes(`hooks\.zapier\.com\\/hooks\\/catch\\/`, `A-Za-z0-9`, 8, 64, `A-Za-z0-9_-`, `A-Za-z0-9_-`,
				refBodyB(len("hooks.zapier.com/hooks/catch/"), func(b string) bool {
					return regexp.MustCompile(`^[0-9]+/[A-Za-z0-9]{5,32}(?:/|$)`).MatchString(b)
				}))),
		"google-chat-webhook": append(tok([]string{"chat.googleapis.com/v1/spaces/"}, `(?i:chat\.googleapis\.com/v1/spaces/)[A-Za-z0-9/?&=%._-]{60,400}`, `A-Za-z0-9_-`, `A-Za-z0-9/?&=%._-`,
			refBodyB(len("chat.googleapis.com/v1/spaces/"), func(b string) bool {
				return strings.Contains(b, "/messages?") && strings.Contains(b, "token=")
			})),
			refEscapedSlashes(`chat\.googleapis\.com\\/v1\\/spaces\\/`, `A-Za-z0-9?&=%._-`, 60, 400, `A-Za-z0-9_-`, `A-Za-z0-9/?&=%._-`,
				refBodyB(len("chat.googleapis.com/v1/spaces/"), func(b string) bool {
					return strings.Contains(b, "/messages?") && strings.Contains(b, "token=")
				}))),
		"intercom-access-token": tok([]string{"dg9ro"}, `dG9rO[A-Za-z0-9+/=]{40,120}`, `A-Za-z0-9+/_`, `A-Za-z0-9+/=_`, refBodyB(0, func(m string) bool {
			enc := base64.RawStdEncoding
			if strings.Contains(m, "=") {
				enc = base64.StdEncoding
			}
			dec, err := enc.DecodeString(m)
			return err == nil && len(dec) >= 34 && regexp.MustCompile(`^tok:[\x20-\x7e]*$`).Match(dec)
		})),
		"brevo-api-key": tok([]string{"xkeysib-", "xsmtpsib-"}, `x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}`, `A-Za-z0-9_-`, `A-Za-z0-9_-`, refBodyB(0, func(string) bool { return true })),

		// Registries.
		"rubygems-api-key":      tok([]string{"rubygems_"}, `rubygems_[a-f0-9]{48}`, w, w, nil),
		"nuget-api-key":         tok([]string{"oy2"}, `oy2[a-z0-9]{43}`, w, w, refBodyB(3, refLetterDigitB)),
		"dockerhub-pat":         tok([]string{"dckr_pat_", "dckr_oat_"}, `dckr_[po]at_[A-Za-z0-9_-]{24,40}`, `A-Za-z0-9_-`, `A-Za-z0-9_-`, nil),
		"jfrog-api-key":         tok([]string{"akcp"}, `AKCp[A-Za-z0-9]{69}`, w, w, nil),
		"jfrog-reference-token": tok([]string{"cmvmdgtu"}, `cmVmdGtu[A-Za-z0-9]{56}`, `A-Za-z0-9+/_`, `A-Za-z0-9+/=_`, nil),
		"crates-io-token":       tok([]string{"cio"}, `cio[A-Za-z0-9]{32}`, w, w, refBodyB(3, func(b string) bool { return refClassesB(b) >= 2 })),
		"clojars-token":         tok([]string{"clojars_"}, `CLOJARS_[a-z0-9]{60}`, w, w, nil),
		"npm-config-auth": {{keywords: []string{"_authtoken", "_auth", ":_password", "npmauthtoken"}, atKw: func(s string, p, kwLen int) (int, int, ChecksumResult, bool) {
			if p > 0 && refWordByteB.MatchString(s[p-1:p]) {
				return 0, 0, 0, false
			}
			m := regexp.MustCompile("^[ \\t]{0,8}[=:][ \\t]{0,8}[\"']?([^\\x00-\\x20\"'`\\x7f-\\x{10FFFF}]{8,512})").FindStringSubmatchIndex(s[p+kwLen:])
			if m == nil {
				return 0, 0, 0, false
			}
			a, e := p+kwLen+m[2], p+kwLen+m[3]
			if e < len(s) && s[e] > 0x20 && s[e] < 0x7f && !strings.ContainsRune("\"'`", rune(s[e])) || refPlaceholderB.MatchString(s[a:e]) {
				return 0, 0, 0, false
			}
			return a, e, ChecksumNone, true
		}}},
		"docker-config-auth": {{keywords: []string{"\"auth"}, at: func(s string, p int) (int, int, ChecksumResult, bool) {
			m := regexp.MustCompile(`^(?i:"auth)\\{0,7}"[ \t]{0,8}:[ \t]{0,8}\\{0,7}"([A-Za-z0-9+/=]{8,})\\{0,7}"`).FindStringSubmatchIndex(s[p:])
			if m == nil || m[3]-m[2] > 1024 {
				return 0, 0, 0, false
			}
			dec, err := base64.StdEncoding.DecodeString(s[p+m[2] : p+m[3]])
			if err != nil || !regexp.MustCompile(`^[\x20-\x39\x3b-\x7e]+:[\x20-\x7e]+$`).Match(dec) {
				return 0, 0, 0, false
			}
			return p + m[2], p + m[3], ChecksumNone, true
		}}},

		// Databases.
		"postgres-url":    {refURLB([]string{"postgres", "postgresql"}, true)},
		"mysql-url":       {refURLB([]string{"mysql", "mysqlx"}, true)},
		"mariadb-url":     {refURLB([]string{"mariadb"}, true)},
		"mongodb-url":     {refURLB([]string{"mongodb"}, true)},
		"redis-url":       {refURLB([]string{"redis", "rediss", "valkey", "valkeys"}, true)},
		"amqp-url":        {refURLB([]string{"amqp", "amqps"}, false)},
		"sqlserver-url":   {refURLB([]string{"sqlserver", "mssql"}, true)},
		"clickhouse-url":  {refURLB([]string{"clickhouse"}, true)},
		"cockroachdb-url": {refURLB([]string{"cockroachdb", "cockroach"}, true)},
		"snowflake-url":   {refURLB([]string{"snowflake"}, false)},
		"neo4j-url":       {refURLB([]string{"neo4j", "bolt"}, true)},
		"oracle-jdbc-password": {{keywords: []string{"jdbc:oracle:thin:", "jdbc:oracle:oci:"}, at: func(s string, p int) (int, int, ChecksumResult, bool) {
			m := regexp.MustCompile("^(?i:jdbc:oracle:(?:thin|oci):)[A-Za-z0-9_$#.]{1,64}/([^\\x00-\\x20\\x7f\"'`<>@\\\\]*)@").FindStringSubmatchIndex(s[p:])
			if m == nil || m[3]-m[2] < 1 || m[3]-m[2] > 128 || refPlaceholderB.MatchString(s[p+m[2]:p+m[3]]) {
				return 0, 0, 0, false
			}
			return p + m[2], p + m[3], ChecksumNone, true
		}}},
		"connection-string-password": {{keywords: []string{";password", "; password", ";pwd", "; pwd"}, atKw: func(s string, p, kwLen int) (int, int, ChecksumResult, bool) {
			eq := regexp.MustCompile(`^[ \t]{0,8}=[ \t]{0,8}`).FindString(s[p+kwLen:])
			if eq == "" {
				return 0, 0, 0, false
			}
			j := p + kwLen + len(eq)
			if j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				return 0, 0, 0, false // more than 8 blanks
			}
			a, e := j, j
			switch {
			case j < len(s) && (s[j] == '{' || s[j] == '\''):
				cl := "}"
				if s[j] == '\'' {
					cl = "'"
				}
				k := strings.Index(s[j+1:], cl)
				if k < 0 || k > 256 {
					return 0, 0, 0, false
				}
				a, e = j+1, j+1+k
			default:
				v := regexp.MustCompile("^[^;\\r\\n\"'`<>]*").FindString(s[j:])
				if len(v) > 256 {
					return 0, 0, 0, false
				}
				e = j + len(strings.TrimRight(v, " \t"))
			}
			if refPlaceholderB.MatchString(s[a:e]) {
				return 0, 0, 0, false
			}
			return a, e, ChecksumNone, true
		}}},
		"planetscale-api-token":   tok([]string{"pscale_tkn_"}, `pscale_tkn_[A-Za-z0-9_=.-]{32,64}`, `A-Za-z0-9_.-`, `A-Za-z0-9_=.-`, nil),
		"planetscale-password":    tok([]string{"pscale_pw_"}, `pscale_pw_[A-Za-z0-9_=.-]{32,64}`, `A-Za-z0-9_.-`, `A-Za-z0-9_=.-`, nil),
		"planetscale-oauth-token": tok([]string{"pscale_oauth_"}, `pscale_oauth_[A-Za-z0-9_=.-]{32,64}`, `A-Za-z0-9_.-`, `A-Za-z0-9_=.-`, nil),
		"supabase-access-token":   tok([]string{"sbp_"}, `sbp_[a-f0-9]{40}`, w, w, nil),
		"supabase-secret-key":     tok([]string{"sb_secret_"}, `sb_secret_[A-Za-z0-9_-]{24,64}`, `A-Za-z0-9_-`, `A-Za-z0-9_-`, nil),
		"clickhouse-cloud-key":    tok([]string{"4b1d"}, `4b1d[A-Za-z0-9]{38}`, w, w, refBodyB(4, refLetterDigitB)),

		// Observability.
		"datadog-api-key": {
			refNamedB([]string{"dd_api_key", "dd-api-key", "ddapikey", "dd.api_key"}, 8, nil, `a-f0-9`, 32, 32, nil),
			refNamedB([]string{"datadog"}, 24, []string{"api"}, `a-f0-9`, 32, 32, nil),
		},
		"datadog-app-key": {
			refNamedB([]string{"dd_app_key", "dd-app-key", "dd_application_key", "dd-application-key", "ddappkey", "ddapplicationkey"}, 8, nil, `a-f0-9`, 40, 40, nil),
			refNamedB([]string{"datadog"}, 24, []string{"app"}, `a-f0-9`, 40, 40, nil),
		},
		"newrelic-user-api-key": tok([]string{"nrak-", "nraa-"}, `NRA[KA]-[A-Z0-9]{27}`, w, w, nil),
		"newrelic-insights-key": tok([]string{"nrii-", "nriq-"}, `NRI[IQ]-[A-Za-z0-9_-]{32}`, `A-Za-z0-9_-`, `A-Za-z0-9_-`, nil),
		"newrelic-browser-key":  tok([]string{"nrjs-"}, `NRJS-[a-f0-9]{19}`, w, w, nil),
		"newrelic-license-key": {{keywords: []string{"nral"}, at: func(s string, p int) (int, int, ChecksumResult, bool) {
			edge := regexp.MustCompile(`^[A-Za-z0-9_-]$`)
			if p < 36 || !strings.HasPrefix(s[p:], "NRAL") || p > 36 && edge.MatchString(s[p-37:p-36]) ||
				!regexp.MustCompile(`^(?:[0-9a-fA-F]{36}|eu01xx[0-9a-fA-F]{30})$`).MatchString(s[p-36:p]) ||
				p+4 < len(s) && edge.MatchString(s[p+4:p+5]) {
				return 0, 0, 0, false
			}
			return p - 36, p + 4, ChecksumNone, true
		}}},
		"newrelic-mobile-app-token": {{keywords: []string{"-nrma"}, at: func(s string, p int) (int, int, ChecksumResult, bool) {
			edge := regexp.MustCompile(`^[A-Za-z0-9_-]$`)
			if p < 42 || !strings.HasPrefix(s[p:], "-NRMA") || p > 42 && edge.MatchString(s[p-43:p-42]) ||
				!regexp.MustCompile(`^(?:AA[0-9a-fA-F]{40}|eu01xx[0-9a-fA-F]{36})$`).MatchString(s[p-42:p]) ||
				p+5 < len(s) && edge.MatchString(s[p+5:p+6]) {
				return 0, 0, 0, false
			}
			return p - 42, p + 5, ChecksumNone, true
		}}},
		"sentry-dsn": {
			{keywords: []string{"dsn"}, atKw: func(s string, p, kwLen int) (int, int, ChecksumResult, bool) {
				m := regexp.MustCompile("^[A-Za-z0-9_.-]{0,8}([\\t \"'`:=>,\\\\]{1,8})(?i:http)").FindStringSubmatchIndex(s[p+kwLen:])
				if m == nil || !refAssigns(s[p+kwLen+m[2]:p+kwLen+m[3]]) {
					return 0, 0, 0, false
				}
				a := p + kwLen + m[3]
				if e, ok := refDSN(s, a); ok {
					return a, e, ChecksumNone, true
				}
				return 0, 0, 0, false
			}},
			{keywords: []string{"sentry.io/", `sentry.io\/`}, atKw: func(s string, p, kwLen int) (int, int, ChecksumResult, bool) {
				lo := max(0, p-141)
				m := regexp.MustCompile(`(?i:https?)(?:://|:\\/\\/)[0-9a-f]{32}(?::[0-9a-f]{32})?@[A-Za-z0-9.-]{0,64}$`).FindStringIndex(s[lo:p])
				if m == nil {
					return 0, 0, 0, false
				}
				a := lo + m[0]
				if a > 0 && regexp.MustCompile(`^[A-Za-z0-9_+.-]$`).MatchString(s[a-1:a]) {
					return 0, 0, 0, false
				}
				if e, ok := refDSN(s, a); ok && e >= p+kwLen {
					return a, e, ChecksumNone, true
				}
				return 0, 0, 0, false
			}},
		},
		"sentry-org-token": tok([]string{"sntrys_eyj"}, `sntrys_eyJ[A-Za-z0-9+/=_]{60,1000}`, `A-Za-z0-9+/_`, `A-Za-z0-9+/=_`, refBodyB(7, func(b string) bool {
			k := strings.LastIndex(b, "_")
			if !regexp.MustCompile(`^[A-Za-z0-9+/]{43}$`).MatchString(b[k+1:]) || strings.Contains(b[:k], "_") || !refPadEndB(b[:k]) {
				return false
			}
			enc := base64.StdEncoding
			if k%4 != 0 {
				enc = base64.RawStdEncoding
			}
			dec, err := enc.DecodeString(b[:k])
			return err == nil && strings.Contains(string(dec), `"iat"`) && strings.Contains(string(dec), `"region_url"`)
		})),
		"sentry-user-token":             tok([]string{"sntryu_"}, `sntryu_[a-f0-9]{64}`, w, w, nil),
		"grafana-cloud-token":           tok([]string{"glc_"}, `glc_[A-Za-z0-9+/=]{32,400}`, `A-Za-z0-9+/_`, `A-Za-z0-9+/=_`, refBodyB(4, refPadEndB)),
		"grafana-service-account-token": tok([]string{"glsa_"}, `glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`, w, w, refBodyB(0, func(string) bool { return true })),
		"grafana-api-key":               tok([]string{"eyjrijoi"}, `eyJrIjoi[A-Za-z0-9+/=]{70,400}`, `A-Za-z0-9+/_`, `A-Za-z0-9+/=_`, refBodyB(8, refPadEndB)),
		"dynatrace-token":               tok([]string{"dt0c01."}, `dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}`, `A-Za-z0-9_.`, `A-Za-z0-9_.`, refBodyB(0, func(string) bool { return true })),
		"honeycomb-api-key":             tok([]string{"hcaik_", "hcxik_", "hcamk_", "hcxmk_"}, `hc(?:aik|xik|amk|xmk)_[a-z0-9]{40,80}`, w, w, refBodyB(6, refLetterDigitB)),
		"splunk-hec-token": {
			refToken([]string{"authorization: splunk "}, `(?i:authorization: splunk )[A-Fa-f0-9-]{36}`, `A-Za-z0-9_-`, `A-Za-z0-9_-`, refBodyB(len("Authorization: Splunk "), uuidOK)),
			refNamedB([]string{"splunk"}, 24, []string{"token"}, `A-Fa-f0-9-`, 36, 36, uuidOK),
		},

		// Identity and secret managers.
		"okta-api-token": {
			refToken([]string{"ssws "}, `(?i:ssws )[A-Za-z0-9_-]{42}`, `A-Za-z0-9_-`, `A-Za-z0-9_-`, refBodyB(5, oktaOK)),
			refNamedB([]string{"okta"}, 32, []string{"token", "key"}, `A-Za-z0-9_-`, 42, 42, oktaOK),
		},
		"auth0-client-secret":  {refNamedB([]string{"auth0"}, 32, []string{"secret"}, `A-Za-z0-9_-`, 64, 64, refLetterDigitB)},
		"vault-service-token":  vault("hvs."),
		"vault-batch-token":    vault("hvb."),
		"vault-recovery-token": vault("hvr."),
		"vault-legacy-token": {refNamedB([]string{"vault_token", "vault-token", "vaulttoken"}, 8, nil, `A-Za-z0-9.`, 26, 26, func(b string) bool {
			return regexp.MustCompile(`^s\.[A-Za-z0-9]{24}$`).MatchString(b) && refClassesB(b[2:]) >= 2
		})},
		"age-secret-key": tok([]string{"age-secret-key-1"}, `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`, `QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LA-Za-z0-9_`, `QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LA-Za-z0-9_`,
			func(m string) (bool, ChecksumResult) {
				if refBech32OKB(m[16:]) {
					return true, ChecksumValid
				}
				return true, ChecksumInvalid
			}),
		"1password-service-account-token": tok([]string{"ops_eyj"}, `ops_eyJ[A-Za-z0-9+/=]{250,}`, `A-Za-z0-9+/_`, `A-Za-z0-9+/=_`,
			refBodyB(7, func(b string) bool { return len(b) <= 4096 && refPadEndB(b) })),
		"1password-secret-key": tok([]string{"a3-"}, `A3-[A-Z0-9]{6}-(?:[A-Z0-9]{6}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}|[A-Z0-9]{11}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})`,
			`A-Za-z0-9_-`, `A-Za-z0-9_-`, refBodyB(0, func(string) bool { return true })),

		// Private keys in other shapes.
		"putty-private-key": {{keywords: []string{"putty-user-key-file-"}, at: func(s string, p int) (int, int, ChecksumResult, bool) {
			if !regexp.MustCompile(`^PuTTY-User-Key-File-[23]:`).MatchString(s[p:]) {
				return 0, 0, 0, false
			}
			ke := p + 20
			pl := strings.Index(s[ke:min(len(s), p+8192)], "Private-Lines:")
			if pl < 0 {
				return 0, 0, 0, false
			}
			from, win := ke+pl, p+16384
			if m := strings.Index(s[from:min(len(s), win)], "Private-MAC:"); m >= 0 {
				i := from + m + 12
				i += min(9, len(regexp.MustCompile(`^[ \t]*`).FindString(s[i:])))
				return p, i + min(128, len(regexp.MustCompile(`^[0-9A-Fa-f]*`).FindString(s[i:]))), ChecksumNone, true
			}
			return p, refOpenTailB(s, win), ChecksumNone, true
		}}},
		"ssh2-private-key": {{keywords: []string{"---- begin ssh2 encrypted private key ----"}, at: func(s string, p int) (int, int, ChecksumResult, bool) {
			const begin, end = "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----", "---- END SSH2 ENCRYPTED PRIVATE KEY ----"
			if !strings.HasPrefix(s[p:], begin) {
				return 0, 0, 0, false
			}
			win := p + 16384
			if m := strings.Index(s[p+len(begin):min(len(s), win)], end); m >= 0 {
				return p, p + len(begin) + m + len(end), ChecksumNone, true
			}
			return p, refOpenTailB(s, win), ChecksumNone, true
		}}},
		"private-key-base64": {{keywords: []string{"ls0tls1crudjti"}, at: func(s string, p int) (int, int, ChecksumResult, bool) {
			b64 := regexp.MustCompile(`^[A-Za-z0-9+/=]*`)
			if !strings.HasPrefix(s[p:], "LS0tLS1CRUdJTi") || p > 0 && regexp.MustCompile(`^[A-Za-z0-9+/]$`).MatchString(s[p-1:p]) {
				return 0, 0, 0, false
			}
			win := p + pemWindow
			// Lines: a base64 run; one of 64 or 76 bytes followed by a line
			// break and more base64 continues.
			var all strings.Builder
			e := p
			for {
				run := b64.FindString(s[e:min(len(s), win)])
				all.WriteString(run)
				e += len(run)
				if e >= win || len(run) != 64 && len(run) != 76 {
					break
				}
				nl := regexp.MustCompile(`^\r?\n`).FindString(s[e:])
				if nl == "" || e+len(nl) >= win || e+len(nl) >= len(s) || !refB64Pad.MatchString(s[e+len(nl):e+len(nl)+1]) {
					break
				}
				e += len(nl)
			}
			hdr := all.String()
			hdr = hdr[:min(len(hdr), 88)]
			hdr = hdr[:len(hdr)/4*4]
			dec, err := base64.StdEncoding.DecodeString(hdr)
			m := regexp.MustCompile(`^-----BEGIN ([A-Z0-9 ]{0,48})-----`).FindSubmatch(dec)
			if err != nil || m == nil {
				return 0, 0, 0, false
			}
			label := strings.TrimRight(string(m[1]), " ")
			if !strings.HasSuffix(label, "PRIVATE KEY") && !strings.HasSuffix(label, "PRIVATE KEY BLOCK") {
				return 0, 0, 0, false
			}
			if e >= win {
				return p, refOpenTailB(s, win), ChecksumNone, true
			}
			return p, e, ChecksumNone, true
		}}},
	}
}

// groupBRules lists the rules of this family group.
func groupBRules() map[string]bool {
	ours := map[string]bool{}
	for _, group := range [][]ruleDef{messagingRules(), registryRules(), databaseRules(), observabilityRules(), identityRules(), structuredRules()} {
		for _, r := range group {
			ours[r.id] = true
		}
	}
	return ours
}

// TestGroupBDecoys: identifiers, hashes, encoded blobs, URLs without
// credentials, placeholders and words that look like the group B formats
// survive them.
func TestGroupBDecoys(t *testing.T) {
	ours := groupBRules()
	rng := rand.New(rand.NewPCG(11, 5))
	pick := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	const hexLower, digits, lower = "0123456789abcdef", "0123456789", "abcdefghijklmnopqrstuvwxyz"
	b64 := base62Alphabet + "+/"
	var decoys []string
	for i := 0; i < 400; i++ {
		u := pick(hexLower, 8) + "-" + pick(hexLower, 4) + "-4" + pick(hexLower, 3) + "-a" + pick(hexLower, 3) + "-" + pick(hexLower, 12)
		decoys = append(decoys,
			u, strings.ToUpper(u), "request_id="+u, "postmark_message_id: "+u, "X-Request-Id: "+u,
			pick(hexLower, 32), pick(hexLower, 40), pick(hexLower, 64), "md5="+pick(hexLower, 32), "commit "+pick(hexLower, 40),
			"cache-key-"+pick(hexLower, 32), pick(hexLower, 32)+"-user", "DD_TRACE_ID="+pick(digits, 19),
			"task-runner-"+pick(digits, 3), "SKU-"+pick(digits, 6), "sk"+pick(hexLower, 32), "Task"+pick(hexLower, 32),
			"precious "+pick(base62Alphabet, 32), "social"+pick(base62Alphabet, 32), "boy2"+pick(lower, 43),
			pick(digits, 10)+":"+pick(digits, 2)+":"+pick(digits, 2), "at 12:AA"+pick(base62Alphabet, 33),
			"hvs.setting_"+pick(lower, 20), "glc_"+pick(lower, 10), "oauth: "+pick(lower, 30), "A3-"+pick(lower, 30),
			"redis://cache-"+pick(lower, 5)+":6379/0", "postgres://"+pick(lower, 6)+".internal:5432/app?sslmode=require",
			"mongodb://mongo:27017/"+pick(lower, 6)+"?authSource=admin", "mysql://root@localhost/"+pick(lower, 5),
			"amqp://rabbit:5672/"+pick(lower, 4), "https://"+pick(hexLower, 32)+".cdn.example.com/asset.js",
			"https://user@"+pick(lower, 8)+".example.com/", "postgres://app:${DB_PASSWORD}@db/app", "mysql://u:<password>@h/db",
			"Server=sql;Database="+pick(lower, 6)+";Integrated Security=SSPI;", "jdbc:oracle:thin:@//ora:1521/"+pick(lower, 4),
			"\"author\": \""+pick(lower, 12)+"\"", "always-auth=true", "basic_auth="+pick(lower, 10),
			"the bot "+pick(base62Alphabet+"._-", 70), "dsn: sqlite:///"+pick(lower, 6)+".db",
		)
	}
	for i := 0; i < 60; i++ {
		decoys = append(decoys,
			"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAA"+strings.Repeat("A", rng.IntN(60))+pick(b64, 200+rng.IntN(3000))+"==",
			"\"blob\": \""+pick(base62Alphabet+"_-", 100+rng.IntN(2000))+"\"",
			"    client-certificate-data: "+base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\n"+pick(b64, 64*(1+rng.IntN(20)))+"\n-----END CERTIFICATE-----\n")),
			"-----BEGIN PUBLIC KEY-----\n"+pick(b64, 64)+"\n-----END PUBLIC KEY-----",
			"---- BEGIN SSH2 PUBLIC KEY ----\n"+pick(b64, 64)+"\n---- END SSH2 PUBLIC KEY ----",
		)
	}
	checkDecoys(t, decoys, ours)
}

// TestGroupBSpans pins what the group B rules replace: the password only in
// connection URLs and strings, the whole token elsewhere, whole key files,
// and the age checksum.
func TestGroupBSpans(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	hex := "0123456789abcdef"
	pem := "-----BEGIN PRIVATE KEY-----\n" + fakeChars(base62Alphabet, 64, 1) + "\n" + fakeChars(base62Alphabet, 64, 2) + "\n-----END PRIVATE KEY-----\n"
	b64pem := wrapB64(base64.StdEncoding.EncodeToString([]byte(pem)), 64)
	for i, tt := range []struct{ in, want string }{
		{"postgres://app:s3cr3t@db:5432/x", "postgres://app:[REDACTED:postgres-url]@db:5432/x"},
		{"redis://:hunter2@cache:6379/0 and redis://cache:6379/1", "redis://:[REDACTED:redis-url]@cache:6379/0 and redis://cache:6379/1"},
		{"mongodb+srv://u:p@ss@c0.mongodb.net/db?w=1", "mongodb+srv://u:[REDACTED:mongodb-url]@c0.mongodb.net/db?w=1"},
		{"Server=s;User ID=a;Password=p@ss w0rd ;Encrypt=True", "Server=s;User ID=a;Password=[REDACTED:connection-string-password] ;Encrypt=True"},
		{"Driver={x};Uid=sa;Pwd={a;b};", "Driver={x};Uid=sa;Pwd={[REDACTED:connection-string-password]};"},
		{"jdbc:oracle:thin:scott/tiger@h:1521/O", "jdbc:oracle:thin:scott/[REDACTED:oracle-jdbc-password]@h:1521/O"},
		{"DD_API_KEY=" + fakeChars(hex, 32, 3) + "\n", "DD_API_KEY=[REDACTED:datadog-api-key]\n"},
		{"GET https://api.telegram.org/bot" + fakeChars("0123456789", 10, 4) + ":AA" + fakeChars(base62Alphabet, 33, 5) + "/getMe",
			"GET https://api.telegram.org/bot[REDACTED:telegram-bot-token]/getMe"},
		{"key " + fakeChars(hex, 32, 6) + "-us12.", "key [REDACTED:mailchimp-api-key]."},
		{"dsn=\"https://" + fakeChars(hex, 32, 7) + "@sentry.acme.dev/42\")", "dsn=\"[REDACTED:sentry-dsn]\")"},
		{"x https://" + fakeChars(hex, 32, 8) + "@o1.ingest.sentry.io/7 y", "x [REDACTED:sentry-dsn] y"},
		{"PuTTY-User-Key-File-2: ssh-ed25519\nPublic-Lines: 1\nAAAA\nPrivate-Lines: 1\nBBBB\nPrivate-MAC: " + fakeChars(hex, 40, 9) + "\nafter",
			"[REDACTED:putty-private-key]\nafter"},
		{"tls.key: " + b64pem + "\nkind: Secret", "tls.key: [REDACTED:private-key-base64]\nkind: Secret"},
		{`{"private_key": "` + strings.ReplaceAll(pem, "\n", `\n`) + `", "x": 1}`, `{"private_key": "[REDACTED:private-key]\n", "x": 1}`},
	} {
		for _, n := range []int{0, 1, 5} {
			if got, _ := redactChunks(t, r, tt.in, n); got != tt.want {
				t.Errorf("case %d chunk %d: got %q, want %q", i, n, got, tt.want)
			}
		}
		checkAgainstReference(t, c, CatalogOptions{}, tt.in, 1, 3)
	}
	good := ageKey(99)
	bad := good[:len(good)-1] + "Q"
	if bad == good {
		bad = good[:len(good)-1] + "P"
	}
	for _, tt := range []struct {
		in   string
		want ChecksumResult
	}{{good, ChecksumValid}, {bad, ChecksumInvalid}} {
		out, fs := redactChunks(t, r, tt.in, 0)
		if out != "[REDACTED:age-secret-key]" || len(fs) != 1 || fs[0].Checksum != tt.want {
			t.Errorf("age key: out %q findings %+v, want checksum %d", out, fs, tt.want)
		}
	}
}

// TestGroupBFailClosed: a PuTTY, SSH2 or base64 private key whose end lies
// beyond the rule's window is redacted to the window and on over the
// base64 that follows (as private-key does), identically in any chunking.
func TestGroupBFailClosed(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	lines := func(n int) string {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			b.WriteString(fakeChars(base62Alphabet+"+/", 64, uint32(1000+i)))
			b.WriteString("\n")
		}
		return b.String()
	}
	pemBody := "-----BEGIN RSA PRIVATE KEY-----\n" + lines(pemWindow) + "-----END RSA PRIVATE KEY-----\n"
	for _, tt := range []struct {
		name, in string
		secret   []string // lines that must not survive
	}{
		{"putty", "PuTTY-User-Key-File-3: ssh-rsa\nPrivate-Lines: 400\n" + lines(pemAuxWindow+4000) + "\nend: x", strings.Split(lines(pemAuxWindow+4000), "\n")},
		{"ssh2", ssh2Begin + "\n" + lines(pemAuxWindow+3000) + ssh2End + "\nafter", strings.Split(lines(pemAuxWindow+3000), "\n")},
		{"base64", "tls.key: " + wrapB64(base64.StdEncoding.EncodeToString([]byte(pemBody)), 64) + "\nkind: Secret", strings.Split(wrapB64(base64.StdEncoding.EncodeToString([]byte(pemBody)), 64), "\n")},
	} {
		want, wantFs := refRedact(c, CatalogOptions{}, testKey, tt.in)
		for _, n := range []int{0, 4096, 997, 64 << 10} {
			got, fs := redactChunks(t, r, tt.in, n)
			if got != want || len(fs) != len(wantFs) {
				t.Fatalf("%s chunk %d:\n got %q %v\nwant %q %v", tt.name, n, trunc(got), ruleNames(c, fs), trunc(want), ruleNames(c, wantFs))
			}
			for i := range fs {
				if fs[i] != wantFs[i] {
					t.Fatalf("%s chunk %d: finding %d %+v, want %+v", tt.name, n, i, fs[i], wantFs[i])
				}
			}
			for _, line := range tt.secret {
				if len(line) > 8 && strings.Contains(got, line) {
					t.Fatalf("%s chunk %d: key line leaked", tt.name, n)
				}
			}
		}
		if len(wantFs) != 1 {
			t.Fatalf("%s: findings %v", tt.name, ruleNames(c, wantFs))
		}
	}
}

// checkDecoys fails for every decoy (bare, between spaces, as a JSON
// string) that a rule in ours redacts.
func checkDecoys(t *testing.T, decoys []string, ours map[string]bool) {
	t.Helper()
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	bad, total := 0, 0
	for _, d := range decoys {
		for _, s := range []string{d, " " + d + " ", "\"" + d + "\","} {
			total++
			out, fs := redactChunks(t, r, s, 0)
			for _, f := range fs {
				if id := c.RuleName(f.Rule); ours[id] {
					bad++
					if bad <= 10 {
						t.Errorf("decoy %q redacted by %s: %q", trunc(s), id, trunc(out))
					}
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d decoys redacted", bad, total)
	}
}
