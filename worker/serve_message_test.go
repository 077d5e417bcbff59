package worker

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

func TestValidTraceparent(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", true},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", true},
		{"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", true}, // later versions may append
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", false},
		{"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},
		{"00-00000000000000000000000000000000-00f067aa0ba902b7-01", false}, // zero trace id
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false}, // zero parent id
		{"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", false}, // upper case
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\nX: y", false},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01", false},
		{"", false},
	} {
		if got := validTraceparent(tc.in); got != tc.ok {
			t.Errorf("validTraceparent(%q) = %v, want %v", tc.in, got, tc.ok)
		}
	}
	if validTracestate("a=b\r\nX: y") || !validTracestate("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7") || validTracestate(strings.Repeat("a", 513)) {
		t.Error("validTracestate")
	}
}

func TestHeaderToken(t *testing.T) {
	for in, want := range map[string]string{
		"read_file":              "read_file",
		"req-1\r\nX-Injected: 1": "req-1__X-Injected:_1",
		"files/v2:tool.name":     "files/v2:tool.name",
		"é":                      "__",
		strings.Repeat("a", 200): strings.Repeat("a", 128),
	} {
		if got := headerToken(in); got != want {
			t.Errorf("headerToken(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMsgID(t *testing.T) {
	t0 := time.Unix(1764470000, 123456789)
	a, b := MsgID(7, t0), MsgID(7, t0)
	if a != b || !strings.HasPrefix(a, wire.StreamRaw+":7:") {
		t.Fatalf("MsgID not stable: %q %q", a, b)
	}
	for _, other := range []string{MsgID(8, t0), MsgID(7, t0.Add(time.Nanosecond))} {
		if other == a {
			t.Errorf("MsgID collides: %q", other)
		}
	}
}

func TestStreamAndConsumerConfigValidate(t *testing.T) {
	if err := DefaultStreamsConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	if err := DefaultConsumerConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []func(*StreamsConfig){
		func(c *StreamsConfig) { c.Replicas = 0 },
		func(c *StreamsConfig) { c.RawRetention = 9 },
		func(c *StreamsConfig) { c.Duplicates = 0 },
		func(c *StreamsConfig) { c.CleanMaxAge = -1 },
	}
	for i, f := range bad {
		c := DefaultStreamsConfig()
		f(&c)
		if c.Validate() == nil {
			t.Errorf("stream case %d accepted", i)
		}
	}
	badC := []func(*ConsumerConfig){
		func(c *ConsumerConfig) { c.Durable = "" },
		func(c *ConsumerConfig) { c.MaxDeliver = 1 },
		func(c *ConsumerConfig) { c.BackOff = nil },
		func(c *ConsumerConfig) { c.BackOff = []time.Duration{time.Millisecond} },
		func(c *ConsumerConfig) { c.MaxAckPending = 0 },
	}
	for i, f := range badC {
		c := DefaultConsumerConfig()
		f(&c)
		if c.Validate() == nil {
			t.Errorf("consumer case %d accepted", i)
		}
	}
	raw := DefaultStreamsConfig().StreamConfigs()[0]
	if raw.Name != wire.StreamRaw || raw.Discard != jetstream.DiscardNew || raw.Subjects[0] != "mcp.raw.>" {
		t.Errorf("raw stream %+v", raw)
	}
}

// TestEvidenceRecordJSON checks appendEvidenceRecord byte for byte against
// encoding/json over every combination of the record's own members, with
// and without the pass's evidence (pipeline.TestEvidenceAppendJSON covers
// the evidence itself field by field).
func TestEvidenceRecordJSON(t *testing.T) {
	full := &pipeline.Evidence{Version: pipeline.EvidenceVersion, Kind: "tool-result", Tool: "t<1>", Tenant: "acme", Outcome: pipeline.OutcomeRejected,
		Code: pipeline.CodeBoundExceeded, Reason: "depth", Input: pipeline.Digest{Bytes: 9, Digest: "sha256:00"}, Rules: map[string]int64{"b": 1, "a": 2},
		Findings: []pipeline.FindingRecord{{Rule: "github-pat", Pointer: "/content/0/text", InKey: true, Length: 40}}, DurationNanos: 5}
	for _, ev := range []*pipeline.Evidence{nil, {}, full} {
		for _, path := range []string{"", PathInline, PathDurable, "a\"b<"} {
			for _, tp := range []string{"", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"} {
				for _, seq := range []uint64{0, 7, math.MaxUint64} {
					for _, dlq := range []bool{false, true} {
						r := &evidenceRecord{Evidence: ev, Path: path, Traceparent: tp, RawSequence: seq, Deliveries: seq / 2, DLQ: dlq}
						want, err := json.Marshal(r)
						if err != nil {
							t.Fatal(err)
						}
						if got := appendEvidenceRecord(nil, r); !bytes.Equal(got, want) {
							t.Fatalf("appendEvidenceRecord differs from encoding/json:\n got %s\nwant %s", got, want)
						}
					}
				}
			}
		}
	}
}
