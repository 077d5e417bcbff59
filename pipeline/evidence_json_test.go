package pipeline

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// evidenceStrings are the strings fillEvidence draws from: empty (omitted),
// plain, every escaping case of encoding/json, invalid UTF-8 and text
// around them.
var evidenceStrings = []string{
	"", "x", "github-pat", "/content/0/text", "blake3:00ff", "a\"b\\c", "<system>&</system>",
	"\b\f\n\r\t\x00\x01\x1f\x7f", "line\u2028sep\u2029", "\xff\xfe", "a\xc3", "é漢字🙂", "\u00ad\u200b",
	strings.Repeat("long ", 40), "\xed\xa0\x80", "ok\x00",
}

// fillEvidence sets every field reachable from v (a pointer to a struct)
// from r: strings from evidenceStrings, integers including 0 and the
// extremes, maps with up to 40 keys, slices and pointers nil, empty or
// filled. A field the encoder does not know about is filled too, so
// TestEvidenceAppendJSON fails when Evidence grows a field AppendJSON
// does not write.
func fillEvidence(r *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(evidenceStrings[r.IntN(len(evidenceStrings))])
	case reflect.Int, reflect.Int64, reflect.Int32:
		ints := []int64{0, 0, 1, 7, -3, 1 << 40, math.MaxInt32, math.MinInt32}
		v.SetInt(ints[r.IntN(len(ints))])
	case reflect.Uint64:
		v.SetUint([]uint64{0, 1, math.MaxUint64}[r.IntN(3)])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Map:
		switch r.IntN(3) {
		case 0:
			v.SetZero()
		default:
			m := reflect.MakeMap(v.Type())
			for i, n := 0, r.IntN(41); i < n; i++ {
				k := reflect.New(v.Type().Key()).Elem()
				fillEvidence(r, k)
				if r.IntN(2) == 0 {
					k.SetString(k.String() + string(rune('a'+i)))
				}
				e := reflect.New(v.Type().Elem()).Elem()
				fillEvidence(r, e)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.Slice:
		switch r.IntN(3) {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			s := reflect.MakeSlice(v.Type(), 1+r.IntN(3), 3)
			for i := range s.Len() {
				fillEvidence(r, s.Index(i))
			}
			v.Set(s)
		}
	case reflect.Pointer:
		if r.IntN(3) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		fillEvidence(r, p.Elem())
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			fillEvidence(r, v.Field(i))
		}
	default:
		panic("fillEvidence: unhandled kind " + v.Kind().String() + " (teach AppendJSON and this test the new field)")
	}
}

// TestEvidenceAppendJSON checks AppendJSON and AppendOpen byte for byte
// against encoding/json over random records, the zero record and a record
// with every field set.
func TestEvidenceAppendJSON(t *testing.T) {
	check := func(t *testing.T, ev *Evidence) {
		t.Helper()
		want, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		got := ev.AppendJSON([]byte("prefix"))
		if !bytes.Equal(got[len("prefix"):], want) {
			t.Fatalf("AppendJSON differs from encoding/json:\n got %s\nwant %s", got[len("prefix"):], want)
		}
		open := ev.AppendOpen(nil)
		if !bytes.Equal(append(open, '}'), want) {
			t.Fatalf("AppendOpen is not AppendJSON without its brace: %s", open)
		}
	}
	t.Run("zero", func(t *testing.T) { check(t, &Evidence{}) })
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		ev := &Evidence{}
		fillEvidence(r, reflect.ValueOf(ev).Elem())
		if t.Failed() {
			break
		}
		t.Run("", func(t *testing.T) {
			_ = i
			check(t, ev)
		})
	}
	t.Run("every-field", func(t *testing.T) {
		// Every field non-zero: no omitempty hides one the encoder misses.
		r := rand.New(rand.NewPCG(3, 4))
		for range 200 {
			ev := &Evidence{}
			fillEvidence(r, reflect.ValueOf(ev).Elem())
			if !allSet(reflect.ValueOf(ev).Elem()) {
				continue
			}
			check(t, ev)
			return
		}
		// Fill by hand what chance left empty.
		ev := &Evidence{}
		fillEvidence(r, reflect.ValueOf(ev).Elem())
		for !allSet(reflect.ValueOf(ev).Elem()) {
			fillUnset(r, reflect.ValueOf(ev).Elem())
		}
		check(t, ev)
	})
}

// allSet reports whether every field of struct v (and of the structs its
// pointers and slices hold) is non-zero.
func allSet(v reflect.Value) bool {
	for i := range v.NumField() {
		f := v.Field(i)
		if f.IsZero() {
			return false
		}
		switch f.Kind() {
		case reflect.Pointer:
			if !allSet(f.Elem()) {
				return false
			}
		case reflect.Slice, reflect.Map:
			if f.Len() == 0 {
				return false
			}
			if f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct && !allSet(f.Index(0)) {
				return false
			}
		}
	}
	return true
}

// FuzzEvidenceJSON checks AppendJSONString against encoding/json for any
// string.
func FuzzEvidenceJSON(f *testing.F) {
	for _, s := range evidenceStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendJSONString(%q) = %s, want %s", s, got, want)
		}
		ev := &Evidence{Version: s, Rules: map[string]int64{s: 1, s + "x": 2}, Findings: []FindingRecord{{Rule: s, Pointer: s}}}
		want, _ = json.Marshal(ev)
		if got := ev.AppendJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("AppendJSON differs:\n got %s\nwant %s", got, want)
		}
	})
}

// BenchmarkEvidenceJSON compares AppendJSON with encoding/json on a
// typical record (a few rules, findings and a bound).
func BenchmarkEvidenceJSON(b *testing.B) {
	ev := &Evidence{Version: EvidenceVersion, Kind: "tool-result", Tool: "search", Server: "srv", Tenant: "acme",
		RequestID: "r-1", PolicyVersion: "default", GuardVersion: "mcp-sanitize/1", Outcome: OutcomeSanitized,
		Input: Digest{65536, "blake3:" + strings.Repeat("ab", 32)}, Output: Digest{65700, "blake3:" + strings.Repeat("cd", 32)},
		Nodes: 900, Depth: 5, Strings: 400, Rules: map[string]int64{"github-pat": 1, "aws-access-key": 1, "tag-system": 2},
		Removed: map[string]int64{"zero-width": 3}, DurationNanos: 123456,
		Bounds: []BoundHit{{Bound: "text-chars", Action: "truncate", Pointer: "/content/0/text", Count: 1}}}
	for range 4 {
		ev.Findings = append(ev.Findings, FindingRecord{Rule: "github-pat", Kind: "secret", Pointer: "/content/0/text", InputOffset: 1234, Offset: 99, Length: 40, Fingerprint: strings.Repeat("0f", 16)})
	}
	want, _ := json.Marshal(ev)
	b.Run("AppendJSON", func(b *testing.B) {
		b.SetBytes(int64(len(want)))
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = ev.AppendJSON(buf[:0])
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(want)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(ev); err != nil {
				b.Fatal(err)
			}
		}
	})
}
