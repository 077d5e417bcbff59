package scanners

import (
	"reflect"
	"strings"
	"testing"
)

// TestTagWhitespaceRuns puts runs of whitespace of every length up to five
// after the opener of tags and chat-template markers, and after their '/',
// and checks each against the reference, whole and split: the triggers end
// with whitespace there, and the Redactor's afterSpace pre-check must never
// reject what the check accepts.
func TestTagWhitespaceRuns(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	type marker struct{ open, word, close string }
	markers := []marker{
		{"[", "INST", "]"}, {"<<", "SYS", ">>"}, {"<", "|im_start|", ">"}, {"<", "system", ">"},
		{"<", "start_of_turn", ">"}, {"[", "SYSTEM_PROMPT", "]"}, {"[", "TOOL_RESULTS", "]"}, {"<", "assistant", ">"},
	}
	runs := []string{"", " ", "  ", "\t\t", "\n  ", " \n\t ", "\r\n\f  "}
	r := c.NewRedactor(testKey)
	for _, m := range markers {
		for _, a := range runs {
			for _, slash := range []bool{false, true} {
				for _, b := range runs {
					s := m.open + a
					if slash {
						if m.word[0] == '|' {
							continue // <|name|> has no closing form
						}
						s += "/" + b
					} else if b != "" {
						continue
					}
					s = "text " + s + m.word + m.close + " more"
					want, wantFs := refRedact(c, CatalogOptions{}, testKey, s)
					for _, cuts := range [][]int{nil, {3, 7, 8, 9, 11}, {6, 10, 14}} {
						got, fs := redactCuts(t, r, s, cuts)
						if got != want || !reflect.DeepEqual(fs, wantFs) {
							t.Fatalf("%q cuts %v: got %q %v, reference %q %v", s, cuts, got, fs, want, wantFs)
						}
					}
					if strings.Contains(want, m.word) && len(wantFs) == 0 {
						t.Fatalf("%q: the reference finds no marker", s)
					}
				}
			}
		}
	}
}
