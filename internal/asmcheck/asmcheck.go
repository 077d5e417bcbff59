package asmcheck

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Violation is one instruction that breaks the encoding rule.
type Violation struct {
	Func   string // the TEXT symbol, without its package
	Instr  string // the instruction, as written or disassembled
	Reason string
}

func (v Violation) String() string { return v.Func + ": " + v.Instr + ": " + v.Reason }

var (
	xReg   = regexp.MustCompile(`\bX([0-9]|[12][0-9]|3[01])\b`)
	yzReg  = regexp.MustCompile(`\b[YZ]([0-9]|[12][0-9]|3[01])\b`)
	kReg   = regexp.MustCompile(`\bK[0-7]\b`)
	label  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*:\s*`)
	define = regexp.MustCompile(`^#define\s+([A-Za-z_][A-Za-z0-9_]*)(\(([^)]*)\))?\s*(.*)$`)
	text   = regexp.MustCompile(`^TEXT\s+[^·]*·([A-Za-z0-9_]+)\(SB\)`)
)

type macro struct {
	params []string
	body   string
}

// Source checks the assembly file at path: it returns the names of its
// vector TEXT blocks (those that name a Y, Z or K register once macros are
// expanded) and the violations in them.
func Source(path string) (vector []string, vs []Violation, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return SourceText(string(b))
}

// SourceText is Source on the text of an assembly file.
func SourceText(src string) (vector []string, vs []Violation, err error) {
	lines := joinContinued(src)
	macros := map[string]macro{}
	type block struct {
		name  string
		stmts []string
	}
	var blocks []*block
	var cur *block
	for _, ln := range lines {
		ln = strings.TrimSpace(stripComment(ln))
		if ln == "" {
			continue
		}
		if m := define.FindStringSubmatch(ln); m != nil {
			var ps []string
			if m[2] != "" {
				for _, p := range strings.Split(m[3], ",") {
					ps = append(ps, strings.TrimSpace(p))
				}
			}
			macros[m[1]] = macro{params: ps, body: m[4]}
			continue
		}
		if strings.HasPrefix(ln, "#") {
			continue
		}
		if m := text.FindStringSubmatch(ln); m != nil {
			cur = &block{name: m[1]}
			blocks = append(blocks, cur)
			continue
		}
		if strings.HasPrefix(ln, "DATA") || strings.HasPrefix(ln, "GLOBL") || cur == nil {
			continue
		}
		exp, err := expand(ln, macros, 0)
		if err != nil {
			return nil, nil, err
		}
		cur.stmts = append(cur.stmts, exp...)
	}
	for _, bl := range blocks {
		isVector := false
		for _, s := range bl.stmts {
			if yzReg.MatchString(s) || kReg.MatchString(s) {
				isVector = true
				break
			}
		}
		if !isVector {
			continue
		}
		vector = append(vector, bl.name)
		dirty := false
		for _, s := range bl.stmts {
			if label.MatchString(s) {
				// A label may be reached from anywhere in the block.
				dirty = true
				s = strings.TrimSpace(label.ReplaceAllString(s, ""))
				if s == "" {
					continue
				}
			}
			mn, _, _ := strings.Cut(s, " ")
			mn = strings.TrimSpace(mn)
			switch {
			case mn == "VZEROUPPER" || mn == "VZEROALL":
				dirty = false
				continue
			case mn == "RET" || mn == "CALL" || mn == "JMP" && strings.Contains(s, "(SB)"):
				if dirty {
					vs = append(vs, Violation{bl.name, s, "upper state dirty: VZEROUPPER missing before it"})
				}
				continue
			}
			if yzReg.MatchString(s) {
				dirty = true
			}
			if xReg.MatchString(s) && !strings.HasPrefix(mn, "V") {
				vs = append(vs, Violation{bl.name, s, "legacy SSE encoding in a vector kernel (use the V form)"})
			}
		}
	}
	return vector, vs, nil
}

