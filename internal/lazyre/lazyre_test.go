package lazyre

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"sync"
	"testing"
)

// TestLazyMatchesRegexp: every method gives what regexp.Regexp gives for
// the same pattern and input, and compiles once whatever the concurrency.
func TestLazyMatchesRegexp(t *testing.T) {
	cases := []struct{ pat, in string }{
		{`a(b+)c`, "xabbbc abc ac"},
		{`(?i)\bfoo(\d*)`, "Foo12 bar foo foo7"},
		{`^\s*at\s.*:\d+:\d+\)?\s*$`, "    at fn (file.js:1:2)"},
		{`x*`, ""},
	}
	for _, c := range cases {
		l, re := New(c.pat), regexp.MustCompile(c.pat)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() { l.Re() })
		}
		wg.Wait()
		if l.Re() != l.Re() {
			t.Fatalf("%q: compiled twice", c.pat)
		}
		if l.String() != re.String() {
			t.Errorf("%q: String %q", c.pat, l.String())
		}
		if got, want := l.MatchString(c.in), re.MatchString(c.in); got != want {
			t.Errorf("%q MatchString(%q) = %v, want %v", c.pat, c.in, got, want)
		}
		eq := func(name string, got, want any) {
			t.Helper()
			if g, w := fmtAny(got), fmtAny(want); g != w {
				t.Errorf("%q %s(%q) = %s, want %s", c.pat, name, c.in, g, w)
			}
		}
		if got, want := l.Match([]byte(c.in)), re.Match([]byte(c.in)); got != want {
			t.Errorf("%q Match(%q) = %v, want %v", c.pat, c.in, got, want)
		}
		eq("FindStringIndex", l.FindStringIndex(c.in), re.FindStringIndex(c.in))
		eq("FindSubmatch", l.FindSubmatch([]byte(c.in)), re.FindSubmatch([]byte(c.in)))
		eq("FindStringSubmatch", l.FindStringSubmatch(c.in), re.FindStringSubmatch(c.in))
		eq("FindAllStringIndex", l.FindAllStringIndex(c.in, -1), re.FindAllStringIndex(c.in, -1))
		eq("FindAllStringSubmatch", l.FindAllStringSubmatch(c.in, -1), re.FindAllStringSubmatch(c.in, -1))
		eq("FindAllStringSubmatchIndex", l.FindAllStringSubmatchIndex(c.in, 2), re.FindAllStringSubmatchIndex(c.in, 2))
		eq("ReplaceAllString", l.ReplaceAllString(c.in, "<$1>"), re.ReplaceAllString(c.in, "<$1>"))
	}
}

// TestCompileAll: a bad pattern is reported (not panicked on) by
// CompileAll, with the syntax error; the first use of it panics.
func TestCompileAll(t *testing.T) {
	if err := CompileAll(); err != nil {
		t.Fatalf("before a bad pattern: %v", err)
	}
	bad := New(`a(b`)
	defer func() {
		// Leave the registry as the other tests expect it.
		mu.Lock()
		all = all[:len(all)-1]
		mu.Unlock()
	}()
	err := CompileAll()
	var le *Error
	var se *syntax.Error
	if !errors.As(err, &le) || le.Pattern != `a(b` || !errors.As(err, &se) {
		t.Fatalf("CompileAll = %v, want the pattern's syntax error", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("first use of a bad pattern did not panic")
		}
	}()
	bad.MatchString("ab")
}

func fmtAny(v any) string {
	switch x := v.(type) {
	case [][]byte:
		s := "["
		for _, b := range x {
			s += "{" + string(b) + "}"
		}
		return s + "]"
	}
	return fmt.Sprint(v)
}
