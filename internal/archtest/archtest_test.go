package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/mcp-sanitize/mcp-sanitize"

// pkg is what `go list -json` says of one package of the module.
type pkg struct {
	ImportPath string
	Imports    []string // direct, non-test
	Deps       []string // transitive, non-test
}

// rel is a package's path inside the module ("worker", "cmd/sanitize-worker").
func rel(path string) string { return strings.TrimPrefix(strings.TrimPrefix(path, module), "/") }

func ours(path string) bool { return path == module || strings.HasPrefix(path, module+"/") }

// std reports whether an import path is of the standard library: its first
// element has no dot ("crypto/sha256", "vendor/golang.org/x/...").
func std(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// under reports whether the module-relative path p is dir or inside it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

const (
	natsClient = "github.com/nats-io/nats.go"
	natsServer = "github.com/nats-io/nats-server"
)

func isNATSClient(path string) bool {
	return path == natsClient || strings.HasPrefix(path, natsClient+"/")
}
func isNATSServer(path string) bool { return strings.HasPrefix(path, natsServer) }
func isNATS(path string) bool       { return strings.HasPrefix(path, "github.com/nats-io/") }

// testHelper reports whether a package is a test helper under internal/
// (its last element starts or ends in "test", e.g. internal/testnats):
// only test code may import it.
func testHelper(p string) bool {
	last := p[strings.LastIndex(p, "/")+1:]
	return strings.HasPrefix(p, "internal/") && (strings.HasPrefix(last, "test") || strings.HasSuffix(last, "test")) && p != "internal/archtest"
}

// engine is every package of the sanitizing engine: what the Go client and
// the transport codec must not pull in.
var engine = []string{"pipeline", "scanners", "bounds", "schema", "statekeys", "argsgate", "toolcat", "worker", "internal/strictjson"}

// rule is one import rule of docs/architecture.md. check returns the
// violations of one package, each a short sentence.
type rule struct {
	name  string
	check func(p pkg) []string
}

// natsClientImporters may import nats.go directly; see docs/architecture.md
// for why each is there.
var natsClientImporters = []string{"worker", "cmd/sanitize-worker", "client", "payload", "toolcat", "bench/natsbench", "examples/mcpmw"}

// leaves are the packages of ours that import only the standard library,
// so that anything may use them: the vocabulary and the small helpers
// shared by the engine, the codec and the client.
var leaves = []string{"wire", "internal/spool", "internal/jcs", "internal/strictjson", "internal/lazyre"}

var rules = []rule{
	{"only the NATS side imports nats.go", func(p pkg) []string {
		r := rel(p.ImportPath)
		if slices.Contains(natsClientImporters, r) || testHelper(r) {
			return nil
		}
		var v []string
		for _, imp := range p.Imports {
			if isNATSClient(imp) {
				v = append(v, "imports "+imp)
			}
		}
		return v
	}},
	{"only internal/natsembed and test helpers import nats-server", func(p pkg) []string {
		r := rel(p.ImportPath)
		if r == "internal/natsembed" || testHelper(r) {
			return nil
		}
		var v []string
		for _, imp := range p.Imports {
			if isNATSServer(imp) {
				v = append(v, "imports "+imp)
			}
		}
		return v
	}},
	{"only tests import a test helper", func(p pkg) []string {
		var v []string
		for _, imp := range p.Imports {
			if ours(imp) && testHelper(rel(imp)) && !testHelper(rel(p.ImportPath)) {
				v = append(v, "imports the test helper "+rel(imp))
			}
		}
		return v
	}},
	{"the engine knows nothing of NATS", func(p pkg) []string {
		r := rel(p.ImportPath)
		if !slices.Contains([]string{"pipeline", "scanners", "bounds", "schema", "statekeys", "argsgate", "wire", "internal/strictjson",
			"resuri", "receipt", "resgate", "promptgate", "policyset", "evchain", "rescan"}, r) {
			return nil
		}
		var v []string
		for _, d := range p.Deps {
			if isNATS(d) {
				v = append(v, "depends on "+d)
				break // one line per package is enough
			}
		}
		return v
	}},
	{"scanners and bounds depend on no other package of ours", func(p pkg) []string {
		r := rel(p.ImportPath)
		var home string
		switch {
		case under(r, "scanners"):
			home = "scanners"
		case under(r, "bounds"):
			home = "bounds"
		default:
			return nil
		}
		var v []string
		for _, d := range p.Deps {
			if ours(d) && !under(rel(d), home) {
				v = append(v, "depends on "+rel(d))
			}
		}
		return v
	}},
	{"elicit depends only on statekeys, scanners, wire and internal helpers", func(p pkg) []string {
		if rel(p.ImportPath) != "elicit" {
			return nil
		}
		var v []string
		for _, d := range p.Deps {
			if r := rel(d); ours(d) && !strings.HasPrefix(r, "internal/") && !under(r, "scanners") && r != "statekeys" && r != "wire" {
				v = append(v, "depends on "+r)
			}
		}
		return v
	}},
	{"statekeys depends only on wire and internal helpers of ours", func(p pkg) []string {
		if rel(p.ImportPath) != "statekeys" {
			return nil
		}
		var v []string
		for _, d := range p.Deps {
			if ours(d) && !strings.HasPrefix(rel(d), "internal/") && rel(d) != "wire" {
				v = append(v, "depends on "+rel(d))
			}
		}
		return v
	}},
	{"the client and the transport codec pull no engine package", func(p pkg) []string {
		r := rel(p.ImportPath)
		var allowed []string
		switch r {
		case "client":
			allowed = []string{"wire", "payload", "internal/spool"}
		case "payload":
			allowed = []string{"wire", "internal/spool"}
		default:
			return nil
		}
		var v []string
		for _, d := range p.Deps {
			if ours(d) && !slices.Contains(allowed, rel(d)) {
				v = append(v, "depends on "+rel(d))
			}
		}
		return v
	}},
	{"resuri and receipt depend only on the standard library, x/text and internal helpers", func(p pkg) []string {
		r := rel(p.ImportPath)
		if r != "resuri" && r != "receipt" {
			return nil
		}
		var v []string
		for _, d := range p.Deps {
			if ours(d) && !strings.HasPrefix(rel(d), "internal/") {
				v = append(v, "depends on "+rel(d))
			}
		}
		return v
	}},
	{"the guards do not depend on the pipeline or the transport", func(p pkg) []string {
		r := rel(p.ImportPath)
		if r != "resgate" && r != "promptgate" {
			return nil
		}
		var v []string
		for _, d := range p.Deps {
			if ours(d) && slices.Contains([]string{"pipeline", "worker", "payload", "client", "toolcat", "argsgate"}, rel(d)) {
				v = append(v, "depends on "+rel(d))
			}
		}
		return v
	}},
	{"argsgate and toolcat do not depend on the pipeline", func(p pkg) []string {
		r := rel(p.ImportPath)
		if r != "argsgate" && r != "toolcat" {
			return nil
		}
		var v []string
		for _, d := range p.Deps {
			if ours(d) && slices.Contains([]string{"pipeline", "worker", "payload", "client"}, rel(d)) {
				v = append(v, "depends on "+rel(d))
			}
		}
		return v
	}},
	{"the pipeline knows nothing of the transport", func(p pkg) []string {
		if rel(p.ImportPath) != "pipeline" {
			return nil
		}
		var v []string
		for _, d := range p.Deps {
			if ours(d) && slices.Contains([]string{"worker", "payload", "client", "toolcat", "argsgate"}, rel(d)) {
				v = append(v, "depends on "+rel(d))
			}
		}
		return v
	}},
	{"wire and the leaf helpers import only the standard library and each other", func(p pkg) []string {
		if !slices.Contains(leaves, rel(p.ImportPath)) {
			return nil
		}
		var v []string
		for _, d := range p.Deps {
			if !std(d) && !(ours(d) && slices.Contains(leaves, rel(d))) {
				v = append(v, "depends on "+d)
			}
		}
		return v
	}},
}

// violations applies every rule to every package.
func violations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		for _, r := range rules {
			for _, v := range r.check(p) {
				out = append(out, rel(p.ImportPath)+": "+v+" (rule: "+r.name+")")
			}
		}
	}
	sort.Strings(out)
	return out
}

