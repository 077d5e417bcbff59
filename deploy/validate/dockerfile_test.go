package validate

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDockerfileBuild runs the Dockerfile's go build line outside Docker
// (no Docker engine is needed) from the module root and checks that the
// binary is static (no interpreter, no shared libraries), that the final
// stage is distroless or scratch with a non-root user, and that the binary
// answers version with the revision and version passed to the build.
func TestDockerfileBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the worker")
	}
	b, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	stages := regexp.MustCompile(`(?m)^FROM\s+(\S+)`).FindAllStringSubmatch(df, -1)
	if len(stages) < 2 {
		t.Fatalf("want a multi-stage build, have %v", stages)
	}
	final := stages[len(stages)-1][1]
	if !strings.HasPrefix(final, "gcr.io/distroless/static") && final != "scratch" {
		t.Errorf("final stage %s: want distroless static or scratch", final)
	}
	user := regexp.MustCompile(`(?m)^USER\s+(\S+)`).FindAllStringSubmatch(df, -1)
	if len(user) == 0 || strings.HasPrefix(user[len(user)-1][1], "0") || strings.HasPrefix(user[len(user)-1][1], "root") {
		t.Errorf("USER %v: want a non-root user in the final stage", user)
	}
	m := regexp.MustCompile(`(?m)^RUN\s+(CGO_ENABLED=0 go build .*)$`).FindStringSubmatch(df)
	if m == nil {
		t.Fatal("no RUN CGO_ENABLED=0 go build line")
	}
	out := t.TempDir()
	line := strings.ReplaceAll(m[1], "/out/", out+"/")
	line = strings.ReplaceAll(line, "${VCS_REVISION}", "test-revision")
	line = strings.ReplaceAll(line, "${VERSION}", "v0.0.0-test")
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, o)
	}
	bin := filepath.Join(out, "sanitize-worker")
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary has an interpreter: not static")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the binary needs %v", libs)
	}
	v, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(v), "commit test-revision") || !strings.HasPrefix(string(v), "sanitize-worker v0.0.0-test\n") {
		t.Errorf("--version: %v\n%s", err, v)
	}
}
