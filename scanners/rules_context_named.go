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

// keyNumber reports a key name's suffix of one or two digits after the word
// key (sumoKey1, braintrust_key2): one of several keys, numbered.
func keyNumber(suffix []byte) bool {
	if len(suffix) == 0 || len(suffix) > 2 {
		return false
	}
	for _, c := range suffix {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// queryParam reports whether the key name starting at d[p] is a URL query
// parameter: right after '?' or '&' (?key=…, &token=…). A bare token, secret
// or key there is an API credential, not a cursor or an id, so it takes the
// values of a named key.
func queryParam(d []byte, p int) bool {
	return p > 0 && (d[p-1] == '?' || d[p-1] == '&')
}

// Limits of the code forms of an assignment.
const (
	subscriptLen = 1                 // the ']' of env["NAME"] = "v"
	nextLineMax  = 2 + 2*ctxMaxSpace // a line break (or its \n escape) and the indent of the next line
)

// nextLineQuote returns where a quoted value starts when, after an
// operator at the end of a line, it is on the next line (const apiKey =
// then "v" indented below it): past the line feed, or its JSON escape \n,
// and at most 2*ctxMaxSpace spaces or tabs, when a quote follows there;
// otherwise i. short reports that the data ended before that was known.
func nextLineQuote(d []byte, i int) (start int, short bool) {
	j := i
	switch {
	case j >= len(d) || d[j] == '\\' && j+1 >= len(d):
		return i, true
	case d[j] == '\n':
		j++
	case d[j] == '\\' && d[j+1] == 'n':
		j += 2
	default:
		return i, false
	}
	k := j
	for k < len(d) && k-j < 2*ctxMaxSpace && setCtxSpace[d[k]] {
		k++
	}
	if k+1 >= len(d) {
		return i, true // a quote, or \" , may follow
	}
	if q, _ := quoteAt(d, k); q == 0 {
		return i, false
	}
	return k, false
}
