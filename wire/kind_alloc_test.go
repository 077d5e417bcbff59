package wire_test

import (
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestParseKindAllocs: ParseKind runs once a message in the worker and
// must not build the kind list each time.
func TestParseKindAllocs(t *testing.T) {
	for _, s := range []string{string(wire.KindToolResult), string(wire.KindGeneric), "no-such-kind"} {
		if n := testing.AllocsPerRun(100, func() { wire.ParseKind(s) }); n != 0 {
			t.Errorf("ParseKind(%q): %v allocations, want 0", s, n)
		}
	}
}