// list reads the module's import graph.
func list(t *testing.T) []pkg {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to read the import graph: %v", err)
	}
	cmd := exec.Command(goBin, "list", "-e", "-json=ImportPath,Dir,GoFiles,CgoFiles,Imports,Deps,Error", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			pkg
			Dir               string
			GoFiles, CgoFiles []string
			Error             *struct{ Err string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if p.Error != nil {
			t.Fatalf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		// go test caches a result by the files the test opened or
		// stat'ed; stat every source file so that a change of an import
		// runs the test again.
		if _, err := os.Stat(p.Dir); err != nil {
			t.Fatalf("package directory: %v", err)
		}
		for _, f := range append(p.GoFiles, p.CgoFiles...) {
			if _, err := os.Stat(filepath.Join(p.Dir, f)); err != nil {
				t.Fatalf("source file: %v", err)
			}
		}
		pkgs = append(pkgs, p.pkg)
	}
	return pkgs
}

// TestImportRules: the module's real import graph breaks no rule.
func TestImportRules(t *testing.T) {
	pkgs := list(t)
	seen := map[string]bool{}
	for _, p := range pkgs {
		seen[rel(p.ImportPath)] = true
	}
	// The rules name these packages; if one moved, its rule would pass
	// vacuously, so the test says so instead.
	for _, want := range []string{"wire", "client", "payload", "pipeline", "scanners", "bounds", "statekeys", "schema", "argsgate", "toolcat", "worker", "cmd/sanitize-worker", "internal/natsembed"} {
		if !seen[want] {
			t.Errorf("package %s is not in the module any more: update the rules and docs/architecture.md", want)
		}
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// TestRulesCatch: each rule reports a graph that breaks it, and passes one
// that keeps it (cases are synthetic packages).
func TestRulesCatch(t *testing.T) {
	m := func(r string) string { return module + "/" + r }
	for _, tc := range []struct {
		name string
		p    pkg
		bad  bool
	}{
		{"scanners importing nats.go", pkg{ImportPath: m("scanners"), Imports: []string{natsClient}, Deps: []string{natsClient}}, true},
		{"worker importing nats.go", pkg{ImportPath: m("worker"), Imports: []string{natsClient + "/jetstream"}}, false},
		{"pipeline depending on nats through a helper", pkg{ImportPath: m("pipeline"), Deps: []string{"github.com/nats-io/nuid"}}, true},
		{"worker importing nats-server", pkg{ImportPath: m("worker"), Imports: []string{natsServer + "/v2/server"}}, true},
		{"natsembed importing nats-server", pkg{ImportPath: m("internal/natsembed"), Imports: []string{natsServer + "/v2/server"}}, false},
		{"a test helper importing nats-server", pkg{ImportPath: m("internal/natstest"), Imports: []string{natsServer + "/v2/server"}}, false},
		{"worker importing a test helper", pkg{ImportPath: m("worker"), Imports: []string{m("internal/natstest")}}, true},
		{"scanners depending on wire", pkg{ImportPath: m("scanners"), Deps: []string{m("wire")}}, true},
		{"scanners' own sub-package", pkg{ImportPath: m("scanners/internal/rulesdoc"), Deps: []string{m("scanners")}}, false},
		{"bounds depending on pipeline", pkg{ImportPath: m("bounds"), Deps: []string{m("pipeline")}}, true},
		{"statekeys depending on scanners", pkg{ImportPath: m("statekeys"), Deps: []string{m("scanners")}}, true},
		{"statekeys depending on an internal helper", pkg{ImportPath: m("statekeys"), Deps: []string{m("internal/strictjson")}}, false},
		{"client depending on pipeline", pkg{ImportPath: m("client"), Deps: []string{m("wire"), m("payload"), m("pipeline")}}, true},
		{"client depending on wire and payload", pkg{ImportPath: m("client"), Deps: []string{m("wire"), m("payload"), natsClient}}, false},
		{"payload depending on schema", pkg{ImportPath: m("payload"), Deps: []string{m("wire"), m("schema")}}, true},
		{"argsgate depending on pipeline", pkg{ImportPath: m("argsgate"), Deps: []string{m("pipeline")}}, true},
		{"pipeline depending on payload", pkg{ImportPath: m("pipeline"), Deps: []string{m("payload")}}, true},
		{"wire depending on a module", pkg{ImportPath: m("wire"), Deps: []string{"golang.org/x/text/unicode/norm"}}, true},
		{"internal/spool depending on pipeline", pkg{ImportPath: m("internal/spool"), Deps: []string{"os", m("pipeline")}}, true},
		{"elicit depending on worker", pkg{ImportPath: m("elicit"), Deps: []string{m("scanners"), m("statekeys"), m("worker")}}, true},
		{"elicit depending on scanners and statekeys", pkg{ImportPath: m("elicit"), Deps: []string{m("scanners"), m("scanners/internal/x"), m("statekeys"), m("internal/jcs")}}, false},
		{"a test helper importing nats.go", pkg{ImportPath: m("internal/testnats"), Imports: []string{natsClient, natsServer + "/v2/server"}}, false},
		{"wire depending on std", pkg{ImportPath: m("wire"), Deps: []string{"errors", "strings", "internal/bytealg", "vendor/golang.org/x/net/dns/dnsmessage"}}, false},
	} {
		got := violations([]pkg{tc.p})
		if (len(got) > 0) != tc.bad {
			t.Errorf("%s: violations %q, want bad=%v", tc.name, got, tc.bad)
		}
	}
}
