package scanners

import (
	"regexp"
	"strings"
	"sync"
)

// Formats that other scanners (noseyparker, kingfisher, trufflehog,
// detect-secrets) know and the catalog did not: password hashes a dump or a
// shadow file shows (crypt, bcrypt, SHA-crypt, Cisco type 8/9, yescrypt,
// Argon2, Kerberos AS-REP and TGS hashes, NTLM hashes of a secretsdump),
// Slack session tokens, Django's generated key, Dependency-Track keys and
// Vault's unseal keys and root token. Each is declared by a regexp anchored
// at its keyword (regexForm); the rules and examples here are written for
// the formats, not taken from those rule sets.

// regexAhead bounds how far a regexForm match may reach past its keyword.
const regexAhead = 1024

// regexForm matches re at each keyword occurrence: re (anchored, starting
// with the keyword) is evaluated on the text from the keyword's start, the
// byte before the keyword must not be in notBefore (unless it ends a JSON
// escape such as \n: a line start in JSON text), and the byte after the
// match must not be in notAfter. When re has a capturing group, the group
// is the match (a key after its label), else the whole match.
//
// The pattern is compiled when a check first needs it (lazyRegexp): most
// runs meet the keywords of few of these rules.
func regexForm(keywords []string, re string, notBefore, notAfter *byteSet, ahead int) form {
	rx := &lazyRegexp{src: `^(?:` + re + `)`}
	longest := 0
	for _, k := range keywords {
		longest = max(longest, len(k))
	}
	return form{
		keywords:  keywords,
		back:      escapeBack,
		ahead:     longest + ahead + 1,
		notBefore: notBefore,
		pattern:   rx,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if ks > 0 && notBefore != nil && notBefore[d[ks-1]] && !jsonEscapeBefore(d, ks) {
				return noMatch
			}
			hi := ks + longest + ahead + 1
			if hi > len(d) {
				if !v.atEnd {
					return result{status: resMore}
				}
				hi = len(d)
			}
			m := rx.get().FindSubmatchIndex(d[ks:hi])
			if m == nil || ks+m[1] < len(d) && notAfter != nil && notAfter[d[ks+m[1]]] {
				return noMatch
			}
			if len(m) >= 4 && m[2] >= 0 {
				return result{status: resMatch, start: ks + m[2], end: ks + m[3]}
			}
			return result{status: resMatch, start: ks, end: ks + m[1]}
		},
	}
}

// lazyRegexp is a pattern of the catalog compiled on first use, so that
// building a catalog (every start of a process) does not compile the
// regexps of rules whose keywords a run never meets: compiling them all
// was about half of what NewCatalog allocated. The patterns are constants
// of the code; TestRegexFormsCompile compiles every one, so a bad pattern
// fails the tests instead of the first text that needs it.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// get returns the compiled pattern, compiling it on the first call; safe
// for concurrent use, as a Catalog is.
func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

var setCrypt = makeSet("./0-9A-Za-z")

// cryptRe is the modular crypt format of the schemes password-hash knows.
const cryptRe = `\$(?:1|apr1)\$[./0-9A-Za-z]{1,8}\$[./0-9A-Za-z]{22}` +
	`|\$2[abxy]\$[0-9]{2}\$[./0-9A-Za-z]{53}` +
	`|\$5\$(?:rounds=[0-9]{1,9}\$)?[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{43}` +
	`|\$6\$(?:rounds=[0-9]{1,9}\$)?[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{86}` +
	`|\$[89]\$[./0-9A-Za-z]{14}\$[./0-9A-Za-z]{43}` +
	`|\$y\$[./0-9A-Za-z]{1,32}\$[./0-9A-Za-z]{1,86}\$[./0-9A-Za-z]{43}` +
	`|\$argon2(?:id|i|d)\$v=[0-9]{1,3}\$m=[0-9]{1,8},t=[0-9]{1,4},p=[0-9]{1,3}\$[A-Za-z0-9+/]{11,64}\$[A-Za-z0-9+/]{16,128}`

