package pipeline_test

import (
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// noInternal fails a fuzz target (and any test) on an INTERNAL result: a
// recovered panic, a read or an output error is never an acceptable
// outcome of an input, however odd.
func noInternal(t testing.TB, ev *pipeline.Evidence) {
	t.Helper()
	if ev.Code == pipeline.CodeInternal {
		t.Fatalf("INTERNAL %s at input offset %d (%s)", ev.Reason, ev.ErrorOffset, ev.ErrorPointer)
	}
}
