package bench

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// tinyRecord is a hand-built record: one text value holding a secret, a
// decoy, a tag and a zero-width space before the secret, so normalized
// offsets differ from decoded ones.
func tinyRecord() *LabeledRecord {
	const secret = "Zq9xW2vB7nM4kL8pR3tY6uH1"
	const decoy = "123e4567-e89b-42d3-a456-426614174000"
	text := "a\u200bb KEY=" + secret + " id=" + decoy + " <system>x</system>"
	off := func(s string) int { return strings.Index(text, s) }
	return &LabeledRecord{
		Index:  7,
		Tool:   "read_file",
		Shape:  "env-file",
		Result: []byte(`{"content":[{"type":"text","text":"a\u200bb KEY=` + secret + ` id=` + decoy + ` \u003csystem\u003ex\u003c/system\u003e"}]}`),
		Labels: []Label{
			{Record: 7, Kind: LabelInvisible, Family: "invisible", Type: "zero-width-space", Context: "env-file", Pointer: "/content/0/text", Offset: 1, Exact: "\u200b", Needles: []string{"\u200b"}},
			{Record: 7, Kind: LabelSecret, Family: "generic", Provider: "generic", Type: "secret-assignment", Context: "env-file", Pointer: "/content/0/text", Offset: off(secret), Exact: secret},
			{Record: 7, Kind: LabelDecoy, Family: "decoy", Type: "uuid", Context: "env-file", Pointer: "/content/0/text", Offset: off(decoy), Exact: decoy},
			{Record: 7, Kind: LabelTag, Family: "tag", Type: "system-tag", Context: "env-file", Pointer: "/content/0/text", Offset: off("<system>"), Exact: "<system>x</system>", Needles: []string{"<system>", "</system>"}},
		},
	}
}

// stripZW is the normalization of the tiny case: the zero-width space goes.
func stripZW(s string) string { return strings.ReplaceAll(s, "\u200b", "") }

func outDoc(text string) []byte {
	var w writer
	w.str(text, EscapeMinimal)
	return []byte(`{"content":[{"type":"text","text":` + string(w.b) + `}]}`)
}

