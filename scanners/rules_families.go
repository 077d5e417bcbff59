package scanners

import "strings"

// More formats other scanners' rule sets carry: StackHawk and Segment keys,
// Jenkins crumbs and tokens, Gradle credentials blocks, pganalyze and
// Contentful tokens. Formats are facts; the rules and examples are this
// project's own.

func familyRules() []ruleDef {
	hex := "0123456789abcdef"
	wd := base62Alphabet + "_-"
	return []ruleDef{
		provRule("stackhawk-api-key", "StackHawk", "high", "StackHawk API key (hawk. 20 . 20 of [A-Za-z0-9_-])",
			[]form{regexForm([]string{"hawk."}, `hawk\.[0-9A-Za-z_-]{20}\.[0-9A-Za-z_-]{20}`, setWordDash, setWordDash, 48)},
			func() (tp, fp []string) {
				tp = []string{
					"hawk." + fakeChars(wd, 20, 1) + "." + fakeChars(wd, 20, 2),
					`["hawk.` + fakeChars(base62Alphabet, 20, 3) + "." + fakeChars(base62Alphabet, 20, 4) + `"]`,
					"api key: hawk." + fakeChars(base62Alphabet, 20, 5) + "." + fakeChars(base62Alphabet, 20, 6) + "\n",
				}
				fp = []string{
					"hawk.example.com",
					"hawk." + fakeChars(base62Alphabet, 20, 7) + "." + fakeChars(base62Alphabet, 19, 8),
					"nighthawk." + fakeChars(base62Alphabet, 20, 9) + "." + fakeChars(base62Alphabet, 20, 10),
				}
				return
			}),
		provRule("segment-public-api-token", "Segment", "high", "Segment public API token (sgp_ and 64 base62)",
			[]form{regexForm([]string{"sgp_"}, `sgp_[A-Za-z0-9]{64}`, setWordDash, setWordDash, 70)},
			func() (tp, fp []string) {
				tp = []string{
					"sgp_" + fakeChars(base62Alphabet, 64, 1),
					`["sgp_` + fakeChars(base62Alphabet, 64, 2) + `"]`,
					"workspace token sgp_" + fakeChars(base62Alphabet, 64, 3) + " rotated",
				}
				fp = []string{
					"sgp_" + fakeChars(base62Alphabet, 63, 4),
					"sgp_" + fakeChars(base62Alphabet, 65, 5),
					"msgp_" + fakeChars(base62Alphabet, 64, 6),
				}
				return
			}),
		provRule("jenkins-crumb", "Jenkins", "medium", "Jenkins CSRF crumb or API token in a Jenkins-Crumb header or parameter (32-36 hex); the value is replaced",
			[]form{regexForm([]string{"jenkins-crumb", "jenkins_crumb"}, `(?i:jenkins[-_]crumb)["']?[ \t]*[:=][ \t]*["']?([0-9a-f]{32,36})`, setWordDash, setAlnum, 60)},
			func() (tp, fp []string) {
				tp = []string{
					"curl -X POST https://ci.example.com/job/x/build -H 'Jenkins-Crumb:" + fakeChars(hex, 32, 1) + "'",
					"Jenkins-Crumb: " + fakeChars(hex, 36, 2),
					`{"jenkins_crumb": "` + fakeChars(hex, 32, 3) + `"}`,
				}
				fp = []string{
					"Jenkins-Crumb: <crumb>",
					"Jenkins-Crumb: " + fakeChars(hex, 20, 4),
					"the Jenkins-Crumb header",
				}
				return
			}),
		{
			id: "gradle-credentials", provider: "Gradle", kind: KindSecret, confidence: "medium",
			desc: "password of a Gradle credentials { username '…' password '…' } block (Groovy or Kotlin DSL); the password is replaced, template references (${…}, $x) and markers are not",
			forms: []form{regexForm([]string{"credentials"},
				`credentials[ \t]*(?:\([^)\n]{0,60}\))?[ \t]*\{(?:\s|//[^\n]*)*(?:username[ \t]*=?[ \t]*["'][^"'\n]{1,60}["'](?:\s|//[^\n]*)*)?password[ \t]*=?[ \t]*["']([^"'$\n\[][^"'$\n]{0,59})["']`,
				setWordDash, nil, 400)},
			examples: func() (tp, fp []string) {
				tp = []string{
					"credentials {\n    username 'deploy'\n    password '" + fakeChars(base62Alphabet, 28, 1) + "'\n}",
					"maven {\n  url \"https://repo.example.com\"\n  credentials {\n    // read-only user\n    username \"ci\"\n    password \"" + fakeChars(base62Alphabet, 30, 2) + "\"\n  }\n}",
					"credentials{\n\tpassword \"" + fakeChars(base62Alphabet, 28, 3) + "\"\n}",
				}
				fp = []string{
					"credentials {\n    username \"$mavenUser\"\n    password \"$mavenPassword\"\n}",
					"credentials {\n  username project.findProperty('user')\n  password project.findProperty('pass')\n}",
					"the credentials { } block holds a username and password",
				}
				return
			},
		},
		provRule("sonarqube-login", "SonarSource", "high", "SonarQube token given as sonar.login or sonar.token (property, -Dsonar.login= flag, sonarLogin variable): 40 hex; the value is replaced",
			[]form{regexForm([]string{"sonar.login", "sonar.token", "sonarlogin", "sonar_login", "sonartoken", "sonar_token"},
				`(?i:sonar[._]?(?:login|token))['"]?[ \t]*(?:=>|=|:|,)[ \t]*['"]?([0-9a-f]{40})`, nil, setAlnum, 64)},
			func() (tp, fp []string) {
				tp = []string{
					"mvn verify sonar:sonar -Dsonar.host.url=https://sonar.example.com -Dsonar.login=" + fakeChars(hex, 40, 1),
					"$sonarLogin = \"" + fakeChars(hex, 40, 2) + "\"",
					"set('sonar.login', '" + fakeChars(hex, 40, 3) + "')",
				}
				fp = []string{
					"-Dsonar.login=$SONAR_TOKEN",
					"sonar.login=" + fakeChars(hex, 39, 4),
					"the sonar.login property is deprecated",
				}
				return
			}),
		{
			id: "salesforce-access-token", provider: "Salesforce", kind: KindSecret, confidence: "high",
			desc: "Salesforce access or session token (the 15-character org id 00D…, '!', and 60+ of [A-Za-z0-9._])",
			forms: []form{func() form {
				f := regexForm([]string{"00d"}, `00D[A-Za-z0-9]{12}![A-Za-z0-9._]{60,}`, setAlnum, setWordDashDot, 300)
				f.fixed, f.fixedAt, f.fixedByte = true, 12, '!'
				return f
			}()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"00D" + fakeChars(base62Alphabet, 12, 1) + "!" + fakeChars(base62Alphabet+"._", 96, 2),
					"Access Token     00D" + fakeChars(base62Alphabet, 12, 3) + "!" + fakeChars(base62Alphabet+".", 100, 4) + "\n",
					`["00D` + fakeChars(base62Alphabet, 12, 5) + "!" + fakeChars(base62Alphabet, 90, 6) + `"]`,
				}
				fp = []string{
					"00D" + fakeChars(base62Alphabet, 12, 7) + " is the org id",
					"00D" + fakeChars(base62Alphabet, 12, 8) + "!" + fakeChars(base62Alphabet, 20, 9),
					"a00D" + fakeChars(base62Alphabet, 12, 10) + "!" + fakeChars(base62Alphabet, 90, 11),
				}
				return
			},
		},
		provRule("mapbox-temporary-token", "Mapbox", "high", "Mapbox temporary access token (tk.eyJ, a base64url JWT payload, '.', and 20+ of [A-Za-z0-9_-])",
			[]form{regexForm([]string{"tk.eyj"}, `tk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}`, setWordDash, setWordDash, 1000)},
			func() (tp, fp []string) {
				tp = []string{
					"tk.eyJ" + fakeChars(wd, 80, 1) + "." + fakeChars(wd, 22, 2),
					"fetch(url + '?access_token=' + 'tk.eyJ" + fakeChars(base62Alphabet, 60, 3) + "." + fakeChars(base62Alphabet, 22, 4) + "')",
					"temporary token tk.eyJ" + fakeChars(base62Alphabet, 90, 5) + "." + fakeChars(wd, 30, 6) + " expires in 1h",
				}
				fp = []string{
					"tk.eyJ" + fakeChars(base62Alphabet, 10, 7),
					"atk.eyJ" + fakeChars(base62Alphabet, 60, 8) + "." + fakeChars(base62Alphabet, 22, 9),
					"the tk.eyJ prefix of temporary tokens",
				}
				return
			}),
		provRule("twitch-stream-key", "Twitch", "high", "Twitch stream key (live_, the 6-12 digit channel id, _, and 30 base62)",
			[]form{regexForm([]string{"live_"}, `live_[0-9]{6,12}_[A-Za-z0-9]{30}`, setWordDash, setWordDash, 50)},
			func() (tp, fp []string) {
				tp = []string{
					"live_" + fakeChars("0123456789", 9, 1) + "_" + fakeChars(base62Alphabet, 30, 2),
					"obs: using live_" + fakeChars("0123456789", 10, 3) + "_" + fakeChars(base62Alphabet, 30, 4),
					"rtmp://live.twitch.tv/app/live_" + fakeChars("0123456789", 8, 5) + "_" + fakeChars(base62Alphabet, 30, 6),
				}
				fp = []string{
					"sk_live_" + fakeChars("0123456789", 9, 7) + "_" + fakeChars(base62Alphabet, 30, 8),
					"live_" + fakeChars("0123456789", 9, 9) + "_" + fakeChars(base62Alphabet, 29, 10),
					"is_live_stream = true",
				}
				return
			}),
		provRule("pganalyze-api-key", "pganalyze", "high", "pganalyze API key (pgar_ read or pgak_ key and 27+ of [a-z0-9])",
			[]form{strictForm(tokenSpec{prefixes: []string{"pgar_", "pgak_"}, body: setLowerAlnum, min: 27, max: 64})},
			func() (tp, fp []string) {
				tp = []string{
					"pgar_" + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789", 27, 1),
					"[pgak_" + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789", 32, 2) + "]",
					"key pgar_" + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789", 27, 3) + " ok",
				}
				fp = []string{
					"pgar_" + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789", 20, 4),
					"xpgar_" + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789", 27, 5),
					"pgar_" + strings.Repeat("x", 30),
				}
				return
			}),
		provRule("contentful-pat", "Contentful", "high", "Contentful personal access token (CFPAT- and 43 of [A-Za-z0-9_-])",
			[]form{strictForm(tokenSpec{prefixes: []string{"CFPAT-"}, body: setWordDash, min: 43, max: 43})},
			func() (tp, fp []string) {
				tp = []string{
					"CFPAT-" + fakeChars(wd, 43, 1),
					"cma CFPAT-" + fakeChars(wd, 43, 2) + " (space x)",
					`"cma": "CFPAT-` + fakeChars(base62Alphabet, 43, 3) + `"`,
				}
				fp = []string{
					"CFPAT-" + fakeChars(wd, 42, 4),
					"CFPAT-" + fakeChars(wd, 44, 5),
					"cfpat-" + fakeChars(wd, 43, 6),
				}
				return
			}),
	}
}
