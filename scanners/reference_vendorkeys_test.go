package scanners

import (
	"fmt"
	"strings"
)

// Reference forms of rules_vendorkeys.go: each vendor's name, a key-name
// suffix, separators, and the body, written out as one regexp per rule.

func init() { refFormsMore = append(refFormsMore, refVendorKeyForms) }

func refVendorKeyForms() map[string][]refForm {
	m := map[string][]refForm{}
	for _, k := range vendorKeys() {
		body := k.shape
		if body == "" {
			var alt []string
			for i := len(k.n) - 1; i >= 0; i-- {
				alt = append(alt, fmt.Sprintf("[%s]{%d}", k.class, k.n[i]))
			}
			body = strings.Join(alt, "|")
		}
		var names []string
		for _, n := range k.names {
			names = append(names, strings.ReplaceAll(n, ".", `\.`))
		}
		re := fmt.Sprintf(`(?i:%s)[A-Za-z0-9_. -]{0,24}?[^A-Za-z0-9\n]{1,6}(%s)`, strings.Join(names, "|"), body)
		long := 0
		for _, n := range k.names {
			long = max(long, len(n))
		}
		m[k.id] = []refForm{refCheckedFn(refChecked(refRegex(k.names, re, `A-Za-z0-9`, k.class, 24+6+k.maxLen()+1), `[A-Za-z]`, `[0-9]`), refNoRun6)}
	}
	return m
}

// refNoRun6: no byte six times in a row, and not filler.
func refNoRun6(v string) bool {
	for i := 0; i+6 <= len(v); i++ {
		if strings.Count(v[i:i+6], v[i:i+1]) == 6 {
			return false
		}
	}
	return !placeholderBody([]byte(v))
}

// refCheckedFn keeps f's matches whose value ok accepts.
func refCheckedFn(f refForm, ok func(string) bool) refForm {
	at := f.at
	f.at = func(s string, p int) (int, int, ChecksumResult, bool) {
		a, b, c, found := at(s, p)
		if found && !ok(s[a:b]) {
			return 0, 0, 0, false
		}
		return a, b, c, found
	}
	return f
}
