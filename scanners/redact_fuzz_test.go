package scanners

import (
	"reflect"
	"strings"
	"testing"
)

// plants are the true-positive examples of every rule: the fuzzer inserts
// them into random text and demands that none survives.
func plants() []string {
	var out []string
	for _, r := range builtinRules() {
		tps, _ := r.exampleLists()
		for _, tp := range tps {
			out = append(out, tp)
		}
	}
	return out
}

// FuzzRedactor compares the Redactor with the whole-string reference on
// random text with a planted secret or tag, split at random places.
//
//	go test -run '^$' -fuzz FuzzRedactor -fuzztime 100000x ./scanners/
func FuzzRedactor(f *testing.F) {
	for i, s := range corpus() {
		if len(s) < 4096 {
			f.Add([]byte(s), uint16(i), uint64(i)*0x9e3779b97f4a7c15)
		}
	}
	f.Add([]byte("<<SYS>> [INST] <|im_start|> sk-"), uint16(3), uint64(12345))
	c, err := NewCatalog(CatalogOptions{})
	if err != nil {
		f.Fatal(err)
	}
	ps := plants()
	f.Fuzz(func(t *testing.T, text []byte, pick uint16, seed uint64) {
		if len(text) > 1<<14 {
			return
		}
		x := seed | 1
		next := func(n int) int {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			return int(x % uint64(n))
		}
		plant := ps[int(pick)%len(ps)]
		// The planted text is bare (the tp itself, possibly with its own
		// context) between newlines so that neighbours cannot glue to it.
		at := next(len(text) + 1)
		// The Redactor reads normalized text, valid UTF-8 (the pass replaces
		// invalid bytes before it): the fuzzed bytes are made valid.
		s := strings.ToValidUTF8(string(text[:at])+"\n"+plant+"\n"+string(text[at:]), "\uFFFD")
		want, wantFs := refRedact(c, CatalogOptions{}, testKey, s)
		var cuts []int
		for p := 0; p < len(s); {
			p += 1 + next(1+next(100))
			cuts = append(cuts, p)
		}
		r := c.NewRedactor(testKey)
		got, fs := redactCuts(t, r, s, cuts)
		if got != want || !reflect.DeepEqual(fs, wantFs) {
			t.Fatalf("input %q cuts %v\n got %q %v\nwant %q %v", s, cuts, got, fs, want, wantFs)
		}
		// The planted secret or tag must not survive: its longest word (the
		// token itself, a key line, the tag) is gone unless the random text
		// holds it too.
		secret := ""
		for _, w := range strings.Fields(plant) {
			if len(w) > len(secret) {
				secret = w
			}
		}
		if len(secret) >= 8 && strings.Contains(got, secret) && !strings.Contains(string(text), secret) {
			t.Fatalf("planted %q survived in %q", secret, got)
		}
		// Idempotent: markers never form matches.
		again, fs2 := redactCuts(t, r, got, nil)
		if again != got || len(fs2) != 0 {
			t.Fatalf("second pass over %q changed it to %q", got, again)
		}
	})
}
