package scanners

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func b64std(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
func b64url(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
func hexOf(s string) string  { return hex.EncodeToString([]byte(s)) }

// pctAll percent-encodes every byte that is not a letter or digit.
func pctAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if setAlnum[c] {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
		}
	}
	return b.String()
}

func TestDecodedSecrets(t *testing.T) {
	gh := withCRC("ghp_", fakeChars(base62Alphabet, 30, 21))
	pw := "password=" + fakeChars(base62Alphabet, 14, 22) + "7!"
	const G, P = "[REDACTED:github-pat]", "[REDACTED:password-assignment]"
	tests := []struct {
		in, want string
		enc      []Encoding // encodings of the findings, in order
	}{
		{"blob " + b64std("token for ci: "+gh) + " end", "blob " + G + " end", []Encoding{EncodingBase64}},
		{`{"data":"` + b64url("x:"+gh+"??>") + `"}`, `{"data":"` + G + `"}`, []Encoding{EncodingBase64URL}},
		{"cfg=" + hexOf(pw), "cfg=" + P, []Encoding{EncodingHex}},
		{"next=" + url.QueryEscape("cfg: "+pw) + "&x=1", "next=" + P + "&x=1", []Encoding{EncodingPercent}},
		{"r=" + pctAll(pw+"&v=2"), "r=" + P, []Encoding{EncodingPercent}},
		{"two levels: " + b64std(hexOf(pw)), "two levels: " + P, []Encoding{EncodingBase64}},
		// The same span found by a rule on the text itself wins over decoding.
		{"Authorization: Basic " + b64std("ci:"+gh), "Authorization: Basic [REDACTED:basic-auth]", []Encoding{EncodingNone}},
		{"auth: " + b64std("ci:"+gh), "auth: " + G, []Encoding{EncodingBase64}},
		{"plain " + gh + " and " + b64std(pw), "plain " + G + " and " + P, []Encoding{EncodingNone, EncodingBase64}},
		// Not decoded, or nothing inside.
		{"three levels: " + b64std(b64std(hexOf(pw))), "three levels: " + b64std(b64std(hexOf(pw))), nil},
		// Longer than MaxDecodeRun: decoded in windows; the window that
		// holds the secret is replaced.
		{"long " + b64std(pw+strings.Repeat(" ", 4000)), "long " + P + b64std(pw + strings.Repeat(" ", 4000))[4096:], []Encoding{EncodingBase64}},
		{"text " + b64std("just some ordinary words here"), "text " + b64std("just some ordinary words here"), nil},
		{"sha " + hexOf(strings.Repeat("\x01\x02", 10)), "sha " + hexOf(strings.Repeat("\x01\x02", 10)), nil},
		{"mixed " + b64std(pw)[:20] + "-_" + b64std(pw)[20:], "mixed " + b64std(pw)[:20] + "-_" + b64std(pw)[20:], nil},
		{"bad %zz" + pctAll(pw), "bad %zz" + pctAll(pw), nil},
		{"short " + b64std("pw=1234567"), "short " + b64std("pw=1234567"), nil},
	}
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	for i, tt := range tests {
		for _, n := range []int{0, 1, 3, 16, 100} {
			got, fs := redactChunks(t, r, tt.in, n)
			if got != tt.want {
				t.Errorf("tests[%d] chunk %d:\n  in %q\n got %q\nwant %q", i, n, trunc(tt.in), trunc(got), trunc(tt.want))
				break
			}
			var encs []Encoding
			for _, f := range fs {
				encs = append(encs, f.Encoding)
			}
			if !reflect.DeepEqual(encs, tt.enc) {
				t.Errorf("tests[%d]: encodings %v, want %v", i, encs, tt.enc)
				break
			}
		}
		checkAgainstReference(t, c, CatalogOptions{}, tt.in, 1, 7, 64)
	}
	// The fingerprint of an encoded secret is that of the secret itself.
	_, plain := redactChunks(t, r, gh, 0)
	_, enc := redactChunks(t, r, b64std("k: "+gh), 0)
	if len(plain) != 1 || len(enc) != 1 || plain[0].Fingerprint != enc[0].Fingerprint || enc[0].Checksum != ChecksumValid {
		t.Errorf("fingerprints: plain %+v encoded %+v", plain, enc)
	}
}

