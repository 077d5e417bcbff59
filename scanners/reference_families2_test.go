package scanners

import "regexp"

// Reference forms of rules_families2.go: the format's regexp at every
// keyword occurrence, and the value test written out as a regexp.

func init() { refFormsMore = append(refFormsMore, refFamily2Forms) }

// refChecked keeps f's matches whose value matches every one of res.
func refChecked(f refForm, res ...string) refForm {
	var rxs []*regexp.Regexp
	for _, r := range res {
		rxs = append(rxs, regexp.MustCompile(r))
	}
	at := f.at
	f.at = func(s string, p int) (int, int, ChecksumResult, bool) {
		a, b, c, ok := at(s, p)
		if !ok {
			return a, b, c, ok
		}
		for _, rx := range rxs {
			if !rx.MatchString(s[a:b]) {
				return 0, 0, 0, false
			}
		}
		return a, b, c, ok
	}
	return f
}

func refFamily2Forms() map[string][]refForm {
	const wd, an = `A-Za-z0-9_-`, `A-Za-z0-9`
	letter, digit, upper, lower := `[A-Za-z]`, `[0-9]`, `[A-Z]`, `[a-z]`
	return map[string][]refForm{
		"launchdarkly-access-token": {refRegex([]string{"api-", "sdk-", "mob-"},
			`(?:api|sdk|mob)-[a-z0-9]{8}-[a-z0-9]{4}-4[a-z0-9]{3}-[a-z0-9]{4}-[a-z0-9]{12}`, wd, wd, 41)},
		"asana-pat": {refRegex([]string{"asana"},
			`(?i:asana)[^\n\[\]]{0,30}?\b([0-9]{1,4}/[0-9]{16,32}(?:/[0-9]{16,32})?:[A-Za-z0-9]{32,80})\b`, an, "", 190)},
		"besttime-api-key": {refRegex([]string{"pri_", "pub_"}, `pri_[a-f0-9]{32}|pub_[a-f0-9]{32}`, wd, wd, 32)},
		"column-api-key":   {refChecked(refRegex([]string{"live_", "test_"}, `(?:live|test)_[A-Za-z0-9]{27}`, wd, wd, 27), upper, lower, digit)},
		"webex-bot-token": {refRegex([]string{"webex"},
			`(?i:webex)[^\n\[\]]{0,30}?\b([A-Za-z0-9]{64}_[A-Za-z0-9]{4}_[A-Za-z0-9]{8}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{12})\b`, an, "", 138)},
		"ipinfo-token": {refChecked(refRegex([]string{"ipinfo"},
			`(?i:ipinfo)[^\n\[\]]{0,30}?[ '"=:?&]([a-f0-9]{14})\b`, an, "", 45), letter, digit)},
		"mockaroo-api-key": {refChecked(refRegex([]string{"mockaroo"},
			`(?i:mockaroo)[^\n\[\]]{0,30}?[ '"=:?&]([a-z0-9]{8})\b`, an, "", 39), letter, digit)},
		"redhat-pyxis-token": {refChecked(refRegex([]string{"redhat", "pyxis"},
			`(?i:redhat|pyxis)[^\n\[\]]{0,30}?[ '"=:]([a-z0-9]{32})\b`, an, "", 63), letter, digit)},
		"smartsheet-api-token": {refChecked(refRegex([]string{"sheet"},
			`(?i:sheet)[A-Za-z0-9_]{0,20}[^\n'"\[\]]{0,12}?["']([A-Za-z0-9]{37}|[A-Za-z0-9]{26})["']`, "", "", 70), upper, lower, digit)},
		"twitch-access-token": {refChecked(refRegex([]string{"twitch"},
			`(?i:twitch)[A-Za-z0-9_]{0,24}['"]?[ \t]*(?:=>|:=|=|:)[ \t]*['"]([a-z0-9]{30})['"]`, an, "", 66), letter, digit)},
		"scrapingbee-api-key": {refChecked(refRegex([]string{"scrapingbee", "scraping_bee", "scraping bee"},
			`(?i:scraping[ _]?bee)[^\[\]]{0,60}?\b([A-Z0-9]{80})\b`, an, "", 141), letter, digit)},
		"sanity-api-token": {refRegex([]string{"sanity"}, `(?i:sanity)[^\n\[\]]{0,30}?\b(sk[A-Za-z0-9]{79})\b`, an, "", 112)},
	}
}
