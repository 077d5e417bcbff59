package peertest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/internal/peertest"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// kindDefs names the schema definition of each list method's result.
var kindDefs = map[string]string{
	"initialize":               "InitializeResult",
	"tools/list":               "ListToolsResult",
	"prompts/list":             "ListPromptsResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
}

// peerPins is a PinStore in memory.
type peerPins struct {
	mu   sync.Mutex
	pins map[string]string
}

func (m *peerPins) Pin(_ context.Context, server, tool, digest string, _ []byte) (pipeline.PinVerdict, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := server + "." + tool
	switch p, ok := m.pins[k]; {
	case !ok:
		m.pins[k] = digest
		return pipeline.PinVerdict{State: pipeline.PinFirst}, nil
	case p == digest:
		return pipeline.PinVerdict{State: pipeline.PinMatch}, nil
	default:
		return pipeline.PinVerdict{State: pipeline.PinChanged, Pinned: p}, nil
	}
}

// TestPeerKinds runs the real servers' initialize result, lists and
// notifications through their kinds: clean messages stay as the server
// wrote them (peertest.Compare: nothing but the documented transforms and
// our labels), validate against the official schema of the negotiated
// revision, and the guards record nothing in them; each tool's pin is the
// server's own definition, and a second list matches it.
func TestPeerKinds(t *testing.T) {
	srv := peertest.Install(t)
	eng, err := pipeline.NewEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root}
	pins := &peerPins{pins: map[string]string{}}
	var sc *mcpSchemas
	for _, s := range []struct {
		name, script string
		args         []string
	}{
		{"everything", srv.Everything, []string{"stdio"}},
		{"filesystem", srv.Filesystem, []string{root}},
	} {
		p := peertest.Start(t, srv.Node, s.script, env, s.args...)
		var init struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if err := json.Unmarshal(p.Initialize, &init); err != nil {
			t.Fatal(err)
		}
		if sc == nil {
			sc = loadMCPSchemas(t, init.Result.ProtocolVersion)
		}
		lines := map[string][]byte{"initialize": p.Initialize}
		for _, m := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
			line, err := p.Call(m, map[string]any{})
			if err != nil {
				t.Fatalf("%s %s: %v", s.name, m, err)
			}
			lines[m] = line
		}
		for m, line := range lines {
			kind := wire.KindForMethod(m)
			info := pipeline.MessageInfo{Kind: kind, Server: s.name, Framing: pipeline.FramingJSONRPC}
			if m == "tools/list" {
				info.Pins = pins
			}
			where := s.name + " " + m
			san, ev := sanitize(t, eng, line, info)
			var top map[string]json.RawMessage
			if err := json.Unmarshal(line, &top); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if _, isErr := top["error"]; isErr {
				// A method the server does not serve: an error response.
				if ev.Outcome == pipeline.OutcomeRejected {
					t.Errorf("%s: the error response was refused: %s %s", where, ev.Code, ev.Reason)
				}
				t.Logf("%s: an error response (%s)", where, ev.Outcome)
				continue
			}
			if ev.Outcome != pipeline.OutcomeClean {
				t.Errorf("%s: outcome %s (%s %s)", where, ev.Outcome, ev.Code, ev.Reason)
			}
			rep, err := peertest.Compare(line, san, peertest.Options{})
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			for _, d := range rep.Diffs {
				t.Errorf("%s: %s", where, d)
			}
			if ev.Guard != nil && len(ev.Guard.Members) > 0 {
				t.Errorf("%s: member records in a clean list: %+v", where, ev.Guard.Members)
			}
			validateResult(t, sc, where, san, kindDefs[m])
			if m == "tools/list" {
				checkPins(t, eng, pins, s.name, line, san, ev)
			}
		}
		if s.name == "everything" {
			peerNotifications(t, eng, sc, p)
		}
	}
}

