package resgate

import (
	"errors"

	"github.com/mcp-sanitize/mcp-sanitize/receipt"
	"github.com/mcp-sanitize/mcp-sanitize/resuri"
)

// Reasons of the gate itself; a refused URI or receipt has the reason of
// package resuri or receipt.
const (
	// ReasonNoRequest: the requested URI is unknown (no request params).
	ReasonNoRequest = "resource-no-request"
	// ReasonMalformed: the result is not a resources/read result (no
	// contents array, a content that is not an object, no uri, both or
	// neither of text and blob, a blob that is not base64).
	ReasonMalformed = "resource-malformed"
	// ReasonTooLarge: the result is larger than the gate reads, or has too
	// many contents.
	ReasonTooLarge = "resource-too-large"
	// ReasonURIMismatch: a content's canonical URI is not the requested one.
	ReasonURIMismatch = "resource-uri-mismatch"
	// ReasonAuthzDenied: the hook answered anything but an explicit allow.
	ReasonAuthzDenied = "resource-authz-denied"
	// ReasonAuthzUnavailable: no hook, or it failed or timed out.
	ReasonAuthzUnavailable = "resource-authz-unavailable"
	// ReasonReceiptMissing: a local-file content without a receipt.
	ReasonReceiptMissing = "resource-receipt-missing"
	// ReasonBrokerUnavailable: local files are configured but no trusted
	// broker key is, so the local-file class is disabled.
	ReasonBrokerUnavailable = "resource-broker-unavailable"
)

// GateReasons lists the gate's own reasons.
func GateReasons() []string {
	return []string{ReasonNoRequest, ReasonMalformed, ReasonTooLarge, ReasonURIMismatch, ReasonAuthzDenied,
		ReasonAuthzUnavailable, ReasonReceiptMissing, ReasonBrokerUnavailable}
}

// AllReasons lists every reason a Denial may carry: the gate's, resuri's
// and receipt's.
func AllReasons() []string {
	r := GateReasons()
	for _, x := range resuri.Reasons() {
		r = append(r, string(x))
	}
	for _, x := range receipt.Reasons() {
		r = append(r, string(x))
	}
	return r
}

// Denial is a refused result. Reason is for evidence only.
type Denial struct {
	Reason string
	// Content is the index of the content refused, -1 for the request.
	Content int
}

func (d *Denial) Error() string { return "resgate: denied: " + d.Reason }

func deny(reason string, content int) *Denial { return &Denial{Reason: reason, Content: content} }

// denyErr turns an error of resuri or receipt into a Denial with its
// reason.
func denyErr(err error, content int) *Denial {
	var ue *resuri.Error
	if errors.As(err, &ue) {
		return deny(string(ue.Reason), content)
	}
	var re *receipt.Error
	if errors.As(err, &re) {
		return deny(string(re.Reason), content)
	}
	return deny(ReasonMalformed, content)
}