// joinContinued joins lines that end in a backslash (macro bodies).
func joinContinued(src string) []string {
	var out []string
	var acc strings.Builder
	for _, ln := range strings.Split(src, "\n") {
		t := strings.TrimRight(stripComment(ln), " \t\r")
		if strings.HasSuffix(t, "\\") {
			acc.WriteString(strings.TrimSuffix(t, "\\"))
			acc.WriteString(" ")
			continue
		}
		acc.WriteString(ln)
		out = append(out, acc.String())
		acc.Reset()
	}
	return out
}

func stripComment(ln string) string {
	if i := strings.Index(ln, "//"); i >= 0 {
		return ln[:i]
	}
	return ln
}

// expand splits ln into statements and expands the macros they invoke.
func expand(ln string, macros map[string]macro, depth int) ([]string, error) {
	if depth > 16 {
		return nil, errors.New("asmcheck: macros nest too deep")
	}
	var out []string
	for _, s := range strings.Split(ln, ";") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		lab := ""
		if m := label.FindString(s); m != "" {
			lab, s = m, strings.TrimSpace(s[len(m):])
		}
		name, args, isCall := splitInvocation(s)
		mc, ok := macros[name]
		if !ok {
			out = append(out, lab+s)
			continue
		}
		if lab != "" {
			out = append(out, strings.TrimSpace(lab))
		}
		if isCall != (len(mc.params) > 0) || len(args) != len(mc.params) {
			return nil, fmt.Errorf("asmcheck: %s invoked with %d arguments, defined with %d", name, len(args), len(mc.params))
		}
		body := mc.body
		for i, p := range mc.params {
			body = regexp.MustCompile(`\b`+regexp.QuoteMeta(p)+`\b`).ReplaceAllLiteralString(body, args[i])
		}
		exp, err := expand(body, macros, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, exp...)
	}
	return out, nil
}

// splitInvocation splits NAME(a, b) into its name and arguments.
func splitInvocation(s string) (name string, args []string, call bool) {
	i := strings.IndexAny(s, "( \t")
	if i < 0 {
		return s, nil, false
	}
	if s[i] != '(' || !strings.HasSuffix(s, ")") {
		return s[:i], nil, false
	}
	inner := s[i+1 : len(s)-1]
	depth, start := 0, 0
	for j := 0; j < len(inner); j++ {
		switch inner[j] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				args = append(args, strings.TrimSpace(inner[start:j]))
				start = j + 1
			}
		}
	}
	args = append(args, strings.TrimSpace(inner[start:]))
	return s[:i], args, true
}

// ErrNoGo is returned by Object when the go command is not on the PATH.
var ErrNoGo = errors.New("asmcheck: the go command is not on the PATH")

// Object assembles each file (go tool asm -S, for linux/amd64, as package
// pkg) and checks the encoding the assembler produced for the functions
// names: each instruction that names an X, Y, Z or K register must start
// with a VEX (C4, C5) or EVEX (62) prefix. Every name must be found with
// at least one such instruction, so a kernel renamed or moved fails the
// check instead of passing it.
func Object(pkg string, files, names []string) ([]Violation, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return nil, ErrNoGo
	}
	root, err := exec.Command(goCmd, "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("asmcheck: go env GOROOT: %w", err)
	}
	inc := filepath.Join(strings.TrimSpace(string(root)), "pkg", "include")
	dir, err := os.MkdirTemp("", "asmcheck")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var listing []byte
	for i, f := range files {
		var stderr bytes.Buffer
		cmd := exec.Command(goCmd, "tool", "asm", "-S", "-p", pkg, "-I", inc,
			"-D", "GOOS_linux", "-D", "GOARCH_amd64", "-o", filepath.Join(dir, fmt.Sprintf("%d.o", i)), f)
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64")
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("asmcheck: go tool asm %s: %w: %s", f, err, bytes.TrimSpace(stderr.Bytes()))
		}
		listing = append(listing, out...)
		listing = append(listing, stderr.Bytes()...) // older assemblers print -S there
	}
	return listingText(listing, pkg, names)
}