func TestDecodeOptions(t *testing.T) {
	pw := "password=" + fakeChars(base62Alphabet, 14, 23) + "7!"
	in := "x " + b64std(b64std(pw)) + " " + b64std(pw)
	for _, tt := range []struct {
		opts CatalogOptions
		want string
	}{
		{CatalogOptions{}, "x [REDACTED:password-assignment] [REDACTED:password-assignment]"},
		{CatalogOptions{DisableDecoding: true}, in},
		{CatalogOptions{MaxDecodeDepth: 1}, "x " + b64std(b64std(pw)) + " [REDACTED:password-assignment]"},
		{CatalogOptions{MaxDecodeRun: 32}, "x " + b64std(b64std(pw)) + " [REDACTED:password-assignment]" + b64std(pw)[32:]}, // in 32-byte windows: one level is seen
	} {
		c := newTestCatalog(t, tt.opts)
		got, _ := redactChunks(t, c.NewRedactor(testKey), in, 5)
		if got != tt.want {
			t.Errorf("%+v: got %q want %q", tt.opts, got, tt.want)
		}
		checkAgainstReference(t, c, tt.opts, in, 1, 9)
	}
	var ce *CatalogError
	for _, o := range []CatalogOptions{{MaxDecodeRun: 10}, {MaxDecodeRun: MaxDecodeRunLimit + 1}, {MaxDecodeDepth: -1}, {MaxDecodeDepth: MaxDecodeDepthLimit + 1}} {
		if _, err := NewCatalog(o); !errors.Is(err, ErrInvalidLimit) || !errors.As(err, &ce) {
			t.Errorf("%+v: err %v", o, err)
		}
	}
}

// TestInvalidChecksumPolicy: by default a failed checksum still redacts;
// KeepInvalidChecksum leaves it.
func TestInvalidChecksumPolicy(t *testing.T) {
	good := withCRC("ghp_", fakeChars(base62Alphabet, 30, 31))
	bad := good[:len(good)-1] + "a"
	if good[len(good)-1] == 'a' {
		bad = good[:len(good)-1] + "b"
	}
	in := "a " + good + " b " + bad + " c"
	for _, tt := range []struct {
		keep bool
		want string
	}{
		{false, "a [REDACTED:github-pat] b [REDACTED:github-pat] c"},
		{true, "a [REDACTED:github-pat] b " + bad + " c"},
	} {
		opts := CatalogOptions{KeepInvalidChecksum: tt.keep}
		c := newTestCatalog(t, opts)
		got, fs := redactChunks(t, c.NewRedactor(testKey), in, 4)
		if got != tt.want || fs[0].Checksum != ChecksumValid {
			t.Errorf("keep=%v: got %q %+v", tt.keep, got, fs)
		}
		checkAgainstReference(t, c, opts, in, 1, 5)
	}
}

// TestDecodeHold: an open run is held, up to MaxDecodeRun; a longer one is
// let through as it comes.
func TestDecodeHold(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	blob := strings.Repeat("QUJD", 3000) // 12000 bytes of one run
	var out []byte
	for i := 0; i < len(blob); i += 1000 {
		out, _ = r.Append(out, []byte(blob[i:i+1000]), false, nil)
		if r.Held() > DefaultMaxDecodeRun+c.ac.maxKw+c.maxBack+1000 {
			t.Fatalf("held %d after %d bytes", r.Held(), i+1000)
		}
	}
	if len(out) < len(blob)-DefaultMaxDecodeRun-1000 {
		t.Fatalf("emitted only %d of %d", len(out), len(blob))
	}
	out, _ = r.Append(out, nil, true, nil)
	if string(out) != blob {
		t.Fatal("output differs")
	}
}

