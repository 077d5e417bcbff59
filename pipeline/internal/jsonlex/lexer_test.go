package jsonlex

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// record lexes doc, cut into chunks at the given offsets, and returns what
// a consumer sees, with string and number segments joined: one line per
// token, offsets included, so that any two splits must give the same lines.
func record(doc []byte, cuts []int) []string { return recordWith(doc, cuts, false) }

// recordWith is record; with closeQuote it ends strings with CloseQuote
// where it can, as a caller's fast path does.
func recordWith(doc []byte, cuts []int, closeQuote bool) []string {
	return recordSteps(doc, cuts, closeQuote, false)
}

// recordSteps is recordWith; with steps it reads a member's tokens with
// the steps (steps.go) wherever they take them, as the pipeline's member
// path does, and Next elsewhere.
func recordSteps(doc []byte, cuts []int, closeQuote, steps bool) []string {
	var l Lexer
	var out []string
	var str, num []byte
	var strOff, numOff int64
	var invalid []string
	handle := func(k Kind) bool {
		switch k {
		case BeginObject:
			out = append(out, fmt.Sprintf("{@%d", l.Off()))
		case EndObject:
			out = append(out, fmt.Sprintf("}@%d", l.Off()))
		case BeginArray:
			out = append(out, fmt.Sprintf("[@%d", l.Off()))
		case EndArray:
			out = append(out, fmt.Sprintf("]@%d", l.Off()))
		case Comma:
			out = append(out, fmt.Sprintf(",%v@%d", l.Object(), l.Off()))
		case BeginName, BeginString:
			str, strOff, invalid = str[:0], l.Off(), nil
		case Text:
			if d := strings.IndexFunc(string(l.Seg()), func(r rune) bool { return r >= 0x80 || r == 0x7f }) >= 0; d != l.Dirty() {
				out = append(out, fmt.Sprintf("dirty %v for %q", l.Dirty(), l.Seg()))
			}
			str = append(str, l.Seg()...)
		case Escape:
			str = append(str, l.Byte())
		case Rune:
			str = append(str, l.Seg()...)
		case Invalid:
			for range l.N() {
				str = append(str, "\uFFFD"...)
			}
			invalid = append(invalid, fmt.Sprintf("%dx%d", l.N(), l.Off()))
		case EndString:
			out = append(out, fmt.Sprintf("str%q@%d-%d%v", str, strOff, l.Off(), invalid))
		case BeginNumber:
			num, numOff = num[:0], l.Off()
		case Number:
			num = append(num, l.Seg()...)
			if l.Ended() {
				out = append(out, fmt.Sprintf("num %s@%d-%d", num, numOff, l.Off()+int64(len(l.Seg()))))
			}
		case EndNumber:
			out = append(out, fmt.Sprintf("num %s@%d-%d", num, numOff, l.Off()))
		case BeginLiteral:
			numOff = l.Off()
		case EndLiteral:
			out = append(out, fmt.Sprintf("lit %s@%d", l.Seg(), numOff))
		case Fail:
			out = append(out, fmt.Sprintf("fail %s@%d", l.Err(), l.Off()))
			return false
		case Done:
			out = append(out, "done")
			return false
		}
		return true
	}
	prev := 0
	for ci := 0; ci <= len(cuts); ci++ {
		end := len(doc)
		if ci < len(cuts) {
			end = cuts[ci]
		}
		c := doc[prev:end]
		l.Base = int64(prev)
		prev = end
		for i := 0; i < len(c); {
			if closeQuote && l.InString() && l.CloseQuote(c, i) {
				handle(EndString)
				i++
				continue
			}
			if steps {
				if k, j := l.ColonValue(c, i); k != More {
					i = j
					handle(k)
					continue
				}
				if k, j := l.ShortNumber(c, i); k != More {
					i = j
					handle(k)
					continue
				}
				if ok, j := l.Comma(c, i); ok {
					i = j
					handle(Comma)
					continue
				}
				if ok, j := l.Name(c, i); ok {
					i = j
					handle(BeginName)
					continue
				}
			}
			k, j := l.Next(c, i)
			if j < i || j > len(c) || k == More && j != len(c) {
				return append(out, fmt.Sprintf("bad index %d -> %d of %d (%d)", i, j, len(c), k))
			}
			i = j
			if !handle(k) {
				return out
			}
		}
	}
	l.Base = int64(len(doc))
	for {
		k := l.End()
		if !handle(k) {
			return out
		}
		if k != EndNumber {
			return append(out, fmt.Sprintf("End gave %d", k))
		}
	}
}

