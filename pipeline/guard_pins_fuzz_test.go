package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// FuzzPinningHold: a tools/list or prompts/list whose items carry hostile
// strings, pinned once, then sent with one item changed. Under hold the
// output is valid JSON equal to what warn forwards minus the items the
// evidence says are held, with the rest in the same order; never a fault
// of our own.
func FuzzPinningHold(f *testing.F) {
	for i, h := range fuzzHostile {
		f.Add(uint8(i), []byte(h+"\xff"+fuzzHostile[(i+3)%len(fuzzHostile)]+"\xffname\xff"+h))
	}
	warn, hold := pinEngine2(f, PinningWarn), pinEngine2(f, PinningHold)
	shapes := []struct {
		kind   Kind
		member string
		item   string // %[1]s name, %[2]s description, %[3]s title, %[4]s other
	}{
		{KindToolsList, "tools", `{"name":"%[1]s","title":"%[3]s","description":"%[2]s","inputSchema":{"type":"object","properties":{"%[4]s":{"type":"string"}}}}`},
		{KindPromptsList, "prompts", `{"name":"%[1]s","description":"%[2]s","arguments":[{"name":"%[4]s","description":"%[3]s"}]}`},
	}
	f.Fuzz(func(t *testing.T, sel uint8, raw []byte) {
		s := fuzzStrings(raw)
		sh := shapes[int(sel)%len(shapes)]
		changed := int(sel/2) % 4
		list := func(v int) string {
			var items []string
			for i := range 4 {
				desc := s[1]
				if i == changed {
					desc += fmt.Sprintf(" v%d", v)
				}
				items = append(items, fmt.Sprintf(sh.item, fmt.Sprintf("n%d_%s", i, s[0]), desc, s[2], s[3]))
			}
			return `{"jsonrpc":"2.0","id":1,"result":{"` + sh.member + `":[` + strings.Join(items, ",") + `],"nextCursor":"c"}}`
		}
		wp, hp := NewMemoryPins(0), NewMemoryPins(0)
		pass := func(e *Engine, pins PinStore, in string) (string, *Evidence) {
			var out Buffer
			ev, err := e.Sanitize(context.Background(), strings.NewReader(in), &out, MessageInfo{Kind: sh.kind, Server: "srv", Pins: pins})
			if err != nil {
				t.Fatal(err)
			}
			if ev.Code == CodeInternal {
				t.Fatalf("fault of our own (%s) on %s", ev.Reason, in)
			}
			return out.String(), ev
		}
		pass(warn, wp, list(1))
		pass(hold, hp, list(1))
		unheld, evw := pass(warn, wp, list(2))
		held, evh := pass(hold, hp, list(2))
		if evw.Outcome == OutcomeRejected || evh.Outcome == OutcomeRejected {
			if evw.Outcome != evh.Outcome {
				t.Fatalf("warn %s, hold %s", evw.Outcome, evh.Outcome)
			}
			return
		}
		var u, h struct{ Result map[string]any }
		if json.Unmarshal([]byte(unheld), &u) != nil || json.Unmarshal([]byte(held), &h) != nil || u.Result == nil || h.Result == nil {
			t.Fatalf("not a JSON-RPC result:\n%s\n%s", unheld, held)
		}
		ui, _ := u.Result[sh.member].([]any)
		hi, _ := h.Result[sh.member].([]any)
		var want []any
		for i, x := range ui {
			if i >= len(evh.Guard.Pins) || !evh.Guard.Pins[i].Held {
				want = append(want, x)
			}
		}
		if len(want) == 0 {
			want = nil
		}
		if len(hi) == 0 {
			hi = nil
		}
		if !reflect.DeepEqual(want, hi) {
			t.Fatalf("held list is not the unheld one minus the held items:\n%s\n%s", unheld, held)
		}
		delete(u.Result, sh.member)
		delete(h.Result, sh.member)
		if !reflect.DeepEqual(u.Result, h.Result) {
			t.Fatalf("held list differs outside its items:\n%s\n%s", unheld, held)
		}
	})
}

func pinEngine2(f *testing.F, mode string) *Engine {
	pol := DefaultPolicy()
	pol.Pinning = mode
	e, err := NewEngine(pol)
	if err != nil {
		f.Fatal(err)
	}
	return e
}
