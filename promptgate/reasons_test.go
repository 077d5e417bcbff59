package promptgate

import (
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Every reason of the guard is a declared wire.Reason.
func TestReasonsAreWireReasons(t *testing.T) {
	known := map[wire.Reason]bool{}
	for _, r := range wire.Reasons() {
		known[r] = true
	}
	for _, r := range Reasons() {
		if !known[wire.Reason(r)] {
			t.Errorf("reason %q is not a wire.Reason", r)
		}
	}
}
