package receipt

import (
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/internal/lazyre"
)

// TestPatternsCompile: every pattern of the package, compiled on first use
// (internal/lazyre), compiles, as regexp.MustCompile at init checked.
func TestPatternsCompile(t *testing.T) {
	if err := lazyre.CompileAll(); err != nil {
		t.Fatal(err)
	}
}