// lexTable: documents and what a consumer sees of them whole. Each is also
// lexed split at every offset and a byte at a time (TestEverySplit).
var lexTable = []struct {
	name string
	doc  string
	want string // the lines of record, joined by " | "
}{
	{"empty", ``, "fail empty-input@0"},
	{"spaces", " \t\r\n", "fail empty-input@4"},
	{"null", ` null `, "lit null@1 | done"},
	{"true", `true`, "lit true@0 | done"},
	{"false in array", `[false]`, "[@0 | lit false@1 | ]@6 | done"},
	{"bad literal", `tru`, "fail unexpected-eof@3"},
	{"misspelt literal", `[nul1]`, "[@0 | fail bad-literal@4"},
	{"top number", `-12.5e+3`, "num -12.5e+3@0-8 | done"},
	{"number then space", `0 `, "num 0@0-1 | done"},
	{"leading zero", `01`, "num 0@0-1 | fail trailing-data@1"},
	{"bad number", `[1.]`, "[@0 | fail bad-number@3"},
	{"bad exponent at eof", `1e`, "fail bad-number@2"},
	{"number in object", `{"a":-0}`, `{@0 | str"a"@1-3[] | num -0@5-7 | }@7 | done`},
	{"empty containers", `[{},[]]`, "[@0 | {@1 | }@2 | ,false@3 | [@4 | ]@5 | ]@6 | done"},
	{"members", `{"a":1,"b":[2]}`, `{@0 | str"a"@1-3[] | num 1@5-6 | ,true@6 | str"b"@7-9[] | [@11 | num 2@12-13 | ]@13 | }@14 | done`},
	{"escapes", `"a\"b\\c\/d\be\ff\ng\rh\ti"`, `str"a\"b\\c/d\be\ff\ng\rh\ti"@0-26[] | done`},
	{"unicode escapes", `"\u0041\u00e9\u20AC"`, `str"Aé€"@0-19[] | done`},
	{"surrogate pair", `"x\ud83d\ude00y"`, `str"x😀y"@0-15[] | done`},
	{"lone high", `"\ud83dx"`, `str"�x"@0-8[1x6] | done`},
	{"lone high at end", `"\ud83d"`, `str"�"@0-7[1x6] | done`},
	{"high then high", `"\ud83d\ud83d\ude00"`, `str"�😀"@0-19[1x6] | done`},
	{"lone low", `"\ude00"`, `str"�"@0-7[1x6] | done`},
	{"high then escape", `"\ud83d\n"`, `str"�\n"@0-9[1x6] | done`},
	{"high then bmp escape", `"\ud83d\u0041"`, `str"�A"@0-13[1x6] | done`},
	{"high then invalid byte", "\"\\ud83d\xff\"", `str"��"@0-8[2x7] | done`},
	{"utf8", `"héllo wörld ✓ 😀"`, `str"héllo wörld ✓ 😀"@0-23[] | done`},
	{"invalid utf8", "\"a\xffb\xc3\"", `str"a�b�"@0-5[1x2 1x4] | done`},
	{"truncated utf8 at eof", "\"a\xe2\x82", "fail unexpected-eof@4"},
	{"del", "\"a\x7fb\"", `str"a\x7fb"@0-4[] | done`},
	{"control", "\"a\tb\"", "fail control-in-string@2"},
	{"bad escape", `"\x"`, "fail bad-escape@2"},
	{"bad hex", `"\u12G4"`, "fail bad-escape@5"},
	{"expected key", `{1:2}`, "{@0 | fail expected-key@1"},
	{"trailing comma object", `{"a":1,}`, `{@0 | str"a"@1-3[] | num 1@5-6 | ,true@6 | fail expected-key@7`},
	{"trailing comma array", `[1,]`, "[@0 | num 1@1-2 | ,false@2 | fail expected-value@3"},
	{"expected colon", `{"a" 1}`, `{@0 | str"a"@1-3[] | fail expected-colon@5`},
	{"expected comma", `[1 2]`, "[@0 | num 1@1-2 | fail expected-comma-or-close@3"},
	{"mismatched close", `[1}`, "[@0 | num 1@1-2 | fail expected-comma-or-close@2"},
	{"trailing data", `{} {}`, "{@0 | }@1 | fail trailing-data@3"},
	{"unclosed", `{"a":[1`, `{@0 | str"a"@1-3[] | [@5 | num 1@6-7 | fail unexpected-eof@7`},
	{"expected value", `[,]`, "[@0 | fail expected-value@1"},
	// Members as the steps (steps.go) read them, and what they leave to Next.
	{"members", `{"a":"x","b" : -12.5 ,"c":0,"d":[1],"e":true,"f":{"g":2}}`, `{@0 | str"a"@1-3[] | str"x"@5-7[] | ,true@8 | str"b"@9-11[] | num -12.5@15-20 | ,true@21 | str"c"@22-24[] | num 0@26-27 | ,true@27 | str"d"@28-30[] | [@32 | num 1@33-34 | ]@34 | ,true@35 | str"e"@36-38[] | lit true@40 | ,true@44 | str"f"@45-47[] | {@49 | str"g"@50-52[] | num 2@54-55 | }@55 | }@56 | done`},
	{"member numbers", `[{"a":1e5,"b":0.25E-1,"c":-0}]`, `[@0 | {@1 | str"a"@2-4[] | num 1e5@6-9 | ,true@9 | str"b"@10-12[] | num 0.25E-1@14-21 | ,true@21 | str"c"@22-24[] | num -0@26-28 | }@28 | ]@29 | done`},
	{"member leading zero", `{"a":01}`, `{@0 | str"a"@1-3[] | num 0@5-6 | fail expected-comma-or-close@6`},
	{"member bare fraction", `{"a":1.}`, `{@0 | str"a"@1-3[] | fail bad-number@7`},
	{"member minus alone", `{"a":-}`, `{@0 | str"a"@1-3[] | fail bad-number@6`},
	{"member minus letter", `{"a":-x}`, `{@0 | str"a"@1-3[] | fail bad-number@6`},
	{"member number then letter", `{"a":12a}`, `{@0 | str"a"@1-3[] | num 12@5-7 | fail expected-comma-or-close@7`},
	{"member trailing comma", `{"a":1,}`, `{@0 | str"a"@1-3[] | num 1@5-6 | ,true@6 | fail expected-key@7`},
	{"member no comma", `{"a":1 "b":2}`, `{@0 | str"a"@1-3[] | num 1@5-6 | fail expected-comma-or-close@7`},
	{"deep", strings.Repeat("[", 70) + strings.Repeat("]", 70), strings.TrimSuffix(strings.Repeat("[@X | ", 70), " | ") + " | " + strings.Repeat("]@X | ", 70) + "done"},
}

