package scanners

import (
	"reflect"
	"strings"
	"testing"
)

// Tests of the cost measures of the rules: keywords that carry the byte a
// form needs before them, and the pre-checks of whole short strings
// (hitfilter.go).

// TestServiceKeywords: svcKeywords hold " '" after exactly the bytes that
// may end a service name or its operator (svcNotBefore says which may
// not), one keyword per byte as the automaton folds case.
func TestServiceKeywords(t *testing.T) {
	seen := map[string]bool{}
	for _, kw := range svcKeywords {
		if len(kw) != 3 || kw[1:] != " '" || seen[kw] {
			t.Fatalf("keyword %q: want one byte and \" '\", once", kw)
		}
		seen[kw] = true
	}
	for b := 0; b < 256; b++ {
		c := byte(b)
		want := !svcNotBefore[c]
		got := seen[string([]byte{lowerASCII(c), ' ', '\''})]
		if got != want {
			t.Errorf("byte %q: keyword %v, may end a name %v", c, got, want)
		}
	}
}

// shortCases are whole short strings for the short-string path: names and
// values that hold a keyword some pre-check rules out, and strings whose
// hit some check must see (ruledOut false).
var shortCases = []struct {
	s        string
	ruledOut bool
}{
	{"path", true},           // "pat" with no '.' 14 bytes on: the string ends first
	{"Path", true},           // the same, folded
	{"xpath", true},          // "pat" after a word byte (notBefore)
	{"path=/v1/input", true}, // '.' not 14 bytes after "pat"
	{"patch_profile", true},
	{"score", true}, // no keyword at all
	{"", true},
	{"svc, 'abc'", true},    // " '" after ',' is no keyword
	{"svc: 'input'", false}, // the service rule reads it (and rejects it)
	{"token", false},        // an assignment keyword: its check decides
	{"key: 'abc123def'", false},
	{"\\npat", true}, // notBefore does not apply after a JSON escape's letter, but the string ends before the '.'
	{"ghp_", false},
	{"sk-", false},
}

