package scanners

import (
	"regexp"
	"strings"
)

// Reference forms of rules_hashes.go: the format's regexp at every keyword
// occurrence of the whole string.

func init() {
	refFormsMore = append(refFormsMore, refHashForms, refFamilyForms)
}

// refFamilyForms: rules_families.go.
func refFamilyForms() map[string][]refForm {
	const wd = `A-Za-z0-9_-`
	return map[string][]refForm{
		"stackhawk-api-key":        {refRegex([]string{"hawk."}, `hawk\.[0-9A-Za-z_-]{20}\.[0-9A-Za-z_-]{20}`, wd, wd, 48)},
		"segment-public-api-token": {refRegex([]string{"sgp_"}, `sgp_[A-Za-z0-9]{64}`, wd, wd, 70)},
		"jenkins-crumb": {refRegex([]string{"jenkins-crumb", "jenkins_crumb"},
			`(?i:jenkins[-_]crumb)["']?[ \t]*[:=][ \t]*["']?([0-9a-f]{32,36})`, wd, `A-Za-z0-9`, 60)},
		"gradle-credentials": {refRegex([]string{"credentials"},
			`credentials[ \t]*(?:\([^)\n]{0,60}\))?[ \t]*\{(?:\s|//[^\n]*)*(?:username[ \t]*=?[ \t]*["'][^"'\n]{1,60}["'](?:\s|//[^\n]*)*)?password[ \t]*=?[ \t]*["']([^"'$\n\[][^"'$\n]{0,59})["']`,
			wd, "", 400)},
		"sonarqube-login": {refRegex([]string{"sonar.login", "sonar.token", "sonarlogin", "sonar_login", "sonartoken", "sonar_token"},
			`(?i:sonar[._]?(?:login|token))['"]?[ \t]*(?:=>|=|:|,)[ \t]*['"]?([0-9a-f]{40})`, "", `A-Za-z0-9`, 64)},
		"salesforce-access-token": {refRegex([]string{"00d"}, `00D[A-Za-z0-9]{12}![A-Za-z0-9._]{60,}`, `A-Za-z0-9`, `A-Za-z0-9_.-`, 300)},
		"mapbox-temporary-token":  {refRegex([]string{"tk.eyj"}, `tk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}`, wd, wd, 1000)},
		"twitch-stream-key":       {refRegex([]string{"live_"}, `live_[0-9]{6,12}_[A-Za-z0-9]{30}`, wd, wd, 50)},
		"pganalyze-api-key":       {refTok([]string{"pgar_", "pgak_"}, `pga[rk]_[a-z0-9]{27,64}`, refW, nil)},
		"contentful-pat":          {refTok([]string{"cfpat-"}, `CFPAT-[A-Za-z0-9_-]{43}`, wd, nil)},
	}
}

// refRegex: re anchored at the keyword, read at most ahead bytes past the
// longest keyword; the byte before must not be in notBefore (outside a JSON
// escape), the byte after the match not in notAfter (bracket classes; ""
// for none); a capturing group, when there is one, is the match.
func refRegex(keywords []string, re, notBefore, notAfter string, ahead int) refForm {
	rx := regexp.MustCompile(`^(?:` + re + `)`)
	var nb, na *regexp.Regexp
	if notBefore != "" {
		nb = regexp.MustCompile(`^[` + notBefore + `]$`)
	}
	if notAfter != "" {
		na = regexp.MustCompile(`^[` + notAfter + `]$`)
	}
	longest := 0
	for _, k := range keywords {
		longest = max(longest, len(k))
	}
	return refForm{keywords: keywords, at: func(s string, p int) (int, int, ChecksumResult, bool) {
		if p > 0 && nb != nil && nb.MatchString(s[p-1:p]) && !refEscapeBefore(s, p) {
			return 0, 0, 0, false
		}
		m := rx.FindStringSubmatchIndex(s[p:min(len(s), p+longest+ahead+1)])
		if m == nil || p+m[1] < len(s) && na != nil && na.MatchString(s[p+m[1]:p+m[1]+1]) {
			return 0, 0, 0, false
		}
		if len(m) >= 4 && m[2] >= 0 {
			return p + m[2], p + m[3], ChecksumNone, true
		}
		return p, p + m[1], ChecksumNone, true
	}}
}

func refHashForms() map[string][]refForm {
	const crypt = `./0-9A-Za-z`
	return map[string][]refForm{
		"password-hash": {refRegex(strings.Fields("$1$ $apr1$ $2a$ $2b$ $2x$ $2y$ $5$ $6$ $8$ $9$ $y$ $argon2id$ $argon2i$ $argon2d$"),
			cryptRe, crypt, crypt, 200)},
		"kerberos-hash": {refRegex([]string{"$krb5asrep$", "$krb5tgs$", "$krb5pa$"},
			`\$krb5(?:asrep|tgs|pa)\$(?:17|18|23)\$[^\s"'<>]{40,}`, `A-Za-z0-9_`, "", 4000)},
		"ntlm-hash": {refRegex([]string{"aad3b435b51404eeaad3b435b51404ee:"},
			`(?i:aad3b435b51404eeaad3b435b51404ee):[0-9A-Fa-f]{32}`, `A-Za-z0-9`, `A-Za-z0-9`, 40)},
		"slack-session-token": {
			refRegex([]string{"xoxc-"}, `xoxc-[0-9]{6,16}-[0-9]{6,16}-[0-9]{6,16}-[0-9a-f]{64}`, `A-Za-z0-9_-`, `A-Za-z0-9_-`, 120),
			refRegex([]string{"xoxd-"}, `xoxd-[A-Za-z0-9%/+=]{40,512}`, `A-Za-z0-9_-`, `A-Za-z0-9_-`, 520),
		},
		"django-secret-key":        {refRegex([]string{"django-insecure-"}, `django-insecure-[a-z0-9!@#$%^&*(\-_=+)]{40,60}`, `A-Za-z0-9_-`, "", 64)},
		"dependency-track-api-key": {refTok([]string{"odt_"}, `odt_[A-Za-z0-9_]{32,64}`, refW, refBody(4, 2))},
		"vault-unseal-key": {
			refRegex([]string{"unseal key "}, `(?i:unseal key) [0-9]{1,2}: ([A-Za-z0-9+/]{43,88}={0,2}|[0-9a-f]{64})`, `A-Za-z0-9_`, `A-Za-z0-9+/=`, 100),
			refRegex([]string{"initial root token: "}, `(?i:initial root token): ((?:hvs\.|s\.)[A-Za-z0-9_.-]{20,200})`, `A-Za-z0-9_`, `A-Za-z0-9_.-`, 210),
		},
	}
}