func hashRules() []ruleDef {
	c := base62Alphabet + "./"
	hex := "0123456789abcdef"
	b64 := base62Alphabet + "+/"
	return []ruleDef{
		{
			id: "password-hash", provider: "generic", kind: KindSecret, confidence: "high",
			desc: "password hash in modular crypt format (MD5-crypt $1$ and $apr1$, bcrypt $2a/b/x/y$, SHA-crypt $5$ and $6$, Cisco type 8 $8$ and type 9 $9$, yescrypt $y$, Argon2): crackable offline, as secret as the password",
			forms: []form{regexForm([]string{"$1$", "$apr1$", "$2a$", "$2b$", "$2x$", "$2y$", "$5$", "$6$", "$8$", "$9$", "$y$", "$argon2id$", "$argon2i$", "$argon2d$"},
				cryptRe, setCrypt, setCrypt, 200)},
			examples: func() (tp, fp []string) {
				tp = []string{
					"root:$6$" + fakeChars(c, 16, 1) + "$" + fakeChars(c, 86, 2) + ":19700:0:99999:7:::",
					`{"password_hash": "$2b$12$` + fakeChars(c, 53, 3) + `"}`,
					"admin:$apr1$" + fakeChars(c, 8, 4) + "$" + fakeChars(c, 22, 5),
					"username admin secret 9 $9$" + fakeChars(c, 14, 6) + "$" + fakeChars(c, 43, 7),
					"alice:$y$j9T$" + fakeChars(c, 22, 8) + "$" + fakeChars(c, 43, 9) + ":19000::::::",
					"hash=$argon2id$v=19$m=65536,t=3,p=4$" + fakeChars(b64, 22, 10) + "$" + fakeChars(b64, 43, 11),
					"$5$rounds=5000$" + fakeChars(c, 16, 12) + "$" + fakeChars(c, 43, 13),
				}
				fp = []string{
					"echo $1$2$3",
					"price: $5$ per unit",
					"root:*:19700:0:99999:7:::",
					"$2b$12$tooshort",
					"awk '{print $1$2}'",
				}
				return
			},
		},
		{
			id: "kerberos-hash", provider: "generic", kind: KindSecret, confidence: "high",
			desc: "Kerberos AS-REP or TGS hash as roasting tools print it ($krb5asrep$, $krb5tgs$, $krb5pa$ with etype 17, 18 or 23): crackable offline",
			forms: []form{regexForm([]string{"$krb5asrep$", "$krb5tgs$", "$krb5pa$"},
				`\$krb5(?:asrep|tgs|pa)\$(?:17|18|23)\$[^\s"'<>]{40,}`, setWord, nil, 4000)},
			examples: func() (tp, fp []string) {
				tp = []string{
					"$krb5asrep$23$svc_backup@CORP.LOCAL:" + fakeChars(hex, 32, 1) + "$" + fakeChars(hex, 240, 2),
					"$krb5tgs$23$*sqlsvc$CORP.LOCAL$MSSQLSvc/db01.corp.local:1433*$" + fakeChars(hex, 32, 3) + "$" + fakeChars(hex, 600, 4),
					"hash: $krb5tgs$18$web$CORP.LOCAL$*HTTP/web*$" + fakeChars(hex, 24, 5) + "$" + fakeChars(hex, 300, 6) + "\n",
				}
				fp = []string{
					"the $krb5tgs$ prefix marks a TGS hash",
					"$krb5asrep$23$short",
					"$krb5tgs$99$" + fakeChars(hex, 60, 7),
				}
				return
			},
		},
		{
			id: "ntlm-hash", provider: "Microsoft", kind: KindSecret, confidence: "high",
			desc: "NTLM hash in a secretsdump or pwdump line, after the empty LM hash (aad3b435b51404ee…:NT): the LM:NT pair is replaced",
			forms: []form{regexForm([]string{"aad3b435b51404eeaad3b435b51404ee:"},
				`(?i:aad3b435b51404eeaad3b435b51404ee):[0-9A-Fa-f]{32}`, setAlnum, setAlnum, 40)},
			examples: func() (tp, fp []string) {
				tp = []string{
					"Administrator:500:aad3b435b51404eeaad3b435b51404ee:" + fakeChars(hex, 32, 1) + ":::",
					"CORP\\svc_sql:1104:AAD3B435B51404EEAAD3B435B51404EE:" + strings.ToUpper(fakeChars(hex, 32, 2)) + ":::",
					"krbtgt:502:aad3b435b51404eeaad3b435b51404ee:" + fakeChars(hex, 32, 3) + ":::\nGuest:501:…",
				}
				fp = []string{
					"the empty LM hash is aad3b435b51404eeaad3b435b51404ee",
					"aad3b435b51404eeaad3b435b51404ee:" + fakeChars(hex, 31, 4),
					"aad3b435b51404eeaad3b435b51404ee:" + fakeChars(hex, 34, 5),
				}
				return
			},
		},
		{
			id: "slack-session-token", provider: "Slack", kind: KindSecret, confidence: "high",
			desc: "Slack browser session token (xoxc- with three numeric ids and 64 hex) or session cookie (xoxd- and 40+ of [A-Za-z0-9%/+=])",
			forms: []form{
				regexForm([]string{"xoxc-"}, `xoxc-[0-9]{6,16}-[0-9]{6,16}-[0-9]{6,16}-[0-9a-f]{64}`, setWordDash, setWordDash, 120),
				regexForm([]string{"xoxd-"}, `xoxd-[A-Za-z0-9%/+=]{40,512}`, setWordDash, setWordDash, 520),
			},
			examples: func() (tp, fp []string) {
				tp = []string{
					"xoxc-" + fakeChars("0123456789", 12, 1) + "-" + fakeChars("0123456789", 13, 2) + "-" + fakeChars("0123456789", 13, 3) + "-" + fakeChars(hex, 64, 4),
					"cookie: d=xoxd-" + fakeChars(base62Alphabet+"%", 120, 5) + ";",
					`slack web client xoxc-` + fakeChars("0123456789", 11, 6) + "-" + fakeChars("0123456789", 12, 7) + "-" + fakeChars("0123456789", 12, 8) + "-" + fakeChars(hex, 64, 9) + ` (expired)`,
				}
				fp = []string{
					"xoxc-123-456",
					"xoxd-short",
					"the xoxc- and xoxd- prefixes",
				}
				return
			},
		},
		provRule("django-secret-key", "Django", "high", "Django SECRET_KEY as startproject generates it (django-insecure- and 40-60 of its alphabet)",
			[]form{regexForm([]string{"django-insecure-"}, `django-insecure-[a-z0-9!@#$%^&*(\-_=+)]{40,60}`, setWordDash, nil, 64)},
			func() (tp, fp []string) {
				tp = []string{
					"settings.py:23: 'django-insecure-" + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)", 50, 1) + "'",
					"django-insecure-" + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)", 50, 2),
					`["django-insecure-` + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789", 50, 3) + `"]`,
				}
				fp = []string{
					"the django-insecure- prefix warns you",
					"django-insecure-" + fakeChars("abcdefghij", 20, 4),
					"mydjango-insecure-" + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789", 50, 5),
				}
				return
			}),
		provRule("dependency-track-api-key", "OWASP Dependency-Track", "high", "Dependency-Track API key (odt_ and 32-64 of [A-Za-z0-9_] mixing two classes)",
			[]form{strictForm(tokenSpec{prefixes: []string{"odt_"}, body: setWord, min: 32, max: 64, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"odt_" + fakeChars(base62Alphabet, 32, 1),
					"team automation: odt_" + fakeChars(base62Alphabet, 8, 2) + "_" + fakeChars(base62Alphabet, 32, 3),
					"[odt_" + fakeChars(base62Alphabet, 40, 4) + "]",
				}
				fp = []string{
					"odt_" + fakeChars(base62Alphabet, 20, 5),
					"modt_" + fakeChars(base62Alphabet, 32, 6),
					"odt_" + strings.Repeat("settings", 5),
				}
				return
			}),
		{
			id: "vault-unseal-key", provider: "HashiCorp Vault", kind: KindSecret, confidence: "high",
			desc: "HashiCorp Vault unseal key or initial root token as vault operator init prints them (Unseal Key N: base64 or hex; Initial Root Token: token); the key is replaced",
			forms: []form{
				regexForm([]string{"unseal key "}, `(?i:unseal key) [0-9]{1,2}: ([A-Za-z0-9+/]{43,88}={0,2}|[0-9a-f]{64})`, setWord, setBase64Pad, 100),
				regexForm([]string{"initial root token: "}, `(?i:initial root token): ((?:hvs\.|s\.)[A-Za-z0-9_.-]{20,200})`, setWord, setWordDashDot, 210),
			},
			examples: func() (tp, fp []string) {
				tp = []string{
					"Unseal Key 1: " + fakeChars(b64, 44, 1),
					"Unseal Key 5: " + fakeChars(b64, 43, 2) + "=\n\nInitial Root Token: hvs." + fakeChars(base62Alphabet, 24, 3),
					"Initial Root Token: s." + fakeChars(base62Alphabet, 24, 4),
				}
				fp = []string{
					"Unseal Key 1: <redacted>",
					"unseal key shares: 5",
					"Initial Root Token: (hidden)",
				}
				return
			},
		},
	}
}
