package scanners

// A provider token stands apart from the words around it. A prefixed
// token's match glued into a file name (video_box.ico-<32 hex>.png) or
// ending a URL path segment with an extension (/assets/ico-<hex>.png) is
// the hash part of that name, which no provider format puts there.

// fileExtMax is the longest file extension fileNamePart reads.
const fileExtMax = 5

// fileNameLook is how many bytes after a match fileNamePart reads: the dot,
// the extension and the byte after it.
const fileNameLook = 1 + fileExtMax + 1

// fileNameBack is how many bytes before a match fileNamePart reads.
const fileNameBack = 2

// fileNamePart reports a match d[start:end] that is part of a file name:
// it follows a name and a '.', '-' or '_' (or a '/' of a path), and a dot
// and an extension follow it (1 to fileExtMax letters and digits of one
// case, the first a letter), then a byte that ends a name (anything but a
// letter, a digit, '_' or '-') or the end of d. d must hold fileNameBack
// bytes before start where the string has them, and fileNameLook after
// end where the string has them.
func fileNamePart(d []byte, start, end int) bool {
	if start < 1 || end >= len(d) || d[end] != '.' {
		return false
	}
	switch d[start-1] {
	case '/':
	case '.', '-', '_':
		if start < 2 || !setAlnum[d[start-2]] {
			return false
		}
	default:
		return false
	}
	i := end + 1
	for i < len(d) && i-end-1 < fileExtMax+1 && setAlnum[d[i]] {
		i++
	}
	n := i - end - 1
	if n < 1 || n > fileExtMax || !setLetters[d[end+1]] || !oneCase(d[end+1:i]) {
		return false
	}
	return i == len(d) || !setWordDash[d[i]]
}

// escapeBack is how many bytes before a match jsonEscapeBefore reads.
const escapeBack = 3

// jsonEscapeBefore reports a JSON escape of a line break or a tab (\n, \t,
// \r; its backslash not itself escaped) just before d[ks]: in JSON-escaped
// text (a file read) a token at the start of a line follows one, and its
// letter is no word the token is glued to. d must hold escapeBack bytes
// before ks where the string has them.
func jsonEscapeBefore(d []byte, ks int) bool {
	if ks < 2 || d[ks-2] != '\\' || ks >= 3 && d[ks-3] == '\\' {
		return false
	}
	switch d[ks-1] {
	case 'n', 't', 'r':
		return true
	}
	return false
}