// TestShortStringPreChecks: a whole short string written by the
// short-string path is what the general path writes for it (the same
// string given in two parts) and what the reference writes; hitsRuledOut
// says which strings take the short path.
func TestShortStringPreChecks(t *testing.T) {
	c, err := NewCatalog(CatalogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := c.NewRedactor(testKey)
	for _, tc := range shortCases {
		if got := shortRuledOut(c, tc.s); got != tc.ruledOut {
			t.Errorf("%q: hitsRuledOut %v, want %v", tc.s, got, tc.ruledOut)
		}
		checkShortPaths(t, c, r, tc.s)
	}
}

// checkShortPaths compares the one-call (short-string) path, the two-part
// (general) path and the reference on s.
func checkShortPaths(t *testing.T, c *Catalog, r *Redactor, s string) {
	t.Helper()
	one, oneFs := redactCuts(t, r, s, nil)
	want, wantFs := refRedact(c, CatalogOptions{}, testKey, s)
	if one != want || !reflect.DeepEqual(oneFs, wantFs) {
		t.Fatalf("%q: one call %q %v, reference %q %v", s, one, oneFs, want, wantFs)
	}
	if len(s) > 1 {
		two, twoFs := redactCuts(t, r, s, []int{1})
		if two != one || !reflect.DeepEqual(twoFs, oneFs) {
			t.Fatalf("%q: one call %q %v, two parts %q %v", s, one, oneFs, two, twoFs)
		}
	}
}

// FuzzShortString runs checkShortPaths on short strings built from keyword
// fragments, so that hits and their pre-checks are dense.
//
//	go test -run '^$' -fuzz FuzzShortString -fuzztime 20000x ./scanners/
func FuzzShortString(f *testing.F) {
	for _, tc := range shortCases {
		f.Add([]byte(tc.s), uint64(len(tc.s)))
	}
	c, err := NewCatalog(CatalogOptions{})
	if err != nil {
		f.Fatal(err)
	}
	r := c.NewRedactor(testKey)
	frags := []string{"pat", "h", ".", " '", "= '", ": '", "token", "key", "\\n", "'", "x", "7", "_", "sk-", "ghp_", " "}
	f.Fuzz(func(t *testing.T, text []byte, seed uint64) {
		if len(text) > 64 {
			return
		}
		var b strings.Builder
		x := seed | 1
		for _, ch := range text {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			if x%3 == 0 {
				b.WriteString(frags[int(x>>8)%len(frags)])
			} else {
				b.WriteByte(ch)
			}
		}
		s := strings.ToValidUTF8(b.String(), "\uFFFD")
		if len(s) >= decodeMinRun {
			s = s[:decodeMinRun-1]
			s = strings.ToValidUTF8(s, "\uFFFD")
		}
		checkShortPaths(t, c, r, s)
	})
}

// shortRuledOut is keywordFree on a whole string from the start state.
func shortRuledOut(c *Catalog, s string) bool {
	r := c.NewRedactor(nil)
	return r.keywordFree([]byte(s))
}

// fillerWordEach is fillerWord written word by word: a scan of b per filler
// word (how fillerWord was written before its one-pass form).
func fillerWordEach(b []byte) bool {
	for _, w := range tokenFillerWords {
		for i := 0; i+len(w) <= len(b); i++ {
			j := 0
			for j < len(w) && lowerASCII(b[i+j]) == w[j] {
				j++
			}
			if j < len(w) {
				continue
			}
			if len(w) >= 6 {
				return true
			}
			end := i + len(w)
			edge := i == 0 || !setAlnum[b[i-1]] || end == len(b) || !setAlnum[b[end]]
			if edge && oneCase(b[i:end]) {
				return true
			}
		}
	}
	return false
}

// TestFillerWord: the one-pass fillerWord agrees with the word-by-word scan
// on bodies with filler words at the edges, in the middle, in mixed case,
// cut short, and on random bodies.
func TestFillerWord(t *testing.T) {
	if len(tokenFillerWords) > 16 {
		t.Fatalf("%d filler words: fillerFirst holds 16", len(tokenFillerWords))
	}
	for _, w := range tokenFillerWords {
		if w != strings.ToLower(w) || !setLetters[w[0]] {
			t.Fatalf("filler word %q: want lower-case letters", w)
		}
	}
	cases := []struct {
		b    string
		want bool
	}{
		{"", false},
		{"abcdEXAMPLEabcd", true},
		{"xxxx", true},
		{"XXXX", true},
		{"aXxxXb", false},
		{"k7fakeQ", false},
		{"fakeQ72", true},
		{"Q72FAKE", true},
		{"Q72Fake", false},
		{"q72-fake-9", true},
		{"your_token_here", true},
		{"plac", false},
		{"placeholde", false},
		{"PlaceHolder", true},
		{"abcRandomStringxyz", true},
		{"hereh", true},
		{"aherea", false},
	}
	for _, tc := range cases {
		if got := fillerWord([]byte(tc.b)); got != tc.want || got != fillerWordEach([]byte(tc.b)) {
			t.Errorf("fillerWord(%q) = %v, want %v (word by word %v)", tc.b, got, tc.want, fillerWordEach([]byte(tc.b)))
		}
	}
	alpha := base62Alphabet + "-_.xXhHeErRyYfF"
	for seed := uint32(1); seed < 4000; seed++ {
		b := []byte(fakeChars(alpha, int(seed%97), seed))
		if got, want := fillerWord(b), fillerWordEach(b); got != want {
			t.Fatalf("fillerWord(%q) = %v, word by word %v", b, got, want)
		}
	}
}

// FuzzFillerWord compares fillerWord with the word-by-word scan.
//
//	go test -run '^$' -fuzz FuzzFillerWord -fuzztime 20000x ./scanners/
func FuzzFillerWord(f *testing.F) {
	for _, w := range tokenFillerWords {
		f.Add([]byte("Q7" + w + "-" + strings.ToUpper(w)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := fillerWord(b), fillerWordEach(b); got != want {
			t.Fatalf("fillerWord(%q) = %v, word by word %v", b, got, want)
		}
	})
}

// opLenEach and typeSkipEach are opLen and typeSkip without their
// first-byte tests.
func opLenEach(b []byte, dollar bool) int {
	for _, op := range assignOps {
		if len(b) >= len(op) && string(b[:len(op)]) == op {
			if dollar && op != "=" && op != ".=" && op != "+=" {
				return 0
			}
			return len(op)
		}
	}
	return 0
}

func typeSkipEach(b []byte) int {
	i := 0
	if i < len(b) && b[i] == ':' {
		i++
	}
	s := i
	for i < len(b) && setCtxSpace[b[i]] {
		i++
	}
	if i == s || i-s > ctxMaxSpace {
		return 0
	}
	for _, w := range typeWords {
		if len(b)-i >= len(w) && string(b[i:i+len(w)]) == w {
			j := i + len(w)
			for j < len(b) && j-i-len(w) < ctxMaxSpace && setCtxSpace[b[j]] {
				j++
			}
			if j < len(b) && b[j] == '=' && (j+1 == len(b) || b[j+1] != '=') {
				return j
			}
		}
	}
	return 0
}

// TestAssignFirstBytes: opLen and typeSkip with their first-byte tests
// agree with the word-by-word forms on every operator and type word, after
// spaces, cut short, and on random strings of their bytes.
func TestAssignFirstBytes(t *testing.T) {
	var ins []string
	for _, op := range assignOps {
		ins = append(ins, op, op+" v", op[:len(op)-1], "x"+op)
	}
	for _, w := range typeWords {
		for _, sp := range []string{" ", ": ", ":", "  \t"} {
			ins = append(ins, sp+w+" = v", sp+w+"= v", sp+w+" == v", sp+w, sp+w[:len(w)-1]+" = v")
		}
	}
	alpha := ":?+.=!>$ \tstrSing&'[]bytd x"
	for seed := uint32(1); seed < 5000; seed++ {
		ins = append(ins, fakeChars(alpha, int(seed%24), seed))
	}
	ins = append(ins, "")
	for _, in := range ins {
		b := []byte(in)
		for _, dollar := range []bool{false, true} {
			if got, want := opLen(b, dollar), opLenEach(b, dollar); got != want {
				t.Fatalf("opLen(%q, %v) = %d, want %d", in, dollar, got, want)
			}
		}
		if got, want := typeSkip(b), typeSkipEach(b); got != want {
			t.Fatalf("typeSkip(%q) = %d, want %d", in, got, want)
		}
	}
}
