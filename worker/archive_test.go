package worker

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/payload"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestArchive: with the archive on, the raw input of each delivered
// message (inline and durable) is kept in MCP_ARCHIVE with the headers a
// re-scan needs; the stream is bounded by age and bytes.
func TestArchive(t *testing.T) {
	srv := serveTestServer(t)
	nc, js := serveConnect(t, srv.ClientURL())
	if err := ValidateOptions(WithArchive(ArchiveConfig{})); err == nil {
		t.Fatal("an unbounded archive was accepted")
	}
	startService(t, nc, WithArchive(ArchiveConfig{MaxAge: time.Hour, MaxBytes: 64 << 20}))
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		m := nats.NewMsg("mcp.sanitize.tool-result")
		m.Header.Set(wire.HeaderTenant, "acme")
		m.Header.Set(wire.HeaderServer, "files")
		m.Header.Set(wire.HeaderTool, "read_file")
		m.Data = testMessage(i)
		if _, err := nc.RequestMsg(m, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		if _, err := js.Publish(ctx, "mcp.raw.beta.files.tool-result", testMessage(10+i)); err != nil {
			t.Fatal(err)
		}
	}
	checkFor(t, 10*time.Second, func() error {
		msgs := streamMsgs(t, js, wire.StreamArchive)
		if len(msgs) != 6 {
			return fmt.Errorf("%d archived", len(msgs))
		}
		tenants := map[string]int{}
		for _, m := range msgs {
			if m.Header.Get(wire.HeaderKind) != "tool-result" || m.Header.Get(HeaderArchivePolicy) != "default" || len(m.Data) == 0 {
				return fmt.Errorf("archived %s %v", m.Subject, m.Header)
			}
			tenants[m.Header.Get(wire.HeaderTenant)]++
		}
		if tenants["acme"] != 3 || tenants["beta"] != 3 {
			return fmt.Errorf("tenants %v", tenants)
		}
		return nil
	})
	st, _ := js.Stream(ctx, wire.StreamArchive)
	info, _ := st.Info(ctx)
	if info.Config.MaxAge != time.Hour || info.Config.MaxBytes != 64<<20 {
		t.Fatalf("archive limits %v %v", info.Config.MaxAge, info.Config.MaxBytes)
	}
}