var (
	listFunc  = regexp.MustCompile(`^(\S+) STEXT\b`)
	listInstr = regexp.MustCompile(`^\t0x([0-9a-f]{4,}) \d+ \([^)]*\)\t(.*)$`)
	listHex   = regexp.MustCompile(`^\t0x([0-9a-f]{4,}) ((?:[0-9a-f]{2} ){1,16})`)
)

// listingText checks the output of go tool asm -S.
func listingText(out []byte, pkg string, names []string) ([]Violation, error) {
	type instr struct {
		off  int
		text string
	}
	type fn struct {
		instrs []instr
		code   []byte
	}
	fns := map[string]*fn{}
	var cur *fn
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		ln := sc.Text()
		if m := listFunc.FindStringSubmatch(ln); m != nil {
			name, ok := strings.CutPrefix(m[1], pkg+".")
			cur = nil
			if ok {
				cur = &fn{}
				fns[name] = cur
			}
			continue
		}
		if cur == nil {
			continue
		}
		if m := listInstr.FindStringSubmatch(ln); m != nil {
			off, _ := strconv.ParseInt(m[1], 16, 64)
			cur.instrs = append(cur.instrs, instr{int(off), strings.Replace(m[2], "\t", " ", 1)})
			continue
		}
		if m := listHex.FindStringSubmatch(ln); m != nil {
			for _, h := range strings.Fields(m[2]) {
				v, err := strconv.ParseUint(h, 16, 8)
				if err != nil {
					return nil, fmt.Errorf("asmcheck: bad listing line %q", ln)
				}
				cur.code = append(cur.code, byte(v))
			}
		}
	}
	var vs []Violation
	for _, n := range names {
		f := fns[n]
		if f == nil {
			return vs, fmt.Errorf("asmcheck: %s.%s is not in the assembler's output", pkg, n)
		}
		seen := 0
		for i, in := range f.instrs {
			mn, _, _ := strings.Cut(in.text, " ")
			if mn == "TEXT" || mn == "FUNCDATA" || mn == "PCDATA" {
				continue
			}
			if !xReg.MatchString(in.text) && !yzReg.MatchString(in.text) && !kReg.MatchString(in.text) {
				continue
			}
			end := len(f.code)
			for _, nx := range f.instrs[i+1:] {
				if nx.off > in.off {
					end = nx.off
					break
				}
			}
			if in.off >= end || end > len(f.code) {
				return vs, fmt.Errorf("asmcheck: no code for %s at %#x", n, in.off)
			}
			seen++
			enc := f.code[in.off:end]
			if p := enc[0]; p != 0xc4 && p != 0xc5 && p != 0x62 {
				vs = append(vs, Violation{n, fmt.Sprintf("% x %s", enc, in.text), "SIMD instruction without a VEX or EVEX prefix"})
			}
		}
		if seen == 0 {
			return vs, fmt.Errorf("asmcheck: no vector instruction of %s.%s in the assembler's output", pkg, n)
		}
	}
	return vs, nil
}

// CheckPackage runs both checks on the *_amd64.s files of the current
// directory, the package under test with import path pkg, and reports each
// violation as a test error. It fails when the package has no assembly or
// no vector kernel, and skips the object-code half when the go command is
// not on the PATH.
func CheckPackage(t *testing.T, pkg string) {
	t.Helper()
	files, err := filepath.Glob("*_amd64.s")
	if err != nil || len(files) == 0 {
		t.Fatalf("no assembly files found (%v)", err)
	}
	var vector []string
	for _, f := range files {
		names, vs, err := Source(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			t.Errorf("%s: %v", f, v)
		}
		vector = append(vector, names...)
	}
	if len(vector) == 0 {
		t.Fatal("no vector kernel found in the assembly")
	}
	vs, err := Object(pkg, files, vector)
	if errors.Is(err, ErrNoGo) {
		t.Skip("object-code check skipped: the go command is not on the PATH")
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Errorf("object code: %v", v)
	}
}
