package promptgate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// memBudget is a Budget of one process (the fleet-wide one is
// worker.KVBudget, tested against NATS there).
type memBudget struct {
	mu   sync.Mutex
	used map[string]int64
	err  error
}

func (m *memBudget) Charge(_ context.Context, key string, limit int64, _ time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return false, m.err
	}
	if m.used == nil {
		m.used = map[string]int64{}
	}
	if m.used[key] >= limit {
		return false, nil
	}
	m.used[key]++
	return true, nil
}

func completionGuard(t testing.TB, limit int64) *CompletionGuard {
	t.Helper()
	g, err := CompileCompletions(&CompletionsPolicy{
		Arguments: map[string]CompletionRule{
			"prompt:summarize_ticket/ticket_id": {Pattern: `TICKET-[0-9]{5,12}`, Visible: []VisibleRule{
				{Scope: "tenant:acme", Pattern: `TICKET-1[0-9]*`}, {Scope: "tenant:globex", Pattern: `TICKET-2[0-9]*`}}},
			"resource:aidefend-file://docs/{name}/name": {RequiredScopes: []string{"docs:read"}},
		},
		Budget: BudgetPolicy{Limit: limit},
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

var ticketReq = []byte(`{"ref":{"type":"ref/prompt","name":"summarize_ticket"},"argument":{"name":"ticket_id","value":"TICKET-"}}`)

func completionBody(values []string, extra string) []byte {
	v, _ := json.Marshal(values)
	return []byte(`{"jsonrpc":"2.0","id":9,"result":{"completion":{"values":` + string(v) + extra + `}}}`)
}

type completionOut struct {
	Result struct {
		Completion struct {
			Values  []string `json:"values"`
			Total   int      `json:"total"`
			HasMore bool     `json:"hasMore"`
		} `json:"completion"`
	} `json:"result"`
}

func TestCompletionFiltersAndCaps(t *testing.T) {
	g := completionGuard(t, 1000)
	many := make([]string, 150)
	for i := range many {
		many[i] = fmt.Sprintf("TICKET-1%05d", i)
	}
	for _, c := range []struct {
		name      string
		scopes    []string
		values    []string
		extra     string
		want      []string
		total     int
		hasMore   bool
		wantCount int // when want is nil
	}{
		{"visible only", []string{"tenant:acme"}, []string{"TICKET-10001", "TICKET-20002", "TICKET-10003"}, `,"total":3,"hasMore":false`, []string{"TICKET-10001", "TICKET-10003"}, 2, false, 0},
		{"other tenant", []string{"tenant:globex"}, []string{"TICKET-10001", "TICKET-20002"}, `,"total":5000,"hasMore":true`, []string{"TICKET-20002"}, 1, false, 0},
		{"no scope sees nothing", nil, []string{"TICKET-10001", "TICKET-20002"}, `,"total":2`, []string{}, 0, false, 0},
		{"pattern drops injection", []string{"tenant:acme"}, []string{"TICKET-10001", "<|im_start|>system", "TICKET-1\u202e"}, ``, []string{"TICKET-10001"}, 1, false, 0},
		{"server hasMore kept when nothing filtered", []string{"tenant:acme"}, []string{"TICKET-10001"}, `,"total":40,"hasMore":true`, []string{"TICKET-10001"}, 1, true, 0},
		{"server total replaced", []string{"tenant:acme"}, []string{"TICKET-10001"}, `,"total":40`, []string{"TICKET-10001"}, 1, false, 0},
		{"capped at 100", []string{"tenant:acme"}, many, `,"total":150,"hasMore":false`, nil, 150, true, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, d := g.Check(context.Background(), Input{Principal: "alice", Tenant: "t", Scopes: c.scopes, Request: ticketReq}, &memBudget{}, completionBody(c.values, c.extra))
			if d != nil {
				t.Fatalf("denied: %v", d)
			}
			var got completionOut
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			cc := got.Result.Completion
			if c.want != nil && fmt.Sprint(cc.Values) != fmt.Sprint(c.want) || c.want == nil && len(cc.Values) != c.wantCount {
				t.Fatalf("values %v", cc.Values)
			}
			if cc.Total != c.total || cc.HasMore != c.hasMore {
				t.Fatalf("total %d hasMore %v, want %d %v", cc.Total, cc.HasMore, c.total, c.hasMore)
			}
			if cc.Total < len(cc.Values) || cc.Total > len(cc.Values) && !cc.HasMore {
				t.Fatal("total and hasMore inconsistent")
			}
		})
	}
}

func TestCompletionRefuses(t *testing.T) {
	g := completionGuard(t, 1000)
	body := completionBody([]string{"TICKET-10001"}, "")
	for _, c := range []struct {
		name      string
		principal string
		scopes    []string
		req       string
		body      []byte
		budget    Budget
		want      string
	}{
		{"no principal", "", nil, string(ticketReq), body, &memBudget{}, ReasonCompletionNoPrincipal},
		{"no budget store", "alice", nil, string(ticketReq), body, nil, ReasonBudgetUnavailable},
		{"budget store down", "alice", nil, string(ticketReq), body, &memBudget{err: errors.New("kv down")}, ReasonBudgetUnavailable},
		{"unknown prompt argument", "alice", nil, `{"ref":{"type":"ref/prompt","name":"summarize_ticket"},"argument":{"name":"customer","value":""}}`, body, &memBudget{}, ReasonCompletionUnknown},
		{"unknown resource template", "alice", nil, `{"ref":{"type":"ref/resource","uri":"file:///{path}"},"argument":{"name":"path","value":"/"}}`, body, &memBudget{}, ReasonCompletionUnknown},
		{"scope of argument", "alice", nil, `{"ref":{"type":"ref/resource","uri":"aidefend-file://docs/{name}"},"argument":{"name":"name","value":"a"}}`, body, &memBudget{}, ReasonCompletionScope},
		{"wildcard in typed value is just text, control is refused", "alice", nil, `{"ref":{"type":"ref/prompt","name":"summarize_ticket"},"argument":{"name":"ticket_id","value":"%\u0000"}}`, body, &memBudget{}, ReasonCompletionInput},
		{"oversized typed value", "alice", nil, `{"ref":{"type":"ref/prompt","name":"summarize_ticket"},"argument":{"name":"ticket_id","value":"` + string(make([]byte, 0)) + fmt.Sprintf("%0300d", 0) + `"}}`, body, &memBudget{}, ReasonCompletionInput},
		{"context with newline", "alice", nil, `{"ref":{"type":"ref/prompt","name":"summarize_ticket"},"argument":{"name":"ticket_id","value":"T"},"context":{"arguments":{"x":"a\nsystem: b"}}}`, body, &memBudget{}, ReasonCompletionInput},
		{"extra request field", "alice", nil, `{"ref":{"type":"ref/prompt","name":"summarize_ticket"},"argument":{"name":"ticket_id","value":"T"},"tenant":"globex"}`, body, &memBudget{}, ReasonCompletionNoRequest},
		{"bad ref type", "alice", nil, `{"ref":{"type":"ref/tool","name":"x"},"argument":{"name":"a","value":"b"}}`, body, &memBudget{}, ReasonCompletionNoRequest},
		{"value not a string", "alice", nil, string(ticketReq), []byte(`{"completion":{"values":[1]}}`), &memBudget{}, ReasonCompletionMalformed},
		{"extra completion member", "alice", nil, string(ticketReq), []byte(`{"completion":{"values":[],"all":["TICKET-20001"]}}`), &memBudget{}, ReasonCompletionMalformed},
		{"no completion", "alice", nil, string(ticketReq), []byte(`{"values":[]}`), &memBudget{}, ReasonCompletionMalformed},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, d := g.Check(context.Background(), Input{Principal: c.principal, Scopes: c.scopes, Request: []byte(c.req)}, c.budget, c.body)
			if d == nil || d.Reason != c.want {
				t.Fatalf("Check = %v, want %s", d, c.want)
			}
		})
	}
}

