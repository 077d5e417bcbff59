package pipeline

import (
	"slices"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline/internal/jsonlex"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The lexer spells its reasons itself (it imports nothing of ours); each
// must be a declared wire.Reason, so evidence keeps one vocabulary.
func TestLexerReasonsAreDeclared(t *testing.T) {
	declared := wire.Reasons()
	for e := jsonlex.ErrExpectedValue; ; e++ {
		name := e.String()
		if name == "jsonlex-error" {
			break
		}
		if !slices.Contains(declared, wire.Reason(name)) {
			t.Errorf("jsonlex reason %q is not a wire.Reason", name)
		}
	}
}
