package scanners

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// memoNames are member names of every kind the memo decides on: clean
// ones, context names, keywords, '&', lengths around the first word (8)
// and the largest held (decodeMinRun-1), names that differ only after
// their first word or only in length.
var memoNames = []string{
	"", "a", "id", "path", "line", "column", "snippet", "score", "items", "name",
	"password", "api_key", "secret", "token", "DD_API_KEY", "Authorization", "bearer",
	"a&b", "&", "pathpath", "pathpathX", "pathpathY", "pathpath\x00", "path\x00",
	"<system>", "[INST]", "ghp_", "AKIA", "sk-", "xoxb-1", "patch", "pat",
	strings.Repeat("x", 31), strings.Repeat("x", 32), strings.Repeat("x", 30) + "y",
	"aws_secret_access_key", "client_secret_value_x", "user.name", "user-id",
	"metadata", "metadata_secret", "metadata_token", "metadatax", "metadata&",
}

// TestNameMemo checks ShortCleanName and ResetWithContext, with the memo
// warm, cold and thrashed, against a Redactor that has never seen a name:
// the same answer, the same spans, and the same output for the next
// string. The names come in a random order, many times, so that slots are
// reused by other names (32 slots, more names than that).
func TestNameMemo(t *testing.T) {
	c := shortCleanCatalog(t)
	memo := c.NewRedactor(testKey)
	rng := rand.New(rand.NewPCG(1, 2))
	names := append([]string(nil), memoNames...)
	for i := range 60 {
		names = append(names, "k"+strings.Repeat("e", i%20)+string(rune('a'+i%26)))
	}
	hits, clean, ctx := 0, 0, 0
	for range 20 * len(names) {
		s := names[rng.IntN(len(names))]
		if k := memo.memoNameSlot(s); k >= 0 {
			hits++
		}
		// As a key: Reset, then ShortCleanName.
		ref := c.NewRedactor(testKey)
		ref.Reset()
		want := ref.ShortClean([]byte(s))
		memo.Reset()
		// A buffer that goes on past the name, as the pipeline's does.
		buf := []byte(s + `":"&&&&&&&&`)
		if got := memo.ShortCleanName(buf[:len(s)]); got != want {
			t.Fatalf("ShortCleanName(%q) = %v, ShortClean %v", s, got, want)
		}
		if want {
			clean++
			if a, b := memo.Spans(), ref.Spans(); len(a) != len(b) || len(a) > 0 && !reflect.DeepEqual(a, b) {
				t.Fatalf("ShortCleanName(%q): spans %v, want %v", s, memo.Spans(), ref.Spans())
			}
		} else {
			memo.HintASCII()
			ref.HintASCII()
			o1, f1 := memo.Append(nil, []byte(s), true, nil)
			o2, f2 := ref.Append(nil, []byte(s), true, nil)
			if string(o1) != string(o2) || !reflect.DeepEqual(f1, f2) {
				t.Fatalf("after ShortCleanName(%q) false: %q %v, want %q %v", s, o1, f1, o2, f2)
			}
		}
		// As the context of a value.
		fresh := c.NewRedactor(testKey)
		wantCtx := fresh.ResetWithContext([]byte(s))
		if got := memo.ResetWithContext([]byte(s)); got != wantCtx {
			t.Fatalf("ResetWithContext(%q) = %v, want %v", s, got, wantCtx)
		}
		if wantCtx {
			ctx++
		}
		v := []byte("hunter2hunter2hunter2")
		memo.HintASCII()
		fresh.HintASCII()
		o1, f1 := memo.Append(nil, v, true, nil)
		o2, f2 := fresh.Append(nil, v, true, nil)
		if string(o1) != string(o2) || !reflect.DeepEqual(f1, f2) {
			t.Fatalf("value of %q: %q %v, want %q %v", s, o1, f1, o2, f2)
		}
	}
	// Each answer occurs, and the memo both hits and misses.
	if clean == 0 || ctx == 0 || hits < len(names) || hits > 19*len(names) {
		t.Fatalf("clean %d, context %d, hits %d of %d", clean, ctx, hits, 20*len(names))
	}
}

// memoNameSlot reports the slot that holds s, or -1 (for the test's count
// of hits: it does not fill a slot).
func (r *Redactor) memoNameSlot(s string) int {
	n := len(s)
	if n == 0 || n >= decodeMinRun {
		return -1
	}
	w := memoWord([]byte(s))
	k := int((w ^ uint64(n)<<59) * 0x9e3779b97f4a7c15 >> (64 - memoBits))
	m := &r.memo
	if m.w[k] != w || int(m.n[k]) != n+1 || n > 8 && string(m.rest[k][:n-8]) != s[8:] {
		return -1
	}
	return k
}

