package errsan

import (
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/internal/lazyre"
)

// Whole lines that are stack frames or belong to a traceback block. Each
// pattern is anchored at the line; RE2, linear in the line.
var (
	// JavaScript: "    at fn (file:line:col)", "at async fn (index 0)",
	// "at file:line:col", "(native)", "(<anonymous>)", "(node:...)".
	jsFrameRE = lazyre.New(`^\s*at\s.*(:\d+:\d+\)?|\((native|<anonymous>|index \d+)\)|\(node:[^)]*\))\s*$`)
	// Java, Kotlin, Scala, .NET: "at pkg.Class.method(File.java:12)",
	// "at java.base/java.lang.Thread.run(Thread.java:833)",
	// "at Ns.Class.Method(String x) in C:\src\x.cs:line 42".
	jvmFrameRE = lazyre.New(`^\s*at\s+[\w$<>/]+(\.[\w$<>\[\]/` + "`" + `+,|-]+)+\s*\(.*\)(\s+in\s+.*)?\s*$`)
	jvmMoreRE  = lazyre.New(`^\s*\.\.\.\s*\d+\s+(more|common frames omitted)\s*$`)
	dotnetEnd  = lazyre.New(`^\s*--- End of (inner exception )?stack trace( from previous location( where exception was thrown)?)? ---\s*$`)
	// Python.
	pyTraceRE = lazyre.New(`^\s*Traceback \(most recent call last\):?\s*$`)
	pyFileRE  = lazyre.New(`^\s*File "[^"]*", line \d+`)
	pyChainRE = lazyre.New(`^\s*(During handling of the above exception, another exception occurred|The above exception was the direct cause of the following exception):?\s*$`)
	caretRE   = lazyre.New(`^\s*[\^~]+\s*$`)
	// Go.
	goroutineRE = lazyre.New(`^goroutine \d+ \[[^\]]*\]:?\s*$`)
	goFileRE    = lazyre.New(`^\s*\S+\.go:\d+(\s+\+0x[0-9a-fA-F]+)?\s*$`)
	goSignalRE  = lazyre.New(`^\[signal [^\]]*\]\s*$`)
	// Rust.
	rustBTRE    = lazyre.New(`^\s*stack backtrace:\s*$`)
	rustFrameRE = lazyre.New(`^\s*(\d+:\s+\S|at\s+\S)`)
	rustNoteRE  = lazyre.New("^note: (run with `RUST_BACKTRACE=|Some details are omitted)")
	// PHP ("Stack trace:" then "#0 /x.php(12): f()"), Ruby ("from x.rb:3:in"),
	// gdb and C ("#0  0x00007f... in f ()").
	phpTraceRE = lazyre.New(`^\s*Stack trace:\s*$`)
	hashFrame  = lazyre.New(`^\s*#\d+\s+(\{main\}|0x[0-9a-fA-F]+|\S*[/\\]|\S+\(\d+\):|\[internal function\])`)
	rubyFrame  = lazyre.New(`^\s*from\s+\S+:\d+:in\s`)
)

// frameState carries what the previous lines said: a Python File line
// is followed by its source line, a Go goroutine dump and a Rust or PHP
// backtrace run until a line that is not theirs.
type frameState struct {
	pyFile bool // the previous line was a Python "File ..., line N"
	block  byte // 'g' Go goroutine, 'r' Rust backtrace, 'p' PHP stack trace
}

// classify reports whether line l is dropped, and as which kind.
func (fs *frameState) classify(l string) (Kind, bool) {
	pyFile := fs.pyFile
	fs.pyFile = false
	t := strings.TrimSpace(l)
	if t == "" {
		fs.block = 0
		return 0, false
	}
	switch fs.block {
	case 'g':
		// A goroutine dump: function lines, file lines, "created by".
		return KindFrame, true
	case 'r':
		if rustFrameRE.MatchString(l) {
			return KindFrame, true
		}
		fs.block = 0
	case 'p':
		if hashFrame.MatchString(l) || strings.HasPrefix(t, "#") {
			return KindFrame, true
		}
		fs.block = 0
	}
	switch {
	case pyFileRE.MatchString(l):
		fs.pyFile = true
		return KindFrame, true
	case pyFile && len(l) > len(t):
		// The source line a Python frame quotes (indented).
		fs.pyFile = true // carets may follow
		return KindFrame, true
	case goroutineRE.MatchString(l):
		fs.block = 'g'
		return KindFrame, true
	case rustBTRE.MatchString(l):
		fs.block = 'r'
		return KindFrame, true
	case phpTraceRE.MatchString(l):
		fs.block = 'p'
		return KindFrame, true
	}
	if !frameCandidate(t) {
		return 0, false
	}
	for _, re := range lineFrames {
		if re.MatchString(l) {
			return KindFrame, true
		}
	}
	if envLine(t) {
		return KindEnv, true
	}
	return 0, false
}

var lineFrames = []*lazyre.Regexp{jsFrameRE, jvmFrameRE, jvmMoreRE, dotnetEnd, pyTraceRE, pyChainRE, caretRE, goFileRE, goSignalRE, rustNoteRE, hashFrame, rubyFrame}

// frameCandidate is a cheap filter before the line patterns: every frame
// and environment line holds one of these.
func frameCandidate(t string) bool {
	return strings.HasPrefix(t, "at ") || strings.HasPrefix(t, "at\t") || strings.HasPrefix(t, "...") ||
		strings.HasPrefix(t, "---") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "from ") ||
		strings.HasPrefix(t, "[signal") || strings.HasPrefix(t, "note:") || strings.Contains(t, ".go:") ||
		strings.HasPrefix(t, "Traceback") || strings.HasPrefix(t, "During handling") || strings.HasPrefix(t, "The above exception") ||
		t[0] == '^' || t[0] == '~' || strings.IndexByte(t, '=') > 0
}

// envRE is one KEY=value pair of an environment dump (a shell's env,
// export, declare -x or set output).
var envRE = lazyre.New(`^(?:export\s+|declare -x\s+|set\s+)?[A-Z][A-Z0-9_]*=\S*`)
var envPairRE = lazyre.New(`(?:^|[\s,;{])[A-Z][A-Z0-9_]*=`)

// envLine reports whether t (trimmed) is a line of an environment dump: it
// starts with KEY=value, or holds two or more KEY= pairs.
func envLine(t string) bool {
	return envRE.MatchString(t) || len(envPairRE.FindAllStringIndex(t, 2)) == 2
}
