package scanners

import (
	"regexp"
	"strings"
)

// Reference forms of the rules of rules_vendor.go: regexps over the whole
// string, written independently of the rule declarations (see
// reference_test.go for the contract).

func init() { refFormsMore = append(refFormsMore, refVendor) }

var (
	refTableauP = regexp.MustCompile(`^[A-Za-z0-9+/]{22}==:[A-Za-z0-9]{32}`)
	refACRP     = regexp.MustCompile(`^[A-Za-z0-9+/]{42}\+ACR[A-Za-z0-9]{6}`)
	refAzSuffix = regexp.MustCompile(`^[A-Za-z0-9_]*`)
	refAzGlue   = regexp.MustCompile(`^(?:\\[ntr]|[ \t\r\n"'` + "`" + `{}\[\]()<>,:=|]|\\)*`)
	refAzKey    = regexp.MustCompile(`^[A-Za-z0-9+/]{86}==`)
	refB64PadB  = regexp.MustCompile(`^[A-Za-z0-9+/=]$`)
	refB64B     = regexp.MustCompile(`^[A-Za-z0-9+/]$`)
)

// refRunStart: a run of base64 may start at a: the string starts there, the
// byte before is no base64 byte, or it is the letter of a \n, \t or \r
// escape.
func refRunStart(s string, a int) bool {
	if a == 0 || !refB64B.MatchString(s[a-1:a]) {
		return true
	}
	return a >= 2 && s[a-2] == '\\' && strings.IndexByte("ntr", s[a-1]) >= 0
}

func refVendor() map[string][]refForm {
	return map[string][]refForm{
		"tableau-pat-secret": {{keywords: []string{"==:"}, at: func(s string, p int) (int, int, ChecksumResult, bool) {
			a := p - 22
			if a < 0 || !refRunStart(s, a) {
				return 0, 0, 0, false
			}
			m := refTableauP.FindStringIndex(s[a:])
			if m == nil {
				return 0, 0, 0, false
			}
			e := a + m[1]
			if e < len(s) && (refB64PadB.MatchString(s[e:e+1]) || s[e] == '_') {
				return 0, 0, 0, false
			}
			if refClasses(s[a:p]) < 2 || refClasses(s[p+3:e]) < 2 || placeholderBody([]byte(s[p+3:e])) {
				return 0, 0, 0, false
			}
			return a, e, ChecksumNone, true
		}}},
		"azure-container-registry-password": {{keywords: []string{"+acr"}, at: func(s string, p int) (int, int, ChecksumResult, bool) {
			a := p - 42
			if a < 0 || !refRunStart(s, a) {
				return 0, 0, 0, false
			}
			m := refACRP.FindStringIndex(s[a:])
			if m == nil {
				return 0, 0, 0, false
			}
			e := a + m[1]
			if e < len(s) && refB64PadB.MatchString(s[e:e+1]) {
				return 0, 0, 0, false
			}
			if refClasses(s[a:e]) < 3 || placeholderBody([]byte(s[a:p])) {
				return 0, 0, 0, false
			}
			return a, e, ChecksumNone, true
		}}},
		"salesforce-consumer-key": {refTok([]string{"3MVG9"}, `3MVG9[A-Za-z0-9._]{75,251}`, `A-Za-z0-9._`, refBody(5, 3))},
		"azure-storage-key-named": {{
			keywords: []string{"accountkey", "account_key", "account-key", "storagekey", "storage_key", "storage-key"},
			atKw: func(s string, p, k int) (int, int, ChecksumResult, bool) {
				i := p + k
				suffix := refAzSuffix.FindString(s[i:])
				if len(suffix) > azKeyMaxSuffix {
					return 0, 0, 0, false
				}
				i += len(suffix)
				glue := refAzGlue.FindString(s[i:])
				if glue == "" || len(glue) > azKeyMaxGlue {
					return 0, 0, 0, false
				}
				a := i + len(glue)
				if !refAzKey.MatchString(s[a:]) {
					return 0, 0, 0, false
				}
				e := a + 88
				if e < len(s) && refB64PadB.MatchString(s[e:e+1]) {
					return 0, 0, 0, false
				}
				if refClasses(s[a:e-2]) < 3 || placeholderBody([]byte(s[a:e-2])) {
					return 0, 0, 0, false
				}
				return a, e, ChecksumNone, true
			},
		}},
		"rootly-api-key":    {refTok([]string{"rootly_"}, `rootly_[a-f0-9]{64}`, `A-Za-z0-9_`, refBody(7, 2))},
		"spectralops-token": {refTok([]string{"spu-"}, `spu-[a-f0-9]{32}`, `A-Za-z0-9_-`, refBody(4, 2))},
	}
}
