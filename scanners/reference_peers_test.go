package scanners

import (
	"encoding/base64"
	"regexp"
	"strings"
)

// Reference forms of the rules of rules_peers.go: regexps and plain string
// code, written independently of the rule declarations (see
// reference_test.go for the contract).

func init() { refFormsMore = append(refFormsMore, refPeers) }

var (
	refDropboxShortP = regexp.MustCompile(`^sl\.[A-Za-z0-9_-]{135}$`)
	refDropboxLongP  = regexp.MustCompile(`^[A-Za-z0-9]{11}AAAAAAAAAA[A-Za-z0-9_-]{43}$`)
	refYandexIAMP    = regexp.MustCompile(`^t1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{86}$`)
	refMaxMindP      = regexp.MustCompile(`^[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk$`)
)

// refClassesAtLeast returns a refToken post func: what follows the first
// skip bytes of the match holds at least n of upper case, lower case and
// digits.
func refClassesAtLeast(skip, n int) func(string) (bool, ChecksumResult) {
	return func(m string) (bool, ChecksumResult) { return refClassesB(m[skip:]) >= n, ChecksumNone }
}

// refMapboxPayload: the part between "sk." and the last '.' is unpadded
// base64url of a JSON object that holds ","a":" and ends with "}.
func refMapboxPayload(m string) (bool, ChecksumResult) {
	payload := m[3:strings.LastIndex(m, ".")]
	dec, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return false, ChecksumNone
	}
	s := string(dec)
	return strings.Contains(s, `","a":"`) && strings.HasSuffix(s, `"}`), ChecksumNone
}

// refMaxMind: a key whose "_mmk" is the keyword occurrence at p.
func refMaxMind() refForm {
	word := regexp.MustCompile(`^[A-Za-z0-9_]$`)
	return refForm{keywords: []string{"_mmk"}, at: func(s string, p int) (int, int, ChecksumResult, bool) {
		a, e := p-36, p+4
		if a < 0 || !refMaxMindP.MatchString(s[a:e]) {
			return 0, 0, 0, false
		}
		if a > 0 && word.MatchString(s[a-1:a]) || e < len(s) && word.MatchString(s[e:e+1]) {
			return 0, 0, 0, false
		}
		if refClassesB(s[a:p]) != 3 {
			return 0, 0, 0, false
		}
		return a, e, ChecksumNone, true
	}}
}

func refPeers() map[string][]refForm {
	return map[string][]refForm{
		"mapbox-secret-token": {refToken([]string{"sk.eyJ1Ijoi"}, `sk\.eyJ1Ijoi[A-Za-z0-9_-]{20,400}\.[A-Za-z0-9_-]{22}`, `A-Za-z0-9_.-`, refWD, refMapboxPayload)},
		"facebook-page-access-token": {refToken([]string{"EAAM", "EAAC"}, `EAA[MC][A-Za-z0-9]{100,512}`, `A-Za-z0-9_+/`, `A-Za-z0-9_+/=-`,
			refClassesAtLeast(4, 3))},
		"dropbox-short-lived-token": {
			refNamedB([]string{"dropbox"}, 24, nil, `A-Za-z0-9_.-`, 138, 138, refDropboxShortP.MatchString),
			refTok([]string{"sl.B"}, `sl\.B[A-Za-z0-9_=-]{134}`, refWDE, refClassesAtLeast(4, 3)),
		},
		"dropbox-long-lived-token": {refNamedB([]string{"dropbox"}, 24, nil, `A-Za-z0-9_-`, 64, 64, refDropboxLongP.MatchString)},
		"readme-api-key":           {refTok([]string{"rdme_"}, `rdme_[a-z0-9]{70}`, refW, refClassesAtLeast(5, 2))},
		"typeform-api-token":       {refToken([]string{"tfp_"}, `tfp_[A-Za-z0-9_=-]{59}`, refWD, refWDE, refClassesAtLeast(4, 3))},
		"frameio-api-token":        {refToken([]string{"fio-u-"}, `fio-u-[A-Za-z0-9_=-]{64}`, refWD, refWDE, refClassesAtLeast(6, 3))},
		"defined-networking-api-token": {refToken([]string{"dnkey-"}, `dnkey-[A-Za-z0-9_=-]{26}-[A-Za-z0-9_=-]{52}`, refWD, refWDE,
			refClassesAtLeast(6, 2))},
		"adobe-client-secret":     {refTok([]string{"p8e-"}, `p8e-[A-Za-z0-9]{32}`, refWD, refClassesAtLeast(4, 2))},
		"settlemint-access-token": {refTok([]string{"sm_aat_", "sm_pat_", "sm_sat_"}, `sm_[aps]at_[A-Za-z0-9]{16}`, refW, refClassesAtLeast(7, 2))},
		"intra42-client-secret":   {refTok([]string{"s-s4t2ud-", "s-s4t2af-"}, `s-s4t2(?:ud|af)-[0-9a-fA-F]{64}`, refWD, refClassesAtLeast(9, 2))},
		"maxmind-license-key":     {refMaxMind()},
		"yandex-iam-token":        {refNamedB([]string{"yandex"}, 24, nil, `A-Za-z0-9_.-`, 91, 512, refYandexIAMP.MatchString)},
		"airtable-pat": {refTok([]string{"pat"}, `pat[A-Za-z0-9]{14}\.[a-f0-9]{64}`, refW, func(m string) (bool, ChecksumResult) {
			return refClassesB(m[3:17]) >= 2, ChecksumNone
		})},
		"openshift-user-token": {refTok([]string{"sha256~"}, `sha256~[A-Za-z0-9_-]{43}`, refWD, refClassesAtLeast(7, 3))},
		"authress-access-key": {refToken([]string{"sc_", "ext_", "scauth_", "authress_"},
			`(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9][A-Za-z0-9-]{9,31}\.[A-Za-z0-9+/_=-]{30,120}`,
			refW, `A-Za-z0-9+/_=-`, func(m string) (bool, ChecksumResult) {
				return refClassesB(m[strings.LastIndex(m, ".")+1:]) >= 2, ChecksumNone
			})},
	}
}