// TestArchiveClaimed: a body sent by claim is archived as a copy in
// ArchiveBodiesBucket (the archived message a claim of that bucket), which
// outlives the release of the input's claim and opens to the bytes sent;
// with MaxClaimBytes below its size it is not archived.
func TestArchiveClaimed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxClaim int64
		archived bool
	}{
		{"copied", 0, true},
		{"too large", 1 << 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := serveTestServer(t)
			nc, js := serveConnect(t, srv.ClientURL())
			startService(t, nc, WithArchive(ArchiveConfig{MaxAge: time.Hour, MaxBytes: 64 << 20, MaxClaimBytes: tc.maxClaim}))
			ctx := context.Background()
			store, err := payload.NewStore(ctx, js, wire.BucketPayloads)
			if err != nil {
				t.Fatal(err)
			}
			src := []byte(`{"content":[{"type":"text","text":"` + strings.Repeat("row GITHUB_TOKEN="+testGitHubToken+" ", 200) + `"}]}`)
			hdr, body, err := payload.Claim(ctx, store, wire.BucketPayloads, "", bytes.NewReader(src), "")
			if err != nil {
				t.Fatal(err)
			}
			m := nats.NewMsg("mcp.sanitize.tool-result")
			m.Header = hdr
			m.Header.Set(wire.HeaderTenant, "acme")
			m.Header.Set(wire.HeaderTool, "read_file")
			m.Data = body
			r, err := nc.RequestMsg(m, 10*time.Second)
			if err != nil || bytes.Contains(r.Data, []byte(testGitHubToken)) {
				t.Fatalf("reply: %v", err)
			}
			// The second message, not claimed, marks that the first was
			// handled (messages are archived in the order they finish).
			m2 := nats.NewMsg("mcp.sanitize.tool-result")
			m2.Header.Set(wire.HeaderTenant, "acme")
			m2.Data = testMessage(1)
			if _, err := nc.RequestMsg(m2, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			var msgs []*jetstream.RawStreamMsg
			checkFor(t, 10*time.Second, func() error {
				msgs = streamMsgs(t, js, wire.StreamArchive)
				if len(msgs) < 1 || (tc.archived && len(msgs) < 2) {
					return fmt.Errorf("%d archived", len(msgs))
				}
				// The input's own claim is released.
				if _, err := store.GetInfo(ctx, hdr.Get(wire.HeaderClaim)); err == nil {
					return fmt.Errorf("the input's claim is not released")
				}
				return nil
			})
			var claimed *jetstream.RawStreamMsg
			for _, am := range msgs {
				if payload.IsClaim(am.Header) {
					claimed = am
				}
			}
			if !tc.archived {
				if claimed != nil || len(msgs) != 1 {
					t.Fatalf("a claimed body over the bound was archived (%d messages)", len(msgs))
				}
				return
			}
			if claimed == nil || claimed.Header.Get(wire.HeaderClaimBucket) != ArchiveBodiesBucket || claimed.Header.Get(wire.HeaderClaim) == hdr.Get(wire.HeaderClaim) {
				t.Fatalf("archived claim %v", msgs)
			}
			bodies, err := payload.NewStore(ctx, js, ArchiveBodiesBucket)
			if err != nil {
				t.Fatal(err)
			}
			rc, err := payload.Open(ctx, claimed.Header, claimed.Data, bodies, payload.Limits{Bucket: ArchiveBodiesBucket})
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || !bytes.Equal(got, src) {
				t.Fatalf("archived body: %v, %d bytes of %d", err, len(got), len(src))
			}
			st, _ := js.ObjectStore(ctx, ArchiveBodiesBucket)
			status, err := st.Status(ctx)
			if err != nil || status.TTL() != time.Hour {
				t.Fatalf("archive bodies bucket: %v", err)
			}
		})
	}
}

// TestArchiveKeepsRequestContext: the guards' request context of an
// archived input is kept as the guards read it (a value out of shape is
// dropped, as the guards drop it).
func TestArchiveKeepsRequestContext(t *testing.T) {
	srv := serveTestServer(t)
	nc, js := serveConnect(t, srv.ClientURL())
	startService(t, nc, WithArchive(ArchiveConfig{MaxAge: time.Hour, MaxBytes: 64 << 20}))
	for i, principal := range []string{"alice", "al ice"} {
		m := nats.NewMsg("mcp.sanitize.resource-result")
		m.Header.Set(wire.HeaderTenant, fmt.Sprintf("t%d", i))
		m.Header.Set(wire.HeaderPrincipal, principal)
		m.Header.Set(wire.HeaderScopes, "docs:read  tickets:read")
		m.Header.Set(wire.HeaderRequestParams, `{"uri":"https://docs.example.com/a.html"}`)
		m.Data = []byte(`{"contents":[{"uri":"https://docs.example.com/a.html","text":"page"}]}`)
		if _, err := nc.RequestMsg(m, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	checkFor(t, 10*time.Second, func() error {
		msgs := streamMsgs(t, js, wire.StreamArchive)
		if len(msgs) != 2 {
			return fmt.Errorf("%d archived", len(msgs))
		}
		for _, m := range msgs {
			want := "alice"
			if m.Header.Get(wire.HeaderTenant) == "t1" {
				want = ""
			}
			if m.Header.Get(wire.HeaderPrincipal) != want || m.Header.Get(wire.HeaderScopes) != "docs:read tickets:read" ||
				m.Header.Get(wire.HeaderRequestParams) != `{"uri":"https://docs.example.com/a.html"}` {
				return fmt.Errorf("archived context %v", m.Header)
			}
		}
		return nil
	})
}
