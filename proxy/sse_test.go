package proxy

import (
	"bytes"
	"strings"
	"testing"
)

func TestScanSSE(t *testing.T) {
	in := ": comment\n\nid: 1\nevent: message\ndata: {\"a\":\ndata: 1}\n\nretry: 10\n\nid: x y\ndata: z\r\n\r\ndata: last"
	var got []string
	scanSSE(strings.NewReader(in), 1<<20, func(e *sseEvent) bool {
		var msg []byte
		if e.lines > 0 {
			msg = e.data
		}
		got = append(got, string(formatEvent(e, msg, nil)))
		return true
	})
	want := []string{
		"id: 1\nevent: message\ndata: {\"a\":\ndata: 1}\n\n",
		"retry: 10\n\n",
		"data: z\n\n",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("events\n%q\nwant\n%q", got, want)
	}
}

func TestScanSSEOver(t *testing.T) {
	big := "data: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"x\":\"" + strings.Repeat("a", 8000) + "\"}}\n\nid: 2\ndata: {}\n\n"
	var evs []sseEvent
	scanSSE(strings.NewReader(big), 1024, func(e *sseEvent) bool {
		c := *e
		c.data = bytes.Clone(e.data)
		evs = append(evs, c)
		return true
	})
	if len(evs) != 2 || !evs[0].over || evs[1].over || string(evs[1].data) != "{}" {
		t.Fatalf("events %+v", evs)
	}
	if id, _ := headID(evs[0].data); string(id) != "4" {
		t.Fatalf("head id %q of %.60q", id, evs[0].data)
	}
}

// FuzzSSE: any stream is split into events without a panic, and what is
// written for an event is SSE fields only, ending in one blank line, with
// no line break inside an id, a type or a retry.
func FuzzSSE(f *testing.F) {
	for _, s := range []string{
		"id: 1\nevent: message\ndata: {}\n\n", ": c\n\ndata: a\ndata: b\n\n", "retry: 5\r\n\r\n",
		"id: \x00\ndata: x\n\n", "data:" + strings.Repeat("z", 3000) + "\n\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		scanSSE(bytes.NewReader(b), 2048, func(e *sseEvent) bool {
			out := formatEvent(e, []byte(`{"jsonrpc":"2.0"}`), nil)
			if !bytes.HasSuffix(out, []byte("\n\n")) || bytes.Count(out, []byte("\n\n")) != 1 {
				t.Fatalf("event %q", out)
			}
			for _, l := range bytes.Split(out[:len(out)-2], []byte("\n")) {
				if !bytes.HasPrefix(l, []byte("id: ")) && !bytes.HasPrefix(l, []byte("event: ")) &&
					!bytes.HasPrefix(l, []byte("retry: ")) && !bytes.HasPrefix(l, []byte("data: ")) {
					t.Fatalf("line %q in %q", l, out)
				}
			}
			return true
		})
	})
}
