package scanners

import "strings"

// Reference forms of the shape tests that read bytes around a match
// (shape_filename.go); the pure ones (fileNamePart, placeholderBody, the
// value shapes) are shared.

// refEscapeBefore: \n, \t or \r (its backslash not escaped) just before p.
func refEscapeBefore(s string, p int) bool {
	if p < 2 || s[p-2] != '\\' || !strings.ContainsRune("ntr", rune(s[p-1])) {
		return false
	}
	return p < 3 || s[p-3] != '\\'
}