// TestMemoWord checks memoWord with and without capacity past the name.
func TestMemoWord(t *testing.T) {
	for n := 0; n <= 12; n++ {
		s := strings.Repeat("ab", 6)[:n]
		var want uint64
		for i := range min(n, 8) {
			want |= uint64(s[i]) << (8 * i)
		}
		tight := []byte(s)[:n:n]
		wide := []byte(s + "\xff\xff\xff\xff\xff\xff\xff\xff")[:n]
		if memoWord(tight) != want || memoWord(wide) != want {
			t.Fatalf("memoWord(%q) = %x, %x, want %x", s, memoWord(tight), memoWord(wide), want)
		}
	}
}

// FuzzNameMemo runs a sequence of names (the input split at '\n') through
// one Redactor's memo, as keys (ShortCleanName, printable ASCII as the
// pipeline gives it) and as contexts (ResetWithContext, any bytes), and
// checks every answer against a Redactor that has never seen a name.
func FuzzNameMemo(f *testing.F) {
	f.Add("path\nline\npath\npassword\npathpathX\npathpathY\npathpathX")
	f.Add("token\nmetadata\nmetadata_secret\nmetadata\na&b\n\nid")
	f.Add(strings.Repeat("x", 31) + "\n" + strings.Repeat("x", 32) + "\nx")
	f.Fuzz(func(t *testing.T, in string) {
		c := shortCleanCatalog(t)
		memo := c.NewRedactor(testKey)
		names := strings.Split(in, "\n")
		if len(names) > 64 {
			names = names[:64]
		}
		for _, s := range names {
			key := []byte(s)
			for i := range key {
				key[i] = ' ' + key[i]%95
			}
			ref := c.NewRedactor(testKey)
			memo.Reset()
			if got, want := memo.ShortCleanName(key), ref.ShortClean(key); got != want {
				t.Fatalf("ShortCleanName(%q) = %v, want %v", key, got, want)
			}
			fresh := c.NewRedactor(testKey)
			if got, want := memo.ResetWithContext([]byte(s)), fresh.ResetWithContext([]byte(s)); got != want {
				t.Fatalf("ResetWithContext(%q) = %v, want %v", s, got, want)
			}
		}
	})
}

// TestShortCleanAs checks that ShortCleanAs, given the answer an earlier
// ShortCleanName gave for a name, answers the same and leaves the
// Redactor as ShortCleanName leaves it: the same spans, and the same
// output for the value that follows, as the pipeline's shape memo uses it.
func TestShortCleanAs(t *testing.T) {
	c := shortCleanCatalog(t)
	as, ref := c.NewRedactor(testKey), c.NewRedactor(testKey)
	for _, s := range memoNames {
		for range 2 {
			ref.Reset()
			want := ref.ShortCleanName([]byte(s))
			as.Reset()
			if got := as.ShortCleanAs(len(s), want); got != want {
				t.Fatalf("ShortCleanAs(%q) = %v, want %v", s, got, want)
			}
			if a, b := as.Spans(), ref.Spans(); !reflect.DeepEqual(a, b) {
				t.Fatalf("ShortCleanAs(%q): spans %v, want %v", s, a, b)
			}
			if !want {
				// The caller appends the name itself.
				as.HintASCII()
				ref.HintASCII()
				o1, f1 := as.Append(nil, []byte(s), true, nil)
				o2, f2 := ref.Append(nil, []byte(s), true, nil)
				if string(o1) != string(o2) || !reflect.DeepEqual(f1, f2) {
					t.Fatalf("name %q: %q %v, want %q %v", s, o1, f1, o2, f2)
				}
			}
			v := []byte("hunter2hunter2hunter2")
			as.ResetWithContext([]byte(s))
			ref.ResetWithContext([]byte(s))
			as.HintASCII()
			ref.HintASCII()
			o1, f1 := as.Append(nil, v, true, nil)
			o2, f2 := ref.Append(nil, v, true, nil)
			if string(o1) != string(o2) || !reflect.DeepEqual(f1, f2) {
				t.Fatalf("value of %q: %q %v, want %q %v", s, o1, f1, o2, f2)
			}
		}
	}
}