func TestCompletionBudgetChargesEveryRequest(t *testing.T) {
	g := completionGuard(t, 3)
	b := &memBudget{}
	in := Input{Principal: "alice", Tenant: "acme", Scopes: []string{"tenant:acme"}, Request: ticketReq}
	// A refused request (unknown argument) costs as much as an answer.
	bad := in
	bad.Request = []byte(`{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"y","value":""}}`)
	if _, d := g.Check(context.Background(), bad, b, completionBody(nil, "")); d == nil || d.Reason != ReasonCompletionUnknown {
		t.Fatalf("first: %v", d)
	}
	for i := 0; i < 2; i++ {
		if _, d := g.Check(context.Background(), in, b, completionBody([]string{"TICKET-10001"}, "")); d != nil {
			t.Fatalf("request %d: %v", i, d)
		}
	}
	if _, d := g.Check(context.Background(), in, b, completionBody([]string{"TICKET-10001"}, "")); d == nil || d.Reason != ReasonBudgetSpent {
		t.Fatalf("fourth: %v", d)
	}
	// Another principal has a budget of its own.
	other := in
	other.Principal = "bob"
	if _, d := g.Check(context.Background(), other, b, completionBody([]string{"TICKET-10001"}, "")); d != nil {
		t.Fatalf("bob: %v", d)
	}
}

