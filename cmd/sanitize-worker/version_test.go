package main

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionCommand: version and --version print the module version,
// commit, Go version and the guard and evidence versions.
func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, out, errs := runCLI(t, "", args...)
		if code != exitOK || errs != "" {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errs)
		}
		for _, want := range []string{"sanitize-worker ", "\nmodule github.com/mcp-sanitize/mcp-sanitize\n", "\ncommit ", "\ngo " + runtime.Version(), "\nguard ", "\nevidence "} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: no %q in\n%s", args, want, out)
			}
		}
	}
	if code, _, _ := runCLI(t, "", "version", "x"); code != exitUsage {
		t.Errorf("version x: exit %d", code)
	}
}

// TestReadBuildVersion: the fields come from the build info; a dirty tree
// is marked; without VCS settings the -X revision is used.
func TestReadBuildVersion(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: "example.com/m", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}}
	var b bytes.Buffer
	readBuildVersion(info, true).write(&b)
	for _, want := range []string{"sanitize-worker v1.2.3\n", "module example.com/m\n", "commit abc+dirty (2026-01-02T03:04:05Z)\n", "go go1.99 "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	old := vcsRevision
	vcsRevision = "def"
	defer func() { vcsRevision = old }()
	v := readBuildVersion(&debug.BuildInfo{Main: debug.Module{Path: "example.com/m", Version: "(devel)"}}, true)
	if v.commit != "def" || v.version != "devel-def" {
		t.Errorf("without VCS settings: %+v", v)
	}
	// -buildvcs=false with the README's stamp: a 40-digit commit.
	vcsRevision = "0123456789abcdef0123456789abcdef01234567"
	v = readBuildVersion(&debug.BuildInfo{Main: debug.Module{Path: "example.com/m", Version: "(devel)"}}, true)
	if v.commit != vcsRevision || v.version != "devel-0123456789ab" {
		t.Errorf("-buildvcs=false, stamped commit: %+v", v)
	}
	oldV := stampedVersion
	stampedVersion = "v1.4.0"
	defer func() { stampedVersion = oldV }()
	v = readBuildVersion(&debug.BuildInfo{Main: debug.Module{Path: "example.com/m", Version: "(devel)"}}, true)
	if v.version != "v1.4.0" {
		t.Errorf("stamped version: %+v", v)
	}
	stampedVersion = ""
	// The Dockerfile's default is "unknown": not a commit.
	vcsRevision = "unknown"
	v = readBuildVersion(&debug.BuildInfo{Main: debug.Module{Path: "example.com/m", Version: "(devel)"}}, true)
	if v.commit != "unknown" || v.version != "(devel)" {
		t.Errorf("nothing stamped: %+v", v)
	}
	if v := readBuildVersion(nil, false); v.version != "unknown" || v.module != "github.com/mcp-sanitize/mcp-sanitize" {
		t.Errorf("without build info: %+v", v)
	}
}

// TestCommandHelp: every command's -h starts with a usage line and says
// what the command does, like serve's and state's.
func TestCommandHelp(t *testing.T) {
	for _, c := range []string{"scan", "serve", "state", "args"} {
		code, _, errs := runCLI(t, "", c, "-h")
		if code != exitOK {
			t.Errorf("%s -h: exit %d", c, code)
		}
		if !strings.HasPrefix(errs, "usage: sanitize-worker "+c) || !strings.Contains(errs, "Exit codes:") {
			t.Errorf("%s -h:\n%s", c, errs)
		}
	}
}

// TestStateServeOneDataDir: state and serve default to one store.
func TestStateServeOneDataDir(t *testing.T) {
	for _, env := range []map[string]string{nil, {"XDG_STATE_HOME": "/var/lib"}} {
		var errb bytes.Buffer
		st, code := parseStateFlags([]string{"--keys", "k.json"}, envOf(env), &errb)
		if st == nil {
			t.Fatalf("state flags: exit %d %s", code, errb.String())
		}
		sv, err := parseServeFlags(nil, envOf(env), &errb)
		if err != nil {
			t.Fatal(err)
		}
		if st.embeddedDir != sv.embeddedDir {
			t.Errorf("env %v: state %q, serve %q", env, st.embeddedDir, sv.embeddedDir)
		}
	}
}
