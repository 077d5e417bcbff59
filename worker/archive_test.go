package worker

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

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
