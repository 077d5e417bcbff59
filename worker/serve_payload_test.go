package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
	"github.com/mcp-sanitize/mcp-sanitize/payload"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

func zstdBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := zstd.NewWriter(&out, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	w.Close()
	return out.Bytes()
}

func s2Bytes(b []byte) []byte {
	var out bytes.Buffer
	w := s2.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

// bigResource is a resource-result of many strings (so no text bound cuts
// it) of about size bytes, with a secret in its middle.
func bigResource(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"contents":[`)
	line := strings.Repeat("lorem ipsum dolor sit amet ", 36) // ~1 KB
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		text := line
		if i == 100 {
			text = "token " + testGitHubToken
		}
		b.WriteString(`{"uri":"file:///x","text":"` + text + `"}`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// readBody opens a reply or clean output as a consumer would.
func readBody(t *testing.T, store jetstream.ObjectStore, hdr nats.Header, data []byte) []byte {
	t.Helper()
	r, err := payload.Open(context.Background(), hdr, data, store, payload.Limits{MaxDecodedBytes: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPayloadEncodingsAndClaims(t *testing.T) {
	s := serveTestServer(t)
	nc, js := serveConnect(t, s.ClientURL())
	// Under -race on a loaded 2-core machine the 3 MiB claim and the
	// bomb's first 4 MiB take from a second to over 10 s, and a TIMEOUT
	// would be retried (or answered) rather than give the outcome under
	// test: the message timeout is the largest the default stall time
	// (1 min) and fastStreams' duplicates window (3 min) allow, and the
	// test's own waits run up to the test's deadline (testnats.Left).
	svc := startService(t, nc,
		WithConsumer(fastConsumer(46*time.Second)), WithMessageTimeout(45*time.Second),
		WithPayloadLimits(payload.Limits{MaxDecodedBytes: 4 << 20}),
		// Never compress outputs, so a large one has to go by reference.
		WithSinkOptions(payload.SinkOptions{CompressAbove: -1}))
	store := svc.store
	if store == nil {
		t.Fatal("no claim store bound")
	}
	ctx := testnats.Context(t)

	bomb := zstdBytes(t, append(append([]byte(`{"content":[{"type":"text","text":"`), bytes.Repeat([]byte("a"), 64<<20)...), `"}]}`...))
	if len(bomb) > 64<<10 {
		t.Fatalf("bomb of %d bytes; want a small one", len(bomb))
	}
	big := bigResource(3 << 20) // three times the server's max payload
	type tc struct {
		name          string
		kind          string
		hdr           map[string]string
		body          []byte
		claim         bool // send the body by reference
		outcome, code string
		outClaim      bool // the output must come back by reference
	}
	cases := []tc{
		{name: "zstd", kind: "tool-result", hdr: map[string]string{wire.HeaderContentEncoding: "zstd"}, body: zstdBytes(t, testMessage(1)), outcome: "sanitized"},
		{name: "s2", kind: "tool-result", hdr: map[string]string{wire.HeaderContentEncoding: "s2"}, body: s2Bytes(testMessage(2)), outcome: "sanitized"},
		{name: "zstd bomb", kind: "tool-result", hdr: map[string]string{wire.HeaderContentEncoding: "zstd"}, body: bomb, outcome: "rejected", code: "BOUND_EXCEEDED"},
		{name: "unknown encoding", kind: "tool-result", hdr: map[string]string{wire.HeaderContentEncoding: "gzip"}, body: testMessage(3), outcome: "rejected", code: "INVALID_ENCODING"},
		{name: "corrupt zstd", kind: "tool-result", hdr: map[string]string{wire.HeaderContentEncoding: "zstd"}, body: []byte("not zstd at all"), outcome: "rejected", code: "INVALID_ENCODING"},
		{name: "claim in, claim out", kind: "resource-result", body: big, claim: true, outcome: "sanitized", outClaim: true},
	}
	for _, path := range []string{PathInline, PathDurable} {
		for i, c := range cases {
			t.Run(path+"/"+c.name, func(t *testing.T) {
				m := nats.NewMsg("")
				for k, v := range c.hdr {
					m.Header.Set(k, v)
				}
				m.Data = c.body
				if c.claim {
					h, body, err := payload.Claim(ctx, store, "", "", bytes.NewReader(c.body), "")
					if err != nil {
						t.Fatal(err)
					}
					for k := range h {
						m.Header.Set(k, h.Get(k))
					}
					m.Data = body
				}
				rid := strings.NewReplacer(" ", "-", ",", "").Replace(path + "-" + c.name)
				m.Header.Set(wire.HeaderRequestID, rid)
				var out *nats.Msg
				if path == PathInline {
					m.Subject = "mcp.sanitize." + c.kind
					m.Header.Set(wire.HeaderTenant, "acme")
					r, err := nc.RequestMsg(m, testnats.Left(t))
					if err != nil {
						t.Fatal(err)
					}
					out = r
				} else {
					m.Subject = wire.Subject(wire.RawPrefix, "acme", "files", c.kind)
					if _, err := js.PublishMsg(ctx, m); err != nil {
						t.Fatal(err)
					}
					cons, err := js.OrderedConsumer(ctx, wire.StreamClean, jetstream.OrderedConsumerConfig{FilterSubjects: []string{"mcp.clean.acme.files." + c.kind}})
					if err != nil {
						t.Fatal(err)
					}
					for out == nil {
						jm, err := cons.Next(jetstream.FetchMaxWait(testnats.Left(t)))
						if err != nil {
							for _, cm := range streamMsgs(t, js, wire.StreamClean) {
								t.Logf("clean %s %v", cm.Subject, cm.Header)
							}
							n, _ := streamCount(js, wire.StreamRaw)
							t.Fatalf("case %d: no clean output: %v (raw %d)", i, err, n)
						}
						if jm.Headers().Get(wire.HeaderRequestID) == rid {
							out = &nats.Msg{Header: jm.Headers(), Data: jm.Data()}
						}
					}
				}
				if got := out.Header.Get(wire.HeaderOutcome); got != c.outcome {
					t.Fatalf("outcome %q, want %q (code %q)", got, c.outcome, out.Header.Get(wire.HeaderCode))
				}
				if got := out.Header.Get(wire.HeaderCode); got != c.code {
					t.Fatalf("code %q, want %q", got, c.code)
				}
				if got := payload.IsClaim(out.Header); got != c.outClaim {
					t.Fatalf("output by reference %v, want %v", got, c.outClaim)
				}
				body := readBody(t, store, out.Header, out.Data)
				if !json.Valid(body) {
					t.Fatal("output is not JSON")
				}
				noSecrets(t, "output", body)
				if c.outClaim && len(body) < 2<<20 {
					t.Errorf("output of %d bytes; want the whole resource", len(body))
				}
				if c.claim {
					// The input's object is released once it is consumed.
					testnats.Eventually(t, 25*time.Millisecond, func() error {
						if _, err := store.GetInfo(ctx, m.Header.Get(wire.HeaderClaim)); !errors.Is(err, jetstream.ErrObjectNotFound) {
							return errors.New("input object still stored")
						}
						return nil
					})
				}
			})
		}
	}
}
