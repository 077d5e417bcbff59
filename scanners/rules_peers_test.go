package scanners

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// peerRuleIDs is the set of rule ids declared in rules_peers.go.
func peerRuleIDs() map[string]bool {
	ours := map[string]bool{}
	for _, r := range peerRules() {
		ours[r.id] = true
	}
	return ours
}

// TestPeerDecoys: hashes, digests, base64 blobs, identifiers and placeholders
// that share a prefix or a shape with the rules of rules_peers.go survive
// them.
func TestPeerDecoys(t *testing.T) {
	ours := peerRuleIDs()
	rng := rand.New(rand.NewPCG(23, 7))
	pick := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	const hexLower, lower = "0123456789abcdef", "abcdefghijklmnopqrstuvwxyz"
	b64 := base62Alphabet + "+/"
	b64url := base62Alphabet + "_-"
	var decoys []string
	for i := 0; i < 300; i++ {
		sum := sha256.Sum256([]byte(pick(lower, 12)))
		decoys = append(decoys,
			"checksum: eaac"+pick(hexLower, 124), "integrity: sha512-"+pick(b64, 86)+"==", // lock file hashes
			"sha256:"+pick(hexLower, 64), "sha256~"+pick(lower, 43), "image@sha256:"+fmt.Sprintf("%x", sum),
			pick(b64, 40)+"EAAC"+pick(base62Alphabet, 120)+"/"+pick(b64, 20), // inside base64
			"EAAC"+pick(base62Alphabet, 120)+"==",                            // a base64 run with padding
			"pk."+base64.RawURLEncoding.EncodeToString([]byte(`{"u":"`+pick(lower, 8)+`","a":"`+pick(lower, 25)+`"}`))+"."+pick(b64url, 22),
			"sk.eyJ1Ijoi"+pick(b64url, 60)+"."+pick(b64url, 22), // not a Mapbox payload
			"path/to/pattern_"+pick(lower, 14)+"."+pick(hexLower, 64), "compat"+pick(base62Alphabet, 14)+"."+pick(hexLower, 64),
			"pattern"+pick(base62Alphabet, 11)+"."+pick(hexLower, 64), "sm_pat_"+pick(lower, 16), "sm_pat_count",
			"tfp_"+pick(lower, 59), "fio-u-"+pick(lower, 64), "rdme_"+pick(lower, 70), "rdme_"+pick("0123456789", 70),
			pick(base62Alphabet, 6)+"_"+pick(base62Alphabet, 29)+"_mmkx", pick(lower, 6)+"_"+pick(lower, 29)+"_mmk",
			"sc_"+pick(lower, 10)+"."+pick(lower, 4)+".acc_"+pick(lower, 10)+"."+pick(lower, 40),
			"DROPBOX_APP_KEY="+pick(lower, 15), "DROPBOX_TOKEN="+pick(base62Alphabet, 64), "dropbox_folder: sl."+pick(lower, 20),
			"YANDEX_FOLDER_ID=b1g"+pick(lower, 17), "yandex_token: t1."+pick(b64url, 40),
			"dnkey-"+pick(lower, 79), "p8e-"+pick(lower, 32), "s-s4t2ud-"+strings.Repeat("0", 64),
		)
	}
	checkDecoys(t, decoys, ours)
}

// TestPeerSpans pins what the rules of rules_peers.go replace: the token and
// nothing around it (a full stop, quotes, the name of a named value).
func TestPeerSpans(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	hex := "0123456789abcdef"
	b64url := base62Alphabet + "_-"
	air := "pat" + fakeChars(base62Alphabet, 14, 1) + "." + fakeChars(hex, 64, 2)
	mb := "sk." + base64.RawURLEncoding.EncodeToString([]byte(`{"u":"acme","a":"cl`+fakeChars(hex, 23, 3)+`"}`)) + "." + fakeChars(b64url, 22, 4)
	mmk := fakeChars(base62Alphabet, 6, 5) + "_" + fakeChars(base62Alphabet, 29, 6) + "_mmk"
	yc := "t1.9euelZ" + fakeChars(b64url, 150, 7) + "." + fakeChars(b64url, 86, 8)
	for i, tt := range []struct{ in, want string }{
		{"token " + air + ". Next", "token [REDACTED:airtable-pat]. Next"},
		{"see " + mb + ".", "see [REDACTED:mapbox-secret-token]."},
		{"key=" + mmk + ";", "key=[REDACTED:maxmind-license-key];"},
		{"YANDEX_IAM_TOKEN='" + yc + "'", "YANDEX_IAM_TOKEN='[REDACTED:yandex-iam-token]'"},
		{"yandex: " + yc + "=", "yandex: [REDACTED:yandex-iam-token]="}, // a pad after the token stays
		{"{\"dropbox_token\": \"sl." + fakeChars(b64url, 135, 9) + "\"}", "{\"dropbox_token\": \"[REDACTED:dropbox-short-lived-token]\"}"},
		{"?access_token=EAAC" + fakeChars(base62Alphabet, 150, 10) + "&x=1", "?access_token=[REDACTED:facebook-page-access-token]&x=1"},
		{"oc login --token=sha256~" + fakeChars(b64url, 43, 11) + " --server=x", "oc login --token=[REDACTED:openshift-user-token] --server=x"},
	} {
		for _, n := range []int{0, 1, 7} {
			if got, _ := redactChunks(t, r, tt.in, n); got != tt.want {
				t.Errorf("case %d chunk %d: got %q, want %q", i, n, got, tt.want)
			}
		}
		checkAgainstReference(t, c, CatalogOptions{}, tt.in, 1, 3)
	}
}

// TestPeerMutations compares the Redactor with the reference on the examples
// of rules_peers.go edited at random (a byte inserted, deleted or replaced,
// chiefly near the ends of the token; a cut; a neighbour glued on), in
// several chunkings: the boundaries, lengths and literals of each rule must
// agree with the regexp reference byte for byte.
func TestPeerMutations(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	rng := rand.New(rand.NewPCG(5, 41))
	const edits = "aZ09_-.=+/~\"' \n"
	var base []string
	for _, r := range peerRules() {
		tp, fp := r.exampleLists()
		base = append(base, tp...)
		base = append(base, fp...)
	}
	n := 0
	for _, s := range base {
		for k := 0; k < 40; k++ {
			b := []byte(s)
			switch p := rng.IntN(len(b) + 1); rng.IntN(5) {
			case 0:
				b = append(b[:p:p], append([]byte{edits[rng.IntN(len(edits))]}, b[p:]...)...)
			case 1:
				if p < len(b) {
					b = append(b[:p:p], b[p+1:]...)
				}
			case 2:
				if p < len(b) {
					b[p] = edits[rng.IntN(len(edits))]
				}
			case 3:
				b = b[:p]
			default:
				b = append([]byte{edits[rng.IntN(len(edits))]}, append(b, edits[rng.IntN(len(edits))])...)
			}
			checkAgainstReference(t, c, CatalogOptions{}, string(b), 1+rng.IntN(9), 64)
			n++
		}
	}
	if n < 1000 {
		t.Fatalf("only %d mutated inputs", n)
	}
}
