package scanners

// ConfusableLatin returns the Latin letter that r is drawn like, when r is
// one of the Cyrillic, Greek and Armenian letters the Normalizer folds
// inside mixed-script words (normalize_confusable.go). It lets a caller
// that matches short labels (package elicit folds every look-alike of a
// form field name, not only those of mixed-script words) use the same
// table instead of keeping its own.
func ConfusableLatin(r rune) (byte, bool) {
	b, ok := confusables[r]
	return b, ok
}
