package resuri

// Reason says why a URI or template was refused. Reasons are stable,
// kebab-case names: they reach evidence (never the public reply, which is
// one non-enumerating error for every refusal).
type Reason string

// Reasons.
const (
	// ReasonTooLong: the URI is longer than Options.MaxLength bytes, has more
	// than MaxSegments segments, or a segment longer than MaxSegmentBytes.
	ReasonTooLong Reason = "uri-too-long"
	// ReasonNUL: a raw NUL byte.
	ReasonNUL Reason = "uri-nul"
	// ReasonSyntax: not scheme://authority/path, a character that is not
	// allowed raw in a URI (space, quote, angle bracket, brace, ...), or
	// invalid UTF-8.
	ReasonSyntax Reason = "uri-syntax"
	// ReasonScheme: a scheme the options do not configure.
	ReasonScheme Reason = "uri-scheme"
	// ReasonAuthority: an authority that is not a root alias, host or
	// token of the scheme's grammar (user info, an IPv6 literal, a bad
	// port, non-ASCII).
	ReasonAuthority Reason = "uri-authority"
	// ReasonUnknownRoot: a root alias, file root or host that the
	// configuration does not list.
	ReasonUnknownRoot Reason = "uri-unknown-root"
	// ReasonQueryOrFragment: a fragment, or a query where the scheme allows
	// none.
	ReasonQueryOrFragment Reason = "uri-query-or-fragment"
	// ReasonEmptySegment: an empty path segment ("a//b", a trailing slash,
	// no path at all where one is needed).
	ReasonEmptySegment Reason = "uri-empty-segment"
	// ReasonDotSegment: a "." or ".." segment, raw or percent-encoded.
	ReasonDotSegment Reason = "uri-dot-segment"
	// ReasonEncodedSeparator: %2F, %5C or %00 in a segment, any letter case.
	ReasonEncodedSeparator Reason = "uri-encoded-separator"
	// ReasonBackslash: a raw backslash.
	ReasonBackslash Reason = "uri-backslash"
	// ReasonBadEncoding: a '%' not followed by two hex digits, or percent
	// escapes that decode to invalid UTF-8.
	ReasonBadEncoding Reason = "uri-bad-encoding"
	// ReasonDoubleEncoding: a decoded segment still holds a %XX escape.
	ReasonDoubleEncoding Reason = "uri-double-encoding"
	// ReasonControl: a decoded segment holds a control character (C0, DEL,
	// C1) or an invisible format character (bidi controls, zero-width
	// characters).
	ReasonControl Reason = "uri-control-char"
	// ReasonNotNFC: a decoded segment is not in Unicode normalization form C.
	ReasonNotNFC Reason = "uri-not-nfc"
	// ReasonLookalike: a segment whose compatibility form is "." or "..", or
	// that holds a character a filesystem or a reader may take for a path
	// separator (fullwidth or division slash, reverse solidus operator).
	ReasonLookalike Reason = "uri-lookalike-separator"
	// ReasonAmbiguousSegment: a segment that ends in a dot or a space, which
	// some platforms strip, so that two URIs would name one object.
	ReasonAmbiguousSegment Reason = "uri-ambiguous-segment"
	// ReasonTemplate: a URI template that is not RFC 6570 (level 4), puts
	// an expression in the scheme or authority, or expands to more than
	// MaxLength bytes.
	ReasonTemplate Reason = "uri-template"
)

// Reasons lists every reason in declaration order.
func Reasons() []Reason {
	return []Reason{ReasonTooLong, ReasonNUL, ReasonSyntax, ReasonScheme, ReasonAuthority,
		ReasonUnknownRoot, ReasonQueryOrFragment, ReasonEmptySegment, ReasonDotSegment,
		ReasonEncodedSeparator, ReasonBackslash, ReasonBadEncoding, ReasonDoubleEncoding,
		ReasonControl, ReasonNotNFC, ReasonLookalike, ReasonAmbiguousSegment, ReasonTemplate}
}

// Error is a refused URI or template. It carries the reason and the index
// of the path segment where it was seen (-1 when the refusal is not of one
// segment); never any part of the input.
type Error struct {
	Reason  Reason
	Segment int
}

func (e *Error) Error() string {
	if e.Segment >= 0 {
		return "resuri: " + string(e.Reason) + " in segment " + itoa(e.Segment)
	}
	return "resuri: " + string(e.Reason)
}

// Is matches another *Error of the same reason, so that
// errors.Is(err, &resuri.Error{Reason: resuri.ReasonDotSegment}) works
// whatever the segment.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == e.Reason
}

func fail(r Reason) *Error            { return &Error{Reason: r, Segment: -1} }
func failAt(r Reason, seg int) *Error { return &Error{Reason: r, Segment: seg} }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
