package worker

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/promptgate"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestKVBudgetHoldsAcrossWorkers charges one principal from two budgets
// on two connections (two workers) at once: exactly limit charges pass.
func TestKVBudgetHoldsAcrossWorkers(t *testing.T) {
	srv := serveTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// One budget opens the bucket at once, the other on its first charge
	// (as serve's does).
	var budgets []*KVBudget
	for i := range 2 {
		_, js := serveConnect(t, srv.ClientURL())
		var b *KVBudget
		var err error
		if i == 0 {
			b, err = OpenKVBudget(ctx, js, KVBudgetOptions{})
		} else {
			b, err = NewKVBudget(js, KVBudgetOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
		budgets = append(budgets, b)
	}
	const limit, callers = 7, 24
	key := promptgate.BudgetKey("acme", "alice")
	var granted atomic.Int32
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := budgets[i%2].Charge(ctx, key, limit, time.Hour)
			if err != nil {
				t.Error(err)
			}
			if ok {
				granted.Add(1)
			}
		}()
	}
	wg.Wait()
	if granted.Load() != limit {
		t.Fatalf("%d charges granted across two workers, want %d", granted.Load(), limit)
	}
	// Another principal is not charged for alice's requests.
	if ok, err := budgets[1].Charge(ctx, promptgate.BudgetKey("acme", "bob"), limit, time.Hour); !ok || err != nil {
		t.Fatalf("bob: %v %v", ok, err)
	}
	// A window and a slot later, the budget is back.
	budgets[0].now = func() time.Time { return time.Now().Add(time.Hour + time.Hour/promptgate.SlidingSlots + time.Second) }
	if ok, err := budgets[0].Charge(ctx, key, limit, time.Hour); !ok || err != nil {
		t.Fatalf("next window: %v %v", ok, err)
	}
}

// TestKVBudgetNoBurstAtWindowEdge: two workers spend a principal's budget
// just before an aligned window ends; just after it, neither grants any
// more (a fixed window would grant the limit again, twice it within
// milliseconds). A window and a slot after the first charges, both do.
func TestKVBudgetNoBurstAtWindowEdge(t *testing.T) {
	srv := serveTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const limit = 6
	window := 16 * time.Minute
	edge := time.Unix(0, 0).Add(window * 2_000_000) // a multiple of the window
	clock := edge.Add(-time.Second)
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	set := func(t time.Time) { mu.Lock(); clock = t; mu.Unlock() }
	var budgets []*KVBudget
	for range 2 {
		_, js := serveConnect(t, srv.ClientURL())
		b, err := OpenKVBudget(ctx, js, KVBudgetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b.now = now
		budgets = append(budgets, b)
	}
	key := promptgate.BudgetKey("acme", "carol")
	charge := func(i int) bool {
		ok, err := budgets[i%2].Charge(ctx, key, limit, window)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for i := range limit {
		if !charge(i) {
			t.Fatalf("charge %d before the edge refused", i)
		}
	}
	if charge(0) || charge(1) {
		t.Fatal("charge over the limit granted before the edge")
	}
	set(edge.Add(time.Second))
	for i := range 2 * limit {
		if charge(i) {
			t.Fatalf("charge %d after the window's edge granted: burst of twice the limit", i)
		}
	}
	set(edge.Add(window / 2))
	if charge(0) || charge(1) {
		t.Fatal("charge half a window after the spent budget granted")
	}
	set(edge.Add(-time.Second + window + window/promptgate.SlidingSlots + time.Second))
	for i := range limit {
		if !charge(i) {
			t.Fatalf("charge %d a window and a slot later refused", i)
		}
	}
	if charge(0) {
		t.Fatal("over the limit in the new window")
	}
}

// countingBudget counts the charges one worker made.
type countingBudget struct {
	promptgate.Budget
	n atomic.Int32
}

func (c *countingBudget) Charge(ctx context.Context, key string, limit int64, window time.Duration) (bool, error) {
	c.n.Add(1)
	return c.Budget.Charge(ctx, key, limit, window)
}

// TestCompletionBudgetTwoWorkers runs two workers in one queue group
// against one embedded server: a principal's completion budget is spent
// across both, and then both refuse.
func TestCompletionBudgetTwoWorkers(t *testing.T) {
	srv := serveTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pol := &pipeline.Policy{Version: "comp-1", Completions: &promptgate.CompletionsPolicy{
		Arguments: map[string]promptgate.CompletionRule{"prompt:summarize_ticket/ticket_id": {Pattern: `TICKET-[0-9]+`}},
		Budget:    promptgate.BudgetPolicy{Limit: 5, Window: "1h"},
	}}
	var counters []*countingBudget
	for range 2 {
		nc, js := serveConnect(t, srv.ClientURL())
		kb, err := OpenKVBudget(ctx, js, KVBudgetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cb := &countingBudget{Budget: kb}
		counters = append(counters, cb)
		eng, err := pipeline.NewEngine(pol)
		if err != nil {
			t.Fatal(err)
		}
		startServiceWith(t, nc, eng, WithCompletionBudget(cb), WithDurable(false))
	}
	client, _ := serveConnect(t, srv.ClientURL())
	ask := func(principal string) *nats.Msg {
		m := nats.NewMsg("mcp.sanitize.completion-result")
		m.Header.Set(wire.HeaderTenant, "acme")
		m.Header.Set(wire.HeaderPrincipal, principal)
		m.Header.Set(wire.HeaderRequestParams, `{"ref":{"type":"ref/prompt","name":"summarize_ticket"},"argument":{"name":"ticket_id","value":"TICKET-1"}}`)
		m.Data = []byte(`{"jsonrpc":"2.0","id":4,"result":{"completion":{"values":["TICKET-10001","TICKET-10002","drop me"],"total":3}}}`)
		r, err := client.RequestMsg(m, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	allowed := 0
	for i := range 20 {
		r := ask("alice")
		switch code := r.Header.Get(wire.HeaderCode); code {
		case string(wire.CodeCompletionRefused):
			if i < 5 {
				t.Fatalf("request %d refused within the budget", i)
			}
		case "":
			allowed++
			var out struct {
				Result struct {
					Completion struct {
						Values []string `json:"values"`
						Total  int      `json:"total"`
					} `json:"completion"`
				} `json:"result"`
			}
			if err := json.Unmarshal(r.Data, &out); err != nil || len(out.Result.Completion.Values) != 2 || out.Result.Completion.Total != 2 {
				t.Fatalf("completion %s", r.Data)
			}
		default:
			t.Fatalf("request %d: code %s: %s", i, code, r.Data)
		}
	}
	if allowed != 5 {
		t.Fatalf("%d completions allowed across two workers, want 5", allowed)
	}
	if counters[0].n.Load() == 0 || counters[1].n.Load() == 0 {
		t.Fatalf("charges per worker %d and %d: one worker took every request", counters[0].n.Load(), counters[1].n.Load())
	}
	if r := ask("bob"); r.Header.Get(wire.HeaderCode) != "" {
		t.Fatalf("bob refused: %s", r.Header.Get(wire.HeaderCode))
	}
}
