package peertest

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The pinned servers: package.json names the versions, package-lock.json
// every transitive dependency with its integrity hash.
var (
	//go:embed npm/package.json
	packageJSON []byte
	//go:embed npm/package-lock.json
	packageLock []byte
)

// EnvCache names the cache directory of the installed servers.
const EnvCache = "MCP_SANITIZE_NPM_CACHE"

// EnvPeers set to "require" turns every reason to skip (no node, no npm,
// no registry) into a test failure; CI sets it.
const EnvPeers = "MCP_SANITIZE_PEERS"

// installTimeout bounds one `npm ci`.
const installTimeout = 5 * time.Minute

// Servers are the entry points of the installed servers, each run as
// `node <path> <args>`.
type Servers struct {
	// Node is the node executable.
	Node string
	// Everything is @modelcontextprotocol/server-everything's dist/index.js
	// (argument "stdio").
	Everything string
	// Filesystem is @modelcontextprotocol/server-filesystem's
	// dist/index.js (arguments: the allowed directories).
	Filesystem string
	// Versions maps each package name to its installed version.
	Versions map[string]string
}

// Unavailable skips the test with the reason, or fails it when
// MCP_SANITIZE_PEERS=require.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv(EnvPeers) == "require" {
		t.Fatalf("%s (%s=require)", msg, EnvPeers)
	}
	t.Skip(msg)
}

// CacheDir is the directory the servers are installed under.
func CacheDir() (string, error) {
	if d := os.Getenv(EnvCache); d != "" {
		return filepath.Abs(d)
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory (set %s): %w", EnvCache, err)
	}
	return filepath.Join(d, "mcp-sanitize", "npm"), nil
}

// LockKey names the install directory of the pinned lock file.
func LockKey() string {
	h := sha256.New()
	h.Write(packageJSON)
	h.Write([]byte{0})
	h.Write(packageLock)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Install returns the pinned servers, running `npm ci` into the cache when
// this lock file has not been installed there yet. It skips the test (see
// Unavailable) when node or npm is missing or the install fails.
func Install(t testing.TB) Servers {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		Unavailable(t, "node is not on PATH: the real MCP servers cannot run here")
	}
	dir, err := CacheDir()
	if err != nil {
		Unavailable(t, "%v", err)
	}
	dest := filepath.Join(dir, LockKey())
	if !installed(dest) {
		if err := install(dir, dest); err != nil {
			Unavailable(t, "installing the pinned MCP servers from npm failed (registry unreachable?): %v", err)
		}
	}
	s := Servers{
		Node:       node,
		Everything: filepath.Join(dest, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"),
		Filesystem: filepath.Join(dest, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js"),
		Versions:   map[string]string{},
	}
	for _, p := range []string{s.Everything, s.Filesystem} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("the install in %s lacks %s: remove the directory to install again", dest, filepath.Base(filepath.Dir(filepath.Dir(p))))
		}
	}
	for _, name := range []string{"server-everything", "server-filesystem"} {
		b, err := os.ReadFile(filepath.Join(dest, "node_modules", "@modelcontextprotocol", name, "package.json"))
		if err != nil {
			t.Fatal(err)
		}
		s.Versions["@modelcontextprotocol/"+name] = jsonVersion(b)
	}
	return s
}

// installed reports whether dest holds a finished install: the marker is
// written last, after node_modules is complete.
func installed(dest string) bool {
	_, err := os.Stat(filepath.Join(dest, ".installed"))
	return err == nil
}

// install runs `npm ci` in a fresh directory beside dest and renames it
// into place, so that concurrent installs never see a half-filled
// directory: the first rename wins and the others remove their copy.
func install(dir, dest string) error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return errors.New("npm is not on PATH")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(dir, "install-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for name, b := range map[string][]byte{"package.json": packageJSON, "package-lock.json": packageLock} {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	// --ignore-scripts: nothing of the packages runs at install time;
	// --prefer-offline: npm's own cache answers what it already holds;
	// short retries, so that an unreachable registry skips in seconds.
	cmd := exec.CommandContext(ctx, npm, "ci", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error",
		"--fetch-retries=2", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=4000", "--fetch-timeout=60000")
	cmd.Dir = tmp
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm ci: %v: %s", err, lastLine(stderr.String()))
	}
	if err := os.WriteFile(filepath.Join(tmp, ".installed"), nil, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, dest); err != nil {
		if installed(dest) {
			return nil // another process finished first
		}
		return err
	}
	return nil
}

// lastLine is npm's first and last lines of error text that say
// something (not the pointer to its debug log), at most 300 bytes.
func lastLine(s string) string {
	var first, last string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.Contains(l, "complete log of this run") {
			if first == "" {
				first = l
			}
			last = l
		}
	}
	out := first
	if last != first {
		out += " … " + last
	}
	if len(out) > 300 {
		out = out[:300]
	}
	return out
}

// jsonVersion is the "version" member of a package.json.
func jsonVersion(b []byte) string {
	var p struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &p) != nil {
		return ""
	}
	return p.Version
}
