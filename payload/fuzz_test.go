package payload

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// FuzzOpen feeds arbitrary bodies under every encoding: Open and Read never
// panic, every failure is an *Error, the decoded length never crosses the
// cap, identity returns the body unchanged, and what this package
// compresses decodes to the original.
func FuzzOpen(f *testing.F) {
	src := sampleJSON(5000, 1)
	f.Add([]byte(`{"content":[]}`), uint8(0))
	f.Add(src, uint8(0))
	f.Add(zstdBytes(f, src), uint8(1))
	f.Add(s2Bytes(f, src), uint8(2))
	f.Add(zstdBytes(f, make([]byte, 1<<20)), uint8(1))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0x58}, uint8(1))
	f.Add([]byte("\xff\x06\x00\x00S2sTwO"), uint8(2))
	f.Add([]byte{}, uint8(3))
	encs := []string{"", wire.EncodingZstd, wire.EncodingS2, "bogus"}
	const limit = 64 << 10
	f.Fuzz(func(t *testing.T, data []byte, sel uint8) {
		enc := encs[int(sel)%len(encs)]
		r, err := Open(context.Background(), hdrEnc(enc), data, nil, Limits{MaxDecodedBytes: limit, MaxWindowBytes: 1 << 20})
		if err != nil {
			if _, ok := AsError(err); !ok {
				t.Fatalf("Open: %T %v", err, err)
			}
			return
		}
		out, err := io.ReadAll(r)
		r.Close()
		if len(out) > limit {
			t.Fatalf("decoded %d bytes past the cap", len(out))
		}
		if err != nil {
			if _, ok := AsError(err); !ok || Failure(r) == nil {
				t.Fatalf("Read: %T %v", err, err)
			}
		}
		if enc == "" && len(data) <= limit && (err != nil || !bytes.Equal(out, data)) {
			t.Fatalf("identity changed the body (%v)", err)
		}
		if len(data) > limit || enc == "" || enc == "bogus" {
			return
		}
		comp, cerr := compressBytes(enc, nil, data)
		if cerr != nil {
			t.Fatal(cerr)
		}
		r, err = Open(context.Background(), hdrEnc(enc), comp, nil, Limits{MaxDecodedBytes: limit})
		if err != nil {
			t.Fatal(err)
		}
		out, err = io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(out, data) {
			t.Fatalf("%s round trip: %v", enc, err)
		}
	})
}
