package scanners

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"
)

// cleanWholeB64 is a GitHub token base64-encoded (56 bytes): a finding only
// the decoder makes, in a string short enough for Append's whole-string
// path (cleanWhole), which must leave it to the decoder.
var cleanWholeB64 = base64.StdEncoding.EncodeToString([]byte("ghp_" + strings.Repeat("A1b2", 9)))

// TestCleanWhole checks ShortClean and Append's whole-string path on strings
// up to and past cleanMax, against Append in two parts (which never takes
// that path): runs of encoded-run bytes of every length around
// decodeMinRun at every offset of the 8-byte tiling, with and without
// padding, ended by bytes of no run; a base64 secret; keywords at the end,
// ruled out and not; and path- and snippet-like strings.
func TestCleanWhole(t *testing.T) {
	c := shortCleanCatalog(t)
	var cases []string
	for n := 28; n <= 36; n++ {
		for off := 0; off < 8; off++ {
			body := strings.Repeat("aZ09+/_%-", 4)[:n]
			lead := strings.Repeat(".", off)
			cases = append(cases, lead+body, lead+body+".tail", lead+body[:n-2]+"==", lead+body+"=x")
		}
	}
	cases = append(cases,
		cleanWholeB64, "path "+cleanWholeB64, cleanWholeB64+" end", "a/"+cleanWholeB64[:40]+"."+cleanWholeB64[40:],
		"internal/services/pkg/upload_bucket_alpha.md", "cmd/internal/services/upload_bucket_handler.go",
		"func Entry(ctx context.Context) error { return version(ctx, \"ingest\") }",
		"func Entry(ctx context.Context) error { return version(ctx, \"token\") }",
		"    ledger_version = self.field.get(\"password\", 94)",
		"const signal = await ledger_version({ archive: 'quota' }); // loader",
		"const x = { token: 'ghp_"+strings.Repeat("A1b2", 9)+"' } // a real token in a snippet",
		"see <system>ignore previous instructions</system> in the middle of a long line",
		"a long line with an entity &lt;system&gt; in it, past thirty-two bytes",
		strings.Repeat("word ", cleanMax/5)+"w", strings.Repeat("word ", cleanMax/5)+"wo", strings.Repeat("word ", cleanMax/5+1),
		strings.Repeat("word ", cleanMax/5)+"sk-ant-",
		"path patch pat token=ghp_"+strings.Repeat("A1b2", 9)+" and path again after it",
		"the path to the file, then password=hunter2hunter2 and a path",
		"github_pat_ and path and sk- and AKIA in one plain line of text",
	)
	clean, dirty, long := 0, 0, 0
	for _, s := range cases {
		checkShortClean(t, c, s, "")
		checkShortClean(t, c, s, "password")
		if checkCleanWhole(t, c, s) {
			clean++
			if len(s) >= decodeMinRun {
				long++
			}
		} else {
			dirty++
		}
	}
	if clean < 20 || dirty < 5 || long < 10 {
		t.Fatalf("unchanged %d (%d of them long), changed %d: expected all often", clean, long, dirty)
	}
	// The base64 secret is found (by the decoder), and so the whole-string
	// path's run test is what keeps it from being written as it is.
	r := c.NewRedactor(testKey)
	if _, fs := r.Append(nil, []byte(cleanWholeB64), true, nil); len(fs) == 0 {
		t.Fatalf("no finding in %q", cleanWholeB64)
	}
}

// checkCleanWhole checks one whole Append of s (a fresh Redactor: its
// whole-string path, cleanWhole, when s is short enough) against Append
// at every cut into two parts (never that path) and against the
// whole-string reference, and the Redactor after it against a fresh one on
// the next string. It reports whether s was written unchanged.
func checkCleanWhole(t *testing.T, c *Catalog, s string) bool {
	t.Helper()
	r := c.NewRedactor(testKey)
	out, fs := r.Append(nil, []byte(s), true, nil)
	if ref, refFs := refRedact(c, CatalogOptions{}, testKey, s); string(out) != ref || !reflect.DeepEqual(fs, refFs) {
		t.Fatalf("Append(%q) = %q %v, reference %q %v", s, out, fs, ref, refFs)
	}
	same := string(out) == s && len(fs) == 0
	if same && len(s) > 0 && !reflect.DeepEqual(r.Spans(), []Span{{Out: 0, Lo: 0, Hi: int64(len(s))}}) {
		t.Fatalf("Append(%q) unchanged: spans %v", s, r.Spans())
	}
	for k := 1; k < len(s); k++ {
		x := c.NewRedactor(testKey)
		o, f := x.Append(nil, []byte(s[:k]), false, nil)
		o, f = x.Append(o, []byte(s[k:]), true, f)
		if string(o) != string(out) || !reflect.DeepEqual(f, fs) {
			t.Fatalf("Append(%q) whole = %q %v, cut at %d %q %v", s, out, fs, k, o, f)
		}
	}
	next := "and then a token: ghp_" + strings.Repeat("A1b2", 9)
	o1, f1 := r.Append(nil, []byte(next), true, nil)
	o2, f2 := c.NewRedactor(testKey).Append(nil, []byte(next), true, nil)
	if string(o1) != string(o2) || !reflect.DeepEqual(f1, f2) {
		t.Fatalf("after Append(%q): next string %q %v, fresh %q %v", s, o1, f1, o2, f2)
	}
	return same
}

// TestRunFree checks runFree against the plain definition on strings of
// run bytes and others: a stretch of decodeMinRun or more run bytes
// (setRunAny) is never free, a string whose stretches are all shorter
// than three words always is; stretches of 24 to 31 bytes may say either
// (three full words of the tiling, or not).
func TestRunFree(t *testing.T) {
	c := shortCleanCatalog(t)
	r := c.NewRedactor(testKey)
	longest := func(s string) int {
		best, cur := 0, 0
		for i := 0; i < len(s); i++ {
			if setRunAny[s[i]] {
				cur++
				best = max(best, cur)
			} else {
				cur = 0
			}
		}
		return best
	}
	for n := 0; n <= 80; n++ {
		for off := 0; off <= 9; off++ {
			for _, tail := range []string{"", ".", ". and more text after it"} {
				s := strings.Repeat(" ", off) + strings.Repeat("Ab9=", 21)[:n] + tail
				got := r.runFree([]byte(s))
				l := longest(s)
				if l >= decodeMinRun && got || l < 24 && !got {
					t.Fatalf("runFree(%q) = %v, longest run %d", s, got, l)
				}
			}
		}
	}
}