func TestCompileCompletionsRejects(t *testing.T) {
	for name, p := range map[string]*CompletionsPolicy{
		"no budget":      {},
		"too many":       {MaxValues: 101, Budget: BudgetPolicy{Limit: 1}},
		"bad window":     {Budget: BudgetPolicy{Limit: 1, Window: "1ms"}},
		"bad key":        {Budget: BudgetPolicy{Limit: 1}, Arguments: map[string]CompletionRule{"tool:x/y": {}}},
		"visible no pat": {Budget: BudgetPolicy{Limit: 1}, Arguments: map[string]CompletionRule{"prompt:a/b": {Visible: []VisibleRule{{Scope: "s"}}}}},
	} {
		if _, err := CompileCompletions(p); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

func BenchmarkCompletionCheck(b *testing.B) {
	g := completionGuard(b, 1<<62)
	vals := make([]string, 100)
	for i := range vals {
		vals[i] = fmt.Sprintf("TICKET-1%05d", i)
	}
	body := completionBody(vals, `,"total":100`)
	in := Input{Principal: "alice", Scopes: []string{"tenant:acme"}, Request: ticketReq}
	bud := &memBudget{}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, d := g.Check(context.Background(), in, bud, body); d != nil {
			b.Fatal(d)
		}
	}
}

// FuzzCompletionResult: whatever the server answers, a delivered
// completion has at most 100 values, each a string that passes the
// checks, a total no smaller than the values, and hasMore when the total
// is larger.
func FuzzCompletionResult(f *testing.F) {
	f.Add([]byte(`{"completion":{"values":["TICKET-10001","TICKET-20002"],"total":2}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"completion":{"values":[],"hasMore":true}}}`))
	f.Add([]byte(`{"completion":{"values":["TICKET-1\u202e"],"total":-1}}`))
	g := completionGuard(f, 1<<62)
	in := Input{Principal: "alice", Scopes: []string{"tenant:acme"}, Request: ticketReq}
	f.Fuzz(func(t *testing.T, body []byte) {
		out, d := g.Check(context.Background(), in, &memBudget{}, body)
		if d != nil {
			return
		}
		var doc map[string]any
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatalf("output not JSON: %s", out)
		}
		r := doc
		if _, rpc := doc["jsonrpc"]; rpc {
			if _, isErr := doc["error"]; isErr {
				return
			}
			r = doc["result"].(map[string]any)
		}
		c := r["completion"].(map[string]any)
		vals := c["values"].([]any)
		total := c["total"].(float64)
		more := c["hasMore"].(bool)
		if len(vals) > MaxCompletionValues || int(total) < len(vals) || int(total) > len(vals) && !more {
			t.Fatalf("inconsistent completion: %s", out)
		}
		for _, v := range vals {
			s := v.(string)
			if !g.cleanValue(s) || !strings.HasPrefix(s, "TICKET-1") {
				t.Fatalf("value %q delivered", s)
			}
		}
	})
}
