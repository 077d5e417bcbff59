package scanners

import "regexp"

// Reference form of facebook-app-token (rules_facebook.go).

func init() {
	refFormsMore = append(refFormsMore, func() map[string][]refForm {
		return map[string][]refForm{"facebook-app-token": {
			{keywords: []string{"facebook"}, atKw: refFacebookAppToken},
		}}
	})
}

var refFacebookValue = regexp.MustCompile(`^([0-9]{15,16}\|([A-Za-z0-9_-]{27,40}))(?:[^A-Za-z0-9_-]|$)`)

func refFacebookAppToken(s string, p, k int) (int, int, ChecksumResult, bool) {
	if p > 0 && refAlnum(s[p-1]) {
		return 0, 0, 0, false
	}
	name := refIdentHead.FindString(s[p+k:])
	if len(name) > fbMaxName {
		return 0, 0, 0, false
	}
	i := p + k + len(name)
	sep := refSumoSep.FindString(s[i:])
	if sep == "" || len(sep) > fbMaxSep {
		return 0, 0, 0, false
	}
	i += len(sep)
	m := refFacebookValue.FindStringSubmatchIndex(s[i:])
	if m == nil {
		return 0, 0, 0, false
	}
	tail := s[i+m[4] : i+m[5]]
	if placeholderBody([]byte(tail)) || !(refUpper.MatchString(tail) && refLower.MatchString(tail) ||
		refUpper.MatchString(tail) && refDigit.MatchString(tail) || refLower.MatchString(tail) && refDigit.MatchString(tail)) {
		return 0, 0, 0, false
	}
	return i + m[2], i + m[3], ChecksumNone, true
}
