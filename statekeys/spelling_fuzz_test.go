package statekeys_test

import (
	"encoding/base64"
	"strings"
	"testing"

	. "github.com/mcp-sanitize/mcp-sanitize/statekeys"
)

// FuzzOpenCanonical edits sealed tokens (inserts, deletes and replaces
// bytes, CR and LF among them) and checks that a token that opens is the
// canonical spelling of its state: exactly the token that was sealed, and
// equal to its own parts re-encoded ("mrs1." + key id + "." + the
// unpadded base64url of the bytes a lenient decoder reads). One state has
// one spelling, so one stateDigest.
//
// Each edit is four bytes of ops: the operation (insert, delete or
// replace, by the first byte modulo 3), a 16-bit position and a byte.
func FuzzOpenCanonical(f *testing.F) {
	fx := newFixture(f)
	var sealed []string
	for _, req := range []SealRequest{baseSeal(), {Identity: alice, Operation: opA}} {
		sealed = append(sealed, fx.seal(f, req).RequestState)
	}
	for _, ops := range []string{
		"", "\x00\x01\x00\n", "\x00\x00\x40\r\x00\x00\x41\n", "\x01\x00\x10A", "\x02\x00\x20\n",
		"\x00\xff\xffA", "\x02\xff\xff=", "\x01\x00\x05\x00\x00\x00\x05.", "\x00\x00\x05\n\x00\x00\x09\n",
	} {
		f.Add(uint8(0), []byte(ops))
		f.Add(uint8(1), []byte(ops))
	}
	ring := fx.ring.Ring()
	f.Fuzz(func(t *testing.T, which uint8, ops []byte) {
		orig := sealed[int(which)%len(sealed)]
		b := []byte(orig)
		for n := 0; n+4 <= len(ops) && n < 4*16; n += 4 {
			pos := int(ops[n+1])<<8 | int(ops[n+2])
			c := ops[n+3]
			switch ops[n] % 3 {
			case 0:
				pos %= len(b) + 1
				b = append(b[:pos], append([]byte{c}, b[pos:]...)...)
			case 1:
				if len(b) > 0 {
					pos %= len(b)
					b = append(b[:pos], b[pos+1:]...)
				}
			case 2:
				if len(b) > 0 {
					b[pos%len(b)] = c
				}
			}
		}
		tok := string(b)
		p, _, r := OpenToken(ring, tok, DefaultMaxTokenBytes)
		if r != ReasonNone {
			if p != nil {
				t.Fatal("payload returned with a failure reason")
			}
			return
		}
		if tok != orig {
			t.Fatalf("another spelling opened: %q", tok)
		}
		if c, ok := canonicalSpelling(tok); !ok || c != tok {
			t.Fatalf("opened token is not canonical: %q", tok)
		}
	})
}

// canonicalSpelling is the reference definition of a token's one
// spelling, independent of the package's parser: its parts with the blob
// decoded leniently (CR and LF skipped, trailing bits ignored) and encoded
// again.
func canonicalSpelling(tok string) (string, bool) {
	rest, ok := strings.CutPrefix(tok, "mrs1.")
	if !ok {
		return "", false
	}
	kid, enc, ok := strings.Cut(rest, ".")
	if !ok {
		return "", false
	}
	blob, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return "", false
	}
	return "mrs1." + kid + "." + base64.RawURLEncoding.EncodeToString(blob), true
}

// The reference definition agrees with the sealed tokens, and tells the
// spellings the package refuses from the canonical one.
func TestCanonicalSpellingReference(t *testing.T) {
	f := newFixture(t)
	tok := f.seal(t, baseSeal()).RequestState
	if c, ok := canonicalSpelling(tok); !ok || c != tok {
		t.Fatal("a sealed token is not canonical by the reference")
	}
	wrapped := tok[:len(tok)-10] + "\r\n" + tok[len(tok)-10:]
	if c, ok := canonicalSpelling(wrapped); !ok || c != tok || c == wrapped {
		t.Fatal("the reference does not map a CR/LF spelling to the token")
	}
}
