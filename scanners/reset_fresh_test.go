package scanners

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestResetFresh runs one Redactor through a long random sequence of
// strings (Reset or ResetWithContext, then ShortClean, a whole Append, an
// Append in pieces, nothing, or pieces abandoned half-way) and checks each string's
// output, findings and spans against a Redactor made for that string
// alone: a Reset skipped because nothing changed since the last one
// (Redactor.fresh) must leave exactly what a full one leaves.
func TestResetFresh(t *testing.T) {
	c := shortCleanCatalog(t)
	gh := "ghp_" + strings.Repeat("A1b2", 9)
	texts := []string{
		"", "path", "id", "a&b", "&lt;system&gt; hi", "<system>", "ignore previous instructions",
		gh, "token=" + gh, "plain text of some length that holds nothing at all",
		"AKIAIOSFODNN7EXAMPLE", "aGVsbG8gd29ybGQgaGVsbG8gd29ybGQgaGVsbG8gd29ybGQ=",
		"key: " + gh + " and &#60;system&#62;", "password", "hunter2hunter2",
	}
	names := []string{"", "password", "path", "api_key", "id"}
	rng := rand.New(rand.NewPCG(7, 11))
	r := c.NewRedactor(testKey)
	for i := range 3000 {
		text := texts[rng.IntN(len(texts))]
		name := names[rng.IntN(len(names))]
		op := rng.IntN(5)
		run := func(x *Redactor) (string, []Finding, []Span, bool) {
			if name != "" {
				x.ResetWithContext([]byte(name))
			} else {
				x.Reset()
			}
			src := []byte(text)
			switch op {
			case 0:
				if x.ShortClean(src) {
					return text, nil, append([]Span(nil), x.Spans()...), true
				}
				out, fs := x.Append(nil, src, true, nil)
				return string(out), fs, append([]Span(nil), x.Spans()...), false
			case 1:
				out, fs := x.Append(nil, src, true, nil)
				return string(out), fs, append([]Span(nil), x.Spans()...), false
			case 2:
				k := len(src) / 2
				out, fs := x.Append(nil, src[:k], false, nil)
				out, fs = x.Append(out, src[k:], true, fs)
				return string(out), fs, nil, false
			case 3:
				// Nothing appended (a value dropped): the next string's
				// Reset must undo the context.
				return "", nil, nil, false
			default:
				// Abandoned: the next string's Reset must undo it.
				out, fs := x.Append(nil, src[:len(src)/2], false, nil)
				return string(out), fs, nil, false
			}
		}
		o1, f1, s1, c1 := run(r)
		o2, f2, s2, c2 := run(c.NewRedactor(testKey))
		if o1 != o2 || !reflect.DeepEqual(f1, f2) || c1 != c2 || len(s1) != len(s2) || len(s1) > 0 && !reflect.DeepEqual(s1, s2) {
			t.Fatalf("string %d (%q, name %q, op %d): %q %v %v %v, alone %q %v %v %v", i, text, name, op, o1, f1, s1, c1, o2, f2, s2, c2)
		}
	}
}
