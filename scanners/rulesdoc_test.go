package scanners

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestRulesDocUpToDate fails when docs/rules.md differs from what the code
// generates.
func TestRulesDocUpToDate(t *testing.T) {
	path := filepath.Join("..", "docs", "rules.md")
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read %s: run go generate ./scanners", path)
	}
	var want bytes.Buffer
	if err := WriteRulesDoc(&want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want.Bytes()) {
		t.Fatalf("%s is out of date with the rules: run go generate ./scanners (or go run ./scanners/internal/rulesdoc > docs/rules.md)", path)
	}
}

// TestCatalogSize: the default catalog holds at least 150 rules (issue 3).
func TestCatalogSize(t *testing.T) {
	const want = 150
	c := newTestCatalog(t, CatalogOptions{})
	if n := len(c.Rules()); n < want {
		t.Fatalf("default catalog has %d rules, want at least %d", n, want)
	}
}

// TestRuleMetadata: every rule has the fields docs/rules.md lists.
func TestRuleMetadata(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range builtinRules() {
		if !ruleIDRe.MatchString(r.id) || seen[r.id] {
			t.Errorf("rule id %q: not [a-z0-9-]+ or not unique", r.id)
		}
		seen[r.id] = true
		if r.provider == "" || r.desc == "" || len(r.forms) == 0 {
			t.Errorf("rule %s: provider, description and forms are required", r.id)
		}
		switch r.confidence {
		case "high", "medium", "low":
		default:
			t.Errorf("rule %s: confidence %q", r.id, r.confidence)
		}
	}
}
