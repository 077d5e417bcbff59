package peertest

import (
	"encoding/json"
	"testing"
)

// TestInstall: the servers install from the committed lock (or are found
// in the cache) at exactly the versions package.json pins, and the lock
// pins the same versions. .ci/run runs it first, with
// MCP_SANITIZE_PEERS=require, to fill the cache.
func TestInstall(t *testing.T) {
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(packageJSON, &pkg); err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(packageLock, &lock); err != nil {
		t.Fatal(err)
	}
	if len(pkg.Dependencies) != 2 {
		t.Fatalf("package.json pins %d packages, want the two servers", len(pkg.Dependencies))
	}
	for name, v := range pkg.Dependencies {
		if got := lock.Packages["node_modules/"+name].Version; got != v {
			t.Errorf("package-lock.json has %s %q, package.json pins %q: run npm install --package-lock-only in internal/peertest/npm", name, got, v)
		}
	}
	s := Install(t)
	for name, v := range pkg.Dependencies {
		if s.Versions[name] != v {
			t.Errorf("installed %s %q, pinned %q", name, s.Versions[name], v)
		}
	}
}
