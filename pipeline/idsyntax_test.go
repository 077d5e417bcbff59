package pipeline

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestIDSyntaxMatchesRegexp checks the hand-written match of the policy's
// id patterns against their compiled regexps: the edge lengths, every byte
// in each position, and random strings over the class and its neighbours.
func TestIDSyntaxMatchesRegexp(t *testing.T) {
	for _, p := range []idSyntax{versionRE, errorCodeRE} {
		re := regexp.MustCompile(string(p))
		check := func(s string) {
			t.Helper()
			if got, want := p.MatchString(s), re.MatchString(s); got != want {
				t.Fatalf("%s: MatchString(%q) = %v, the regexp says %v", p, s, got, want)
			}
		}
		for _, s := range []string{"", "a", "v1.2", "CODE_1", "a:b-c.d_e", "x\n", "\nx", "a b", "é",
			strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("Z9", 40)} {
			check(s)
		}
		for b := 0; b < 256; b++ {
			check(string([]byte{byte(b)}))
			check("ab" + string([]byte{byte(b)}))
			check(string([]byte{byte(b)}) + "ab")
		}
		alphabet := "aZ09._:-/ \n+\x00\xff"
		r := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < 20000; i++ {
			b := make([]byte, r.IntN(70))
			for j := range b {
				b[j] = alphabet[r.IntN(len(alphabet))]
			}
			check(string(b))
		}
		if p.String() != string(p) {
			t.Fatalf("String() = %q", p.String())
		}
	}
}