// validateResult validates the result of a sanitized response against def.
func validateResult(t *testing.T, sc *mcpSchemas, where string, san []byte, def string) {
	t.Helper()
	v, err := schema.Decode(san, 128)
	if err != nil {
		t.Fatalf("%s: the sanitized response is not strict JSON: %v", where, err)
	}
	m, _ := v.(map[string]any)
	if viol := sc.def(t, def).Validate(m["result"]); viol != nil {
		t.Errorf("%s: not a valid %s: %s at %q", where, def, viol.Keyword, viol.InstancePointer)
	}
}

// checkPins: every tool was pinned at its first list with the digest of
// the server's own definition; a second list matches every pin.
func checkPins(t *testing.T, eng *pipeline.Engine, pins *peerPins, server string, raw, san []byte, ev *pipeline.Evidence) {
	t.Helper()
	var doc struct {
		Result struct {
			Tools []map[string]any `json:"tools"`
		} `json:"result"`
	}
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil || len(doc.Result.Tools) == 0 {
		t.Fatalf("%s: no tools: %v", server, err)
	}
	if ev.Guard == nil || len(ev.Guard.Pins) != len(doc.Result.Tools) {
		t.Fatalf("%s: pins %+v for %d tools", server, ev.Guard, len(doc.Result.Tools))
	}
	for i, tool := range doc.Result.Tools {
		_, digest, err := pipeline.ToolDigest(tool)
		if err != nil {
			t.Fatal(err)
		}
		if p := ev.Guard.Pins[i]; p.Verdict != pipeline.PinFirst || p.Digest != digest {
			t.Errorf("%s %s: pin %+v, want pinned with the server's own digest %s", server, tool["name"], p, digest)
		}
	}
	t.Logf("%s: %d tools pinned", server, len(doc.Result.Tools))
	_, ev2 := sanitize(t, eng, raw, pipeline.MessageInfo{Kind: wire.KindToolsList, Server: server, Pins: pins})
	for _, p := range ev2.Guard.Pins {
		if p.Verdict != pipeline.PinMatch {
			t.Errorf("%s %s: second list %s, want match", server, p.Tool, p.Verdict)
		}
	}
}

// peerNotifications makes server-everything send progress and log
// notifications and runs each through the notification kind.
func peerNotifications(t *testing.T, eng *pipeline.Engine, sc *mcpSchemas, p *peertest.Peer) {
	t.Helper()
	if _, err := p.Call("logging/setLevel", map[string]any{"level": "debug"}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Call("tools/call", map[string]any{"name": "toggle-simulated-logging", "arguments": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Call("tools/call", map[string]any{"name": "trigger-long-running-operation",
		"arguments": map[string]any{"duration": 0.3, "steps": 3}, "_meta": map[string]any{"progressToken": "peer-1"}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for p.Notifications("notifications/progress") < 3 || p.Notifications("notifications/message") < 1 {
		if time.Now().After(deadline) {
			t.Fatalf("notifications: %d progress, %d message", p.Notifications("notifications/progress"), p.Notifications("notifications/message"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	seen := map[string]int{}
	for _, line := range p.NotificationLines() {
		var m struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(line, &m)
		san, ev := sanitize(t, eng, line, pipeline.MessageInfo{Kind: wire.KindForMethod(m.Method), Framing: pipeline.FramingJSONRPC})
		where := fmt.Sprintf("everything %s #%d", m.Method, seen[m.Method])
		seen[m.Method]++
		if ev.Outcome != pipeline.OutcomeClean {
			t.Errorf("%s: outcome %s (%s %s)", where, ev.Outcome, ev.Code, ev.Reason)
		}
		rep, err := peertest.Compare(line, san, peertest.Options{})
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		for _, d := range rep.Diffs {
			t.Errorf("%s: %s", where, d)
		}
		v, err := schema.Decode(san, 128)
		if err != nil {
			t.Fatalf("%s: not strict JSON: %v", where, err)
		}
		if viol := sc.def(t, "JSONRPCNotification").Validate(v); viol != nil {
			t.Errorf("%s: not a valid JSONRPCNotification: %s at %q", where, viol.Keyword, viol.InstancePointer)
		}
	}
	if seen["notifications/progress"] < 3 || seen["notifications/message"] < 1 {
		t.Fatalf("notification lines: %v", seen)
	}
	t.Logf("everything: notifications through their kind: %v", seen)
}