func TestScorerTinyCases(t *testing.T) {
	const secret = "Zq9xW2vB7nM4kL8pR3tY6uH1"
	const decoy = "123e4567-e89b-42d3-a456-426614174000"
	// Offsets in the normalized string "ab KEY=<secret> id=<decoy> <system>x</system>".
	secOff := len("ab KEY=")
	decOff := secOff + len(secret) + len(" id=")
	tagOff := decOff + len(decoy) + 1
	hit := Finding{Rule: "r-secret", Kind: "secret", Pointer: "/content/0/text", Offset: secOff, Length: len(secret)}
	tagF := []Finding{
		{Rule: "r-tag", Kind: "tag", Pointer: "/content/0/text", Offset: tagOff, Length: len("<system>")},
		{Rule: "r-tag", Kind: "tag", Pointer: "/content/0/text", Offset: tagOff + len("<system>x"), Length: len("</system>")},
	}
	clean := "ab KEY=[R] id=" + decoy + " [T]x[T]"
	type want struct {
		found, survived, uncovered int // the secret
		destroyed                  int // the decoy
		tagsSurviving, invSurvive  int
		tp, secretFindings         int
		onDecoy, elsewhere         int // of rule r-secret or r-wide
	}
	cases := []struct {
		name     string
		out      string
		findings []Finding
		norm     func(string) string
		want     want
	}{
		{"hit", clean, append([]Finding{hit}, tagF...), stripZW,
			want{found: 1, tp: 1, secretFindings: 1}},
		{"miss: bytes survive", "ab KEY=" + secret + " id=" + decoy + " [T]x[T]", tagF, stripZW,
			want{survived: 1}},
		{"miss: gone but no finding covers it", clean, tagF, stripZW,
			want{uncovered: 1}},
		{"without normalization a long finding still overlaps", clean, append([]Finding{hit}, tagF...), nil,
			// Without stripping U+200B the label starts 3 bytes later; the
			// finding still overlaps it (it is long), so coverage holds.
			want{found: 1, tp: 1, secretFindings: 1}},
		{"destroyed decoy", "ab KEY=[R] id=[R] [T]x[T]",
			append([]Finding{hit, {Rule: "r-wide", Kind: "secret", Pointer: "/content/0/text", Offset: decOff, Length: len(decoy)}}, tagF...), stripZW,
			want{found: 1, destroyed: 1, tp: 1, secretFindings: 2, onDecoy: 1}},
		{"finding elsewhere", clean, append([]Finding{hit, {Rule: "r-wide", Kind: "secret", Pointer: "/content/0/text", Offset: 0, Length: 2}}, tagF...), stripZW,
			want{found: 1, tp: 1, secretFindings: 2, elsewhere: 1}},
		{"tag and invisible survive", "a\u200bb KEY=[R] id=" + decoy + " <system>x</system>", []Finding{hit}, stripZW,
			want{found: 1, tp: 1, secretFindings: 1, tagsSurviving: 1, invSurvive: 1}},
		{"finding on another pointer covers nothing", clean, append([]Finding{{Rule: "r-secret", Kind: "secret", Pointer: "/content/1/text", Offset: secOff, Length: len(secret)}}, tagF...), stripZW,
			want{uncovered: 1, secretFindings: 1, elsewhere: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Scorer{Normalize: c.norm, Examples: 2}
			if err := s.Add(tinyRecord(), Outcome{Output: outDoc(c.out), Findings: c.findings}); err != nil {
				t.Fatal(err)
			}
			r := s.Report()
			ty := map[string]*TypeScore{}
			for _, x := range r.Types {
				ty[x.Type] = x
			}
			sec, dec := ty["secret-assignment"], ty["uuid"]
			got := want{
				found: sec.Found, survived: sec.Survived, uncovered: sec.Uncovered,
				destroyed: dec.Destroyed, tagsSurviving: r.Totals.TagsSurviving, invSurvive: r.Totals.InvisibleSurvive,
				tp: r.Totals.SecretFindingsTP, secretFindings: r.Totals.SecretFindings,
			}
			for _, rs := range r.Rules {
				if rs.Kind == "secret" {
					got.onDecoy += rs.OnDecoy
					got.elsewhere += rs.Elsewhere
				}
			}
			if got != c.want {
				t.Fatalf("got %+v\nwant %+v", got, c.want)
			}
			if sec.Planted != 1 || dec.Planted != 1 || r.Totals.Secrets != 1 || r.Totals.Decoys != 1 {
				t.Fatalf("planted counts %+v", r.Totals)
			}
			if c.want.found == 1 && r.Totals.Recall() != 1 || c.want.found == 0 && r.Totals.Recall() != 0 {
				t.Fatalf("recall %v", r.Totals.Recall())
			}
			if c.want.destroyed == 1 && dec.Rules["r-wide"] != 1 {
				t.Fatalf("destroyed decoy not attributed to its rule: %v", dec.Rules)
			}
			for _, ex := range r.Examples {
				for _, x := range ex {
					if strings.Contains(x, secret) {
						t.Fatalf("an example shows the planted secret: %s", x)
					}
				}
			}
		})
	}
}

// TestScorerNormalizedOffsets: a finding whose offset is right only after
// normalization covers the secret with Normalize set, and misses it when
// offsets are taken from the decoded text.
func TestScorerNormalizedOffsets(t *testing.T) {
	const secret = "Zq9xW2vB7nM4kL8pR3tY6uH1"
	// A short finding over the secret's last 4 bytes in normalized terms.
	f := Finding{Rule: "r", Kind: "secret", Pointer: "/content/0/text", Offset: len("ab KEY=") + len(secret) - 4, Length: 4}
	out := outDoc("ab KEY=[R] id=x")
	for _, c := range []struct {
		norm  func(string) string
		found int
	}{{stripZW, 1}, {nil, 1}} {
		s := Scorer{Normalize: c.norm}
		if err := s.Add(tinyRecord(), Outcome{Output: out, Findings: []Finding{f}}); err != nil {
			t.Fatal(err)
		}
		if got := s.Report().Totals.SecretsFound; got != c.found {
			t.Fatalf("found %d, want %d", got, c.found)
		}
	}
	// A finding on the 3 bytes right after the secret in decoded terms is
	// after it in normalized terms only with normalization.
	g := Finding{Rule: "r", Kind: "secret", Pointer: "/content/0/text", Offset: len("ab KEY=") + len(secret), Length: 3}
	s := Scorer{Normalize: stripZW}
	if err := s.Add(tinyRecord(), Outcome{Output: out, Findings: []Finding{g}}); err != nil {
		t.Fatal(err)
	}
	if got := s.Report().Totals.SecretsFound; got != 0 {
		t.Fatalf("a finding past the secret covered it (found %d)", got)
	}
	s = Scorer{}
	if err := s.Add(tinyRecord(), Outcome{Output: out, Findings: []Finding{g}}); err != nil {
		t.Fatal(err)
	}
	if got := s.Report().Totals.SecretsFound; got != 1 {
		t.Fatalf("without normalization the decoded offsets shift by 3 bytes: found %d, want 1", got)
	}
}