func TestTable(t *testing.T) {
	for _, tc := range lexTable {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(record([]byte(tc.doc), nil), " | ")
			want := tc.want
			if strings.Contains(want, "@X") {
				got = maskOffsets(got)
			}
			if got != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// maskOffsets replaces the offsets of brackets with X.
func maskOffsets(s string) string {
	parts := strings.Split(s, " | ")
	for i, p := range parts {
		if len(p) > 1 && (p[0] == '[' || p[0] == ']') && p[1] == '@' {
			parts[i] = p[:2] + "X"
		}
	}
	return strings.Join(parts, " | ")
}

// TestEverySplit lexes each table document cut at every offset, in three
// pieces at every pair of offsets (short documents), and a byte at a time:
// every split gives what the whole gives.
func TestEverySplit(t *testing.T) {
	for _, tc := range lexTable {
		t.Run(tc.name, func(t *testing.T) {
			doc := []byte(tc.doc)
			whole := strings.Join(record(doc, nil), " | ")
			check := func(cuts []int) {
				t.Helper()
				if got := strings.Join(record(doc, cuts), " | "); got != whole {
					t.Fatalf("cuts %v:\ngot   %s\nwhole %s", cuts, got, whole)
				}
			}
			for k := 0; k <= len(doc); k++ {
				check([]int{k})
				if got := strings.Join(recordWith(doc, []int{k}, true), " | "); got != whole {
					t.Fatalf("cut %d, with CloseQuote:\ngot   %s\nwhole %s", k, got, whole)
				}
				if got := strings.Join(recordSteps(doc, []int{k}, true, true), " | "); got != whole {
					t.Fatalf("cut %d, with the steps:\ngot   %s\nwhole %s", k, got, whole)
				}
			}
			if len(doc) <= 40 {
				for a := 0; a <= len(doc); a++ {
					for b := a; b <= len(doc); b++ {
						check([]int{a, b})
					}
				}
			}
			bytewise := make([]int, 0, len(doc))
			for k := 1; k < len(doc); k++ {
				bytewise = append(bytewise, k)
			}
			check(bytewise)
		})
	}
}

// TestZeroValueAndReset checks that a zero Lexer and a Reset one lex the
// same way.
func TestZeroValueAndReset(t *testing.T) {
	var l Lexer
	doc := []byte(`{"a":[1,"x"]}`)
	for i := 0; i < len(doc); {
		var k Kind
		k, i = l.Next(doc, i)
		if k == Fail {
			t.Fatalf("fail %s", l.Err())
		}
	}
	if l.End() != Done {
		t.Fatal("not done")
	}
	l.Reset()
	if k, _ := l.Next([]byte(` "s"`), 0); k != BeginString {
		t.Fatalf("after Reset: %d, want BeginString", k)
	}
	if k, _ := l.Next([]byte("]"), 0); k != Text || string(l.Seg()) != "]" {
		t.Fatalf("inside the string: %d %q, want Text \"]\"", k, l.Seg())
	}
}

func TestNumberTooLong(t *testing.T) {
	for _, tc := range []struct {
		name string
		max  int
		doc  string
		want Kind
		off  int64 // of the byte that crosses the bound, on Fail
	}{
		{"default fits", 0, strings.Repeat("1", DefaultMaxNumber), Done, 0},
		{"default over", 0, strings.Repeat("1", DefaultMaxNumber+1), Fail, DefaultMaxNumber},
		{"small fits", 3, "[123]", Done, 0},
		{"small over", 3, "[1234]", Fail, 4},
		{"over in the fraction", 4, "[1.2345]", Fail, 5},
		{"over in the exponent", 6, "[-1.5e+123]", Fail, 7},
		{"over at the first digit of a run", 2, "[1.5]", Fail, 3},
		{"fraction fits", 5, "[10.25]", Done, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := Lexer{MaxNumber: tc.max}
			doc := []byte(tc.doc)
			var k Kind
			for i := 0; i < len(doc) && k != Fail; {
				k, i = l.Next(doc, i)
			}
			if k != Fail {
				l.Base = int64(len(doc))
				for k = l.End(); k == EndNumber; k = l.End() {
				}
			}
			if k != tc.want {
				t.Fatalf("got %d, want %d", k, tc.want)
			}
			if k == Fail && (l.Err() != ErrNumberTooLong || l.Off() != tc.off) {
				t.Fatalf("err %s at %d, want %s at %d", l.Err(), l.Off(), ErrNumberTooLong, tc.off)
			}
		})
	}
}

// TestShortNumberBound checks that ShortNumber leaves a number over the
// bound to Next, which fails it where it crosses the bound.
func TestShortNumberBound(t *testing.T) {
	for _, tc := range []struct {
		max  int
		doc  string
		want Kind
	}{
		{3, `{"a":123}`, Number},
		{3, `{"a":1234}`, More},
		{4, `{"a":-1.25}`, More},
		{5, `{"a":-1.25}`, Number},
	} {
		l := Lexer{MaxNumber: tc.max}
		doc := []byte(tc.doc)
		i := 0
		var k Kind
		for k != BeginNumber {
			k, i = l.Next(doc, i)
		}
		if k, _ = l.ShortNumber(doc, i); k != tc.want {
			t.Fatalf("max %d, %s: got %d, want %d", tc.max, tc.doc, k, tc.want)
		}
	}
}

func TestErrorNames(t *testing.T) {
	seen := map[string]bool{}
	for e := ErrNone + 1; e < numErrors; e++ {
		s := e.String()
		if s == "" || seen[s] {
			t.Fatalf("error %d: name %q empty or repeated", e, s)
		}
		seen[s] = true
	}
}

// FuzzSplit lexes a document whole and cut at random: the same tokens,
// and a complete value exactly when encoding/json calls it valid.
func FuzzSplit(f *testing.F) {
	for _, tc := range lexTable {
		f.Add([]byte(tc.doc), int64(len(tc.doc)))
	}
	f.Fuzz(func(t *testing.T, doc []byte, seed int64) {
		if len(doc) > 1<<12 {
			return
		}
		whole := record(doc, nil)
		done := whole[len(whole)-1] == "done"
		if done != json.Valid(doc) {
			t.Fatalf("lexer done %v, json.Valid %v: %s", done, !done, whole[len(whole)-1])
		}
		r := rand.New(rand.NewSource(seed))
		var cuts []int
		for k := 0; k < len(doc); k += 1 + r.Intn(7) {
			cuts = append(cuts, k)
		}
		a, b := strings.Join(whole, " | "), strings.Join(record(doc, cuts), " | ")
		if a != b {
			t.Fatalf("cuts %v:\ngot   %s\nwhole %s", cuts, b, a)
		}
		if s := strings.Join(recordSteps(doc, cuts, true, true), " | "); s != a {
			t.Fatalf("cuts %v, with the steps:\ngot   %s\nwhole %s", cuts, s, a)
		}
	})
}

// FuzzSafe8 compares safe8 with the strSafe table.
func FuzzSafe8(f *testing.F) {
	for _, s := range []string{"abcdefgh", "abc\"efgh", "abcdefg\\", "\x1fbcdefgh", "abcdefg\x7f", "abcdefg\x80", " ~~~~~~~", "\x20\x20\x20\x20\x20\x20\x20\x20", "\xff\xff\xff\xff\xff\xff\xff\xff", "!#[]}{}!"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		if len(p) < 8 {
			return
		}
		p = p[:8]
		want := true
		for _, c := range p {
			want = want && strSafe[c]
		}
		if got := safe8(p); got != want {
			t.Fatalf("safe8(%q) = %v, want %v", p, got, want)
		}
	})
}

// TestSafe8Pairs checks safe8 against strSafe for every pair of byte
// values in every two neighbouring lanes (the carries and borrows between
// lanes are what could go wrong), the other lanes safe.
func TestSafe8Pairs(t *testing.T) {
	p := []byte("aaaaaaaa")
	for i := 0; i < 7; i++ {
		for a := 0; a < 256; a++ {
			for b := 0; b < 256; b++ {
				p[i], p[i+1] = byte(a), byte(b)
				if got, want := safe8(p), strSafe[a] && strSafe[b]; got != want {
					t.Fatalf("safe8(%q) = %v, want %v", p, got, want)
				}
			}
		}
		p[i], p[i+1] = 'a', 'a'
	}
}
