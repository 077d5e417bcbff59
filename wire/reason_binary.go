package wire

// Reasons of the binary content rules (pipeline/binary.go,
// docs/pipeline.md "Binary content"). A content block whose binary data
// breaks one of them is replaced by a text block that names the reason
// (policy binary.disallowed "replace", the default) or the whole result is
// rejected with it ("reject").
const (
	// ReasonBinaryTypeMismatch: the decoded bytes of image, audio or blob
	// data do not start with the signature of the declared mimeType (a PNG
	// that is text, a WAV that is a script), or base64 data sits in a block
	// whose type is not image or audio (INVALID_CONTENT under "reject").
	ReasonBinaryTypeMismatch Reason = "binary-type-mismatch"
	// ReasonBinaryHoldBytes: a block's base64 data came before its
	// mimeType and more of it than the binary-hold-bytes limit was read
	// before the type was known (BOUND_EXCEEDED under "reject"); also the
	// id of that limit.
	ReasonBinaryHoldBytes Reason = "binary-hold-bytes"
)

// binaryReasons lists the reasons above for Reasons.
var binaryReasons = []Reason{ReasonBinaryTypeMismatch, ReasonBinaryHoldBytes}

// BinaryBoundMessage is the public message of a result withheld because
// binary data crossed its bound (reasons binary-bytes and
// binary-hold-bytes): it names what to ask for, not fields or pages.
const BinaryBoundMessage = "The tool output held binary content (an image, audio or a file) larger than the limit for binary data, so it was withheld. Ask for a smaller file or a lower resolution, or read the file in parts."

// ReasonPublicMessage returns the public message of a failure with code c
// and reason r: the code's own message, or a more fitting one for the
// reason where there is one (a binary bound is not narrowed by "fewer
// fields").
func ReasonPublicMessage(c Code, r Reason) string {
	if c == CodeBoundExceeded && (r == ReasonBinaryBytes || r == ReasonBinaryHoldBytes) {
		return BinaryBoundMessage
	}
	return c.PublicMessage()
}