func TestScorerRejectsBadLabel(t *testing.T) {
	r := tinyRecord()
	r.Labels[1].Offset++
	var s Scorer
	err := s.Add(r, Outcome{Output: r.Result})
	if !errors.Is(err, ErrLabel) {
		t.Fatalf("err = %v, want ErrLabel", err)
	}
	if strings.Contains(err.Error(), r.Labels[1].Exact) {
		t.Fatal("the error quotes the secret")
	}
}

func TestScorerOutputNotJSON(t *testing.T) {
	var s Scorer
	if err := s.Add(tinyRecord(), Outcome{Output: []byte("{"), Rejected: true}); err != nil {
		t.Fatal(err)
	}
	tot := s.Report().Totals
	if tot.SecretsFound != 0 || tot.DecoysDestroyed != 1 || tot.Rejected != 1 {
		t.Fatalf("%+v", tot)
	}
}

func TestScoreExternal(t *testing.T) {
	const secret = "Zq9xW2vB7nM4kL8pR3tY6uH1"
	const decoy = "123e4567-e89b-42d3-a456-426614174000"
	recs := []LabeledRecord{*tinyRecord()}
	for i := range recs[0].Labels {
		recs[0].Labels[i].Raw = recs[0].Labels[i].Exact
	}
	fs := []ExternalFinding{
		{Record: 7, Rule: "generic", Secret: secret, Match: "KEY=" + secret},
		{Record: 7, Rule: "other", Secret: secret[:12], Match: secret[:12]}, // the same secret again
		{Record: 7, Rule: "uuid-ish", Secret: decoy, Match: "id=" + decoy},
		{Record: 7, Rule: "short", Secret: "KEY", Match: "KEY"},
		{Record: 7, Rule: "decoded", Secret: "decoded-part." + secret[4:22], Match: "KEY=decoded-part." + secret[4:22]}, // a run of 18 shared bytes: the same secret
		{Record: 7, Rule: "near", Secret: "other" + secret[:12] + "other", Match: "x"},                                  // 12 shared bytes only: not it
		{Record: 8, Rule: "generic", Secret: secret},                                                                    // another record: no label there
	}
	got := ScoreExternal(recs, fs, false)
	want := ExternalScore{Secrets: 1, Found: 1, Decoys: 1, OnDecoy: 1, Findings: 6, OnSecret: 1, Duplicate: 2, FalsePositives: 3,
		Types: map[string][2]int{"secret-assignment": {1, 1}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	none := ScoreExternal(recs, nil, true)
	if none.Found != 0 || none.Recall() != 0 || none.Secrets != 1 {
		t.Fatalf("%+v", none)
	}
}

func TestStringValuesPointers(t *testing.T) {
	doc := []byte(`{"a":[1,"x",{"b/c":"y","d~":["z",{}]}],"e":{"f":null,"g":"w"},"h":[[],"v"]}`)
	got, err := StringValues(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"/a/1": "x", "/a/2/b~1c": "y", "/a/2/d~0/0": "z", "/e/g": "w", "/h/1": "v"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if _, err := StringValues([]byte(`{"a":`)); err == nil {
		t.Fatal("truncated JSON accepted")
	}
}

func TestMask(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_…(40 bytes)"},
		{"short", "s…(5 bytes)"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----…(66 bytes)"},
	} {
		if got := Mask(c.in); got != c.want {
			t.Errorf("Mask(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestDecoyIntactEscapes: a decoy of JSON in text whose escapes the
// Normalizer decodes ("\/", "\u003c") is intact; one that lost bytes is not.
func TestDecoyIntactEscapes(t *testing.T) {
	for _, tc := range []struct {
		o, in, exact string
		want         bool
	}{
		{`{"k":"a/b"}`, `{"k":"a\/b"}`, `a\/b`, true},
		{`x Vec<u8> y`, `x Vec\u003cu8\u003e y`, `Vec\u003cu8\u003e`, true},
		{`x Vec\u003cu8\u003e y`, `x Vec\u003cu8\u003e y`, `Vec\u003cu8\u003e`, true},
		{`{"k":"a[REDACTED]"}`, `{"k":"a\/b"}`, `a\/b`, false},
		{`a/b`, `a\/b a\/b`, `a\/b`, false}, // one of two occurrences lost
		{`Ｖec`, `Vec`, `Vec`, false},        // changed otherwise
	} {
		if got := decoyIntact(tc.o, tc.in, tc.exact); got != tc.want {
			t.Errorf("decoyIntact(%q, %q, %q) = %v, want %v", tc.o, tc.in, tc.exact, got, tc.want)
		}
	}
}
