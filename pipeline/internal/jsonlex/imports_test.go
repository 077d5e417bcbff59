package jsonlex

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestKnowsJSONOnly enforces by imports that the lexer knows JSON only: its
// code imports unicode/utf8 and nothing else (no MCP, no policy, no
// scanners, no I/O).
func TestKnowsJSONOnly(t *testing.T) {
	allowed := map[string]bool{"unicode/utf8": true}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	n := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		n++
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if !allowed[path] {
				t.Errorf("%s imports %q: the lexer may import only %v", name, path, allowed)
			}
		}
	}
	if n == 0 {
		t.Fatal("no source files found")
	}
}