// FuzzRedactorDecode plants encoded true-positive examples in random text,
// splits at random, and compares with the reference.
//
//	go test -run '^$' -fuzz FuzzRedactorDecode -fuzztime 20000x ./scanners/
func FuzzRedactorDecode(f *testing.F) {
	f.Add([]byte("hello world"), uint16(0), uint8(0), uint64(1))
	f.Add([]byte("x=1&y="), uint16(7), uint8(3), uint64(99))
	f.Add([]byte("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo="), uint16(3), uint8(1), uint64(5))
	c, err := NewCatalog(CatalogOptions{})
	if err != nil {
		f.Fatal(err)
	}
	ps := plants()
	encoders := []func(string) string{b64std, b64url, hexOf, pctAll, func(s string) string { return b64std(hexOf(s)) }}
	f.Fuzz(func(t *testing.T, text []byte, pick uint16, how uint8, seed uint64) {
		if len(text) > 1<<12 {
			return
		}
		x := seed | 1
		next := func(n int) int {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			return int(x % uint64(n))
		}
		plant := encoders[int(how)%len(encoders)](ps[int(pick)%len(ps)])
		at := next(len(text) + 1)
		// The Redactor reads normalized text, valid UTF-8 (the pass replaces
		// invalid bytes before it): the fuzzed bytes are made valid.
		s := strings.ToValidUTF8(string(text[:at])+plant+string(text[at:]), "\uFFFD")
		want, wantFs := refRedact(c, CatalogOptions{}, testKey, s)
		var cuts []int
		for p := 0; p < len(s); {
			p += 1 + next(1+next(200))
			cuts = append(cuts, p)
		}
		got, fs := redactCuts(t, c.NewRedactor(testKey), s, cuts)
		if got != want || !reflect.DeepEqual(fs, wantFs) {
			t.Fatalf("input %q cuts %v\n got %q %v\nwant %q %v", s, cuts, got, fs, want, wantFs)
		}
	})
}

// TestDecodeRunShapes: decodeRun on runs at the edges of each encoding.
func TestDecodeRunShapes(t *testing.T) {
	text := "user=admin password=" + strings.Repeat("k", 20)
	for _, tt := range []struct {
		run  string
		want string
		enc  Encoding
	}{
		{b64std(text[:24]), text[:24], EncodingBase64},                   // 32 bytes, no padding
		{b64std(text[:23]), text[:23], EncodingBase64},                   // 30 + "=="
		{b64std(text[:22]), text[:22], EncodingBase64},                   // 30 + "=="
		{b64url("a?>" + text), "a?>" + text, EncodingBase64URL},          // URL alphabet
		{hexOf(text[:16]), text[:16], EncodingHex},                       // shortest hex
		{strings.ToUpper(hexOf(text[:16])), text[:16], EncodingHex},      // upper case
		{pctAll(text[:12]), text[:12], EncodingPercent},                  // percent
		{hexOf(text[:16]) + "0", "", EncodingNone},                       // odd hex: base64 of 33 bytes (33 % 4 == 1)
		{"%4" + pctAll(text[:12]), "", EncodingNone},                     // broken escape
		{b64std(text)[:20] + "-+" + b64std(text)[20:], "", EncodingNone}, // both alphabets
		{b64std("\x00\x01" + text), "", EncodingNone},                    // binary head
	} {
		got, enc := decodeRun([]byte(tt.run), nil)
		if enc == EncodingNone {
			got = nil
		}
		if enc != tt.enc || string(got) != tt.want {
			t.Errorf("decodeRun(%q) = %q, %v; want %q, %v", tt.run, got, enc, tt.want, tt.enc)
		}
		d, e, ok := refDecode(tt.run)
		if ok && printable([]byte(d)) != (tt.enc != EncodingNone) && tt.enc != EncodingNone {
			t.Errorf("reference disagrees on %q: %q %v", tt.run, d, e)
		}
	}
}

// TestRunWindowMatchesGo compares runWindow (the vector kernel where there
// is one) with runWindowGo on random text made of run bytes, padding and
// other bytes, in stretches of every length around 24 and the blocks.
func TestRunWindowMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	runAlpha := "ABCXYZabcxyz0189+/_%-="
	other := " \n\"'.,:;!?@#&*()[]{}<>~`\x00\x7f\x80\xc3\xa9\xff"
	for iter := 0; iter < 20000; iter++ {
		var b []byte
		for len(b) < rng.IntN(300) {
			alpha := other
			if rng.IntN(2) == 0 {
				alpha = runAlpha
			}
			for range 1 + rng.IntN(40) {
				b = append(b, alpha[rng.IntN(len(alpha))])
			}
		}
		k, from := runWindow(b)
		wk, wfrom := runWindowGo(b)
		if k != wk || k < 0 && from != wfrom {
			t.Fatalf("%q: runWindow (%d, %d), runWindowGo (%d, %d)", b, k, from, wk, wfrom)
		}
	}
	for c := range 256 {
		for pos := range 80 {
			b := bytes.Repeat([]byte("a"), 96)
			b[pos] = byte(c)
			k, from := runWindow(b)
			wk, wfrom := runWindowGo(b)
			if k != wk || k < 0 && from != wfrom {
				t.Fatalf("byte %#x at %d: runWindow (%d, %d), runWindowGo (%d, %d)", c, pos, k, from, wk, wfrom)
			}
		}
	}
}
