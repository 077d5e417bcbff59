package scanners

// Reference forms of rules_families3.go: the format's regexp at every
// keyword occurrence, and the value test written out as a regexp.

func init() { refFormsMore = append(refFormsMore, refFamily3Forms) }

func refFamily3Forms() map[string][]refForm {
	return map[string][]refForm{
		"truenas-api-key": {refChecked(refRegex([]string{"params"},
			`params\\?"[\t\n\r ]{0,16}:[\t\n\r ]{0,16}\[[\t\n\r ]{0,16}\\?"([0-9]{1,6}-[A-Za-z0-9]{64})\\?"`, `A-Za-z0-9_`, "", 120), `[A-Z]`, `[a-z]`, `[0-9]`)},
		"softlayer-api-key": {refChecked(refRegex([]string{"api.softlayer.com/"},
			`(?i:api\.softlayer\.com)/(?:soap|rest)/v3(?:\.1)?/([A-Za-z0-9]{64})\b`, "", "", 90), `[A-Za-z]`, `[0-9]`)},
	}
}
