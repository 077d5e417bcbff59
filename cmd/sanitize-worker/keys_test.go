package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
)

func keysCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runKeys(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestKeysLifecycle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ring.json")
	if code, _, stderr := keysCmd(t, "new", "--file", path); code != exitOK {
		t.Fatalf("new: %d %s", code, stderr)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("file mode: %v %v", st.Mode(), err)
	}
	if code, _, stderr := keysCmd(t, "new", "--file", path); code != exitFailure || !strings.Contains(stderr, "--force") {
		t.Fatalf("new over an existing ring: %d %s", code, stderr)
	}
	first := loadRing(t, path)

	// Seal with the first key, rotate, and the state still opens.
	keyring, _ := statekeys.NewKeyring(first)
	keeper, _ := statekeys.New(keyring, &statekeys.MemoryStore{})
	id := statekeys.Identity{Subject: "u", Tenant: "acme", ClientID: "c"}
	op := statekeys.Operation{Method: statekeys.MethodToolsCall, Name: "t"}
	sealed, _, err := keeper.Seal(context.Background(), statekeys.SealRequest{Identity: id, Operation: op})
	if err != nil {
		t.Fatal(err)
	}

	if code, stdout, stderr := keysCmd(t, "rotate", "--file", path); code != exitOK || !strings.Contains(stdout, "active key is now") {
		t.Fatalf("rotate: %d %s %s", code, stdout, stderr)
	}
	second := loadRing(t, path)
	if second.Active().ID == first.Active().ID || len(second.Keys()) != 2 {
		t.Fatalf("after rotate: %v", second.Keys())
	}
	keyring.Swap(second)
	if _, _, err := keeper.Verify(context.Background(), statekeys.VerifyRequest{RequestState: sealed.RequestState, Identity: id, Operation: op}); err != nil {
		t.Fatalf("old-key state after rotate: %s", statekeys.ReasonOf(err))
	}

	// Stage, then promote.
	if code, stdout, _ := keysCmd(t, "rotate", "--stage", "--file", path); code != exitOK || !strings.Contains(stdout, "staged key") {
		t.Fatalf("rotate --stage: %d %s", code, stdout)
	}
	if loadRing(t, path).Active().ID != second.Active().ID {
		t.Fatal("staging changed the active key")
	}
	keysCmd(t, "rotate", "--file", path)
	third := loadRing(t, path)
	if third.Active().ID == second.Active().ID || len(third.Keys()) != 3 {
		t.Fatalf("promotion: %v", third.Keys())
	}

	// Retire the first key; retiring the active one is refused.
	if code, _, stderr := keysCmd(t, "retire", "--file", path, "--id", third.Active().ID); code != exitFailure {
		t.Fatalf("retire active: %d %s", code, stderr)
	}
	if code, _, stderr := keysCmd(t, "retire", "--file", path, "--id", first.Active().ID); code != exitOK {
		t.Fatalf("retire: %d %s", code, stderr)
	}

	// list shows ids, states and times, never key material.
	code, stdout, _ := keysCmd(t, "list", "--file", path)
	if code != exitOK || !strings.Contains(stdout, "retired") || !strings.Contains(stdout, "active") || !strings.Contains(stdout, first.Active().ID) {
		t.Fatalf("list: %d %s", code, stdout)
	}
	raw, _ := os.ReadFile(path)
	var doc struct {
		Keys []struct {
			Secret string `json:"secret"`
		} `json:"keys"`
	}
	json.Unmarshal(raw, &doc)
	code, jsonOut, _ := keysCmd(t, "list", "--json", "--file", path)
	for _, k := range doc.Keys {
		if k.Secret == "" || strings.Contains(stdout, k.Secret) || strings.Contains(jsonOut, k.Secret) {
			t.Fatalf("list printed key material")
		}
	}
	var infos []statekeys.KeyInfo
	if code != exitOK || json.Unmarshal([]byte(jsonOut), &infos) != nil || len(infos) != 3 {
		t.Fatalf("list --json: %d %s", code, jsonOut)
	}
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Fatal("lock file left behind")
	}
}

func TestKeysUsageErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ring.json")
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no-subcommand", nil, exitUsage, "missing subcommand"},
		{"unknown-subcommand", []string{"delete"}, exitUsage, "unknown subcommand"},
		{"unknown-flag", []string{"list", "--bogus"}, exitUsage, "bogus"},
		{"extra-argument", []string{"list", "--file", path, "extra"}, exitUsage, "unexpected argument"},
		{"retire-without-id", []string{"retire", "--file", path}, exitUsage, "--id is required"},
		{"empty-file", []string{"new", "--file", ""}, exitUsage, "--file"},
		{"list-missing-file", []string{"list", "--file", path}, exitFailure, "cannot read"},
		{"rotate-missing-file", []string{"rotate", "--file", path}, exitFailure, "cannot read"},
		{"help", []string{"help"}, exitOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := keysCmd(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.msg) {
				t.Fatalf("code %d stderr %q", code, stderr)
			}
		})
	}
}

func TestKeysRefusesWorldReadableFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ring.json")
	keysCmd(t, "new", "--file", path)
	os.Chmod(path, 0o644)
	if code, _, stderr := keysCmd(t, "rotate", "--file", path); code != exitFailure || !strings.Contains(stderr, "0600") {
		t.Fatalf("rotate of a world-readable ring: %d %s", code, stderr)
	}
}

func loadRing(t *testing.T, path string) *statekeys.Ring {
	t.Helper()
	r, err := statekeys.FileSource{Path: path}.Load(context.Background())
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	return r
}
