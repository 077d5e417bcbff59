package scanners

// Value shapes that the assignment rules take after a named key (a
// provider's or a service's name before token, secret or key: parsehub
// token = '…'), beyond the ones plausibleValue takes after any key.

// Limits of randomLetters.
const (
	randLettersMin     = 12 // shortest value read as random letters
	randLettersMinCase = 3  // upper-case and lower-case letters each at least
	randLettersMaxRun  = 2  // longest mean run of lower-case letters
)

// randomLetters reports a value of letters only that reads as random rather
// than as a word or an identifier: at least randLettersMin bytes, both cases
// at least randLettersMinCase times, at least three runs of lower-case
// letters and a mean run of at most randLettersMaxRun of them. A word, a
// camel-case or Pascal-case identifier (getAccessToken, XMLHttpRequest) or
// a constant (BEARER) has longer runs or one case only; random base52 has
// runs of about two (half the letters are lower case).
func randomLetters(b []byte) bool {
	if len(b) < randLettersMin {
		return false
	}
	upper, lower, runs := 0, 0, 0
	prevLower := false
	for _, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			lower++
			if !prevLower {
				runs++
			}
			prevLower = true
		case 'A' <= c && c <= 'Z':
			upper++
			prevLower = false
		default:
			return false
		}
	}
	return upper >= randLettersMinCase && lower >= randLettersMinCase && runs >= 3 && lower <= randLettersMaxRun*runs
}
