package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The README's quick start is run as written: every command of its sh
// blocks, in order, by sh, in a temporary directory that holds the
// examples/ directory of the clone and the binary the README's own build
// line made. A command ends with "# exits N" when it is meant to exit N.

// readmeCommand is one command of a README sh block.
type readmeCommand struct {
	line string // the command, continuation lines joined
	exit int    // the exit code the README says it has
}

var readmeExits = regexp.MustCompile(`\s+#\s*exits\s+(\d+)\b.*$`)

// readmeSection returns the text of the "## title" section of the README.
func readmeSection(t *testing.T, readme, title string) string {
	t.Helper()
	head := "\n## " + title + "\n"
	i := strings.Index(readme, head)
	if i < 0 {
		t.Fatalf("README.md has no %q section", "## "+title)
	}
	s := readme[i+len(head):]
	if j := strings.Index(s, "\n## "); j >= 0 {
		s = s[:j]
	}
	return s
}

// shCommands returns the commands of the ```sh blocks of text.
func shCommands(t *testing.T, text string) []readmeCommand {
	t.Helper()
	var cmds []readmeCommand
	in := false
	var cur strings.Builder
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		l := sc.Text()
		switch {
		case !in && strings.TrimSpace(l) == "```sh":
			in = true
			continue
		case in && strings.TrimSpace(l) == "```":
			in = false
			continue
		case !in:
			continue
		}
		trimmed := strings.TrimSpace(l)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if strings.HasSuffix(trimmed, `\`) {
			cur.WriteString(strings.TrimSuffix(trimmed, `\`))
			cur.WriteByte(' ')
			continue
		}
		cur.WriteString(trimmed)
		c := readmeCommand{line: cur.String()}
		cur.Reset()
		if m := readmeExits.FindStringSubmatch(c.line); m != nil {
			c.exit, _ = strconv.Atoi(m[1])
			c.line = strings.TrimSpace(c.line[:len(c.line)-len(m[0])])
		}
		cmds = append(cmds, c)
	}
	if in {
		t.Fatal("README.md: an sh block is not closed")
	}
	return cmds
}

func readREADME(t *testing.T) (root, readme string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatalf("reading README.md: %v", err)
	}
	return root, string(b)
}

// TestREADMEExamplesExist checks that every examples/ file the README names
// is in the clone.
func TestREADMEExamplesExist(t *testing.T) {
	root, readme := readREADME(t)
	names := regexp.MustCompile(`examples/[A-Za-z0-9_.-]+`).FindAllString(readme, -1)
	if len(names) == 0 {
		t.Fatal("README.md names no examples/ file")
	}
	for _, n := range names {
		n = strings.TrimRight(n, ".")
		if _, err := os.Stat(filepath.Join(root, n)); err != nil {
			t.Errorf("README.md names %s, which is not in the clone", n)
		}
	}
}

func TestREADMEQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH: the README's build line needs it")
	}
	root, readme := readREADME(t)
	cmds := shCommands(t, readmeSection(t, readme, "Quick start"))
	if len(cmds) < 5 {
		t.Fatalf("the quick start has %d commands; want the build line and the commands after it", len(cmds))
	}
	// Then the examples of `scan`, with the same binary and out/, and
	// those that talk to a running worker (below).
	cmds = append(cmds, shCommands(t, readmeSection(t, readme, "Using `scan`"))...)
	for _, c := range shCommands(t, readmeSection(t, readme, "Every server message, and tool definitions pinned")) {
		if strings.Contains(c.line, " scan ") { // the others need a catalog with pins
			cmds = append(cmds, c)
		}
	}
	var natsCmds []readmeCommand
	for _, sec := range []string{"Run it on NATS", "Tool catalog, output schemas and the argument gate", "Sealed request state and key management",
		"Resources, prompts and completions", "Signed policies, shadow policies, re-scans and evidence integrity"} {
		for _, c := range shCommands(t, readmeSection(t, readme, sec)) {
			if readmeSkipped(c.line) {
				continue
			}
			natsCmds = append(natsCmds, c)
		}
	}
	if len(natsCmds) < 5 {
		t.Fatalf("%d commands of the NATS sections run; want tools, args and keys", len(natsCmds))
	}
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "examples"), filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	var env []string // the environment of the commands
	run := func(c readmeCommand, cwd string) []byte {
		t.Helper()
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(sh, "-c", c.line)
		cmd.Dir = cwd
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		if code != c.exit {
			t.Fatalf("%s: exit %d, the README says %d\nstdout: %.2000s\nstderr: %.2000s", c.line, code, c.exit, stdout.Bytes(), stderr.Bytes())
		}
		return stdout.Bytes()
	}
	// The build line runs in the clone, its -o pointed into dir.
	build := cmds[0]
	if !strings.HasPrefix(build.line, "go build ") || strings.Count(build.line, " -o sanitize-worker ") != 1 {
		t.Fatalf("the quick start's first command is %q; want the go build line with -o sanitize-worker", build.line)
	}
	build.line = strings.Replace(build.line, " -o sanitize-worker ", " -o "+shQuote(filepath.Join(dir, "sanitize-worker"))+" ", 1)
	run(build, root)
	var commit string
	if out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
	}
	redirect := regexp.MustCompile(`(?:^|\s)>\s*(\S+)`)
	for _, c := range cmds[1:] {
		out := run(c, dir)
		if m := redirect.FindStringSubmatch(c.line); m != nil {
			// The output went to a file: that is what to check.
			if out, err = os.ReadFile(filepath.Join(dir, m[1])); err != nil {
				t.Fatalf("%s: %v", c.line, err)
			}
		}
		switch {
		case strings.Contains(c.line, "--version"):
			if commit != "" && !bytes.Contains(out, []byte("commit "+commit)) {
				t.Errorf("%s: the version does not name commit %s:\n%s", c.line, commit, out)
			}
		case strings.Contains(c.line, " proxy "):
			if !bytes.Contains(out, []byte("[REMOVED_PSEUDO_INSTRUCTION_TAG]")) || bytes.Contains(out, []byte("<|im_start|>")) {
				t.Errorf("%s: the planted instruction is not neutralized:\n%s", c.line, out)
			}
		case strings.Contains(c.line, " scan ") && strings.Contains(c.line, "--method"):
			if !json.Valid(out) || len(out) < 20 {
				t.Errorf("%s: %s", c.line, out)
			}
		case strings.Contains(c.line, " scan ") && strings.Contains(c.line, "--jsonl"):
			in, _ := os.ReadFile(filepath.Join(root, "examples", "records.jsonl"))
			got, err := os.ReadFile(filepath.Join(dir, "out", "clean.jsonl"))
			if err != nil {
				t.Fatalf("%s: %v", c.line, err)
			}
			if n, m := bytes.Count(in, []byte("\n")), bytes.Count(got, []byte("\n")); n != m || n == 0 {
				t.Errorf("%s: %d lines in, %d out", c.line, n, m)
			}
		case strings.Contains(c.line, " scan "):
			if !bytes.Contains(out, []byte("[REDACTED:")) || !bytes.Contains(out, []byte("[REMOVED_PSEUDO_INSTRUCTION_TAG]")) {
				t.Errorf("%s: the output has no redaction:\n%.1000s", c.line, out)
			}
		case strings.Contains(c.line, " args ") && c.exit == 0:
			if strings.TrimSpace(string(out)) != `{"valid":true}` {
				t.Errorf("%s: %s", c.line, out)
			}
		case strings.Contains(c.line, " args "):
			if !bytes.Contains(out, []byte(`"isError":true`)) {
				t.Errorf("%s: no error result:\n%s", c.line, out)
			}
		}
		for _, f := range regexp.MustCompile(`--evidence (\S+)`).FindAllStringSubmatch(c.line, -1) {
			if st, err := os.Stat(filepath.Join(dir, f[1])); err != nil || st.Size() == 0 {
				t.Errorf("%s: no evidence in %s", c.line, f[1])
			}
		}
	}

	// The commands that need a worker, against serve on an embedded
	// server of its own (a free port: the README's default 4222 may be
	// taken), which the binary finds through MCP_SANITIZE_NATS_URL.
	ctx, cancel := context.WithCancel(context.Background())
	exit, logs, url := startServeEmbeddedURL(t, ctx, filepath.Join(dir, "store"))
	env = append(os.Environ(), "MCP_SANITIZE_NATS_URL="+url)
	for _, c := range natsCmds {
		c.line = strings.ReplaceAll(c.line, "nats://127.0.0.1:4222", url)
		out := run(c, dir)
		switch {
		case strings.Contains(c.line, " tools put "):
			if !bytes.Contains(out, []byte(`"ok":true`)) {
				t.Errorf("%s: %s", c.line, out)
			}
		case strings.Contains(c.line, " args ") && c.exit == 0:
			if strings.TrimSpace(string(out)) != `{"valid":true}` {
				t.Errorf("%s: %s", c.line, out)
			}
		case strings.Contains(c.line, " args "):
			if !bytes.Contains(out, []byte(`"isError":true`)) {
				t.Errorf("%s: no error result:\n%s", c.line, out)
			}
		}
	}
	cancel()
	if code := <-exit; code != exitOK {
		t.Fatalf("serve exit %d: %s", code, logs.String())
	}
}

// readmeSkipped reports whether a README command is left out of the test:
// the nats CLI and curl (not part of the clone), go run, the commands that
// run until stopped (serve, state), and those that need what only a
// deployment has: a path broker's signed receipt (resources verify), an
// evidence chain key (evidence verify), tool pins made by tools/list
// traffic (tools diff, approve, revoke; their own tests cover them).
func readmeSkipped(line string) bool {
	for _, p := range []string{"nats ", "curl ", "go run ", "./sanitize-worker serve", "./sanitize-worker state",
		"./sanitize-worker resources verify", "./sanitize-worker evidence verify",
		"./sanitize-worker tools diff", "./sanitize-worker tools approve", "./sanitize-worker tools revoke"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
