package records

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/resgate"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestGuardFor: a record's context replaces the members of the base it
// names, and one out of shape or bounds is refused whole.
func TestGuardFor(t *testing.T) {
	base := &pipeline.GuardInput{Principal: "flag", Tenant: "acme", Scopes: []string{"a"}, Request: []byte(`{"x":1}`)}
	for _, tc := range []struct {
		name, raw                string
		ok                       bool
		principal, scopes, param string
	}{
		{"absent", "", true, "flag", "a", `{"x":1}`},
		{"all", `{"principal":"alice","scopes":["docs:read","b"],"requestParams":{"uri": "https://x/a"}}`, true, "alice", "docs:read b", `{"uri":"https://x/a"}`},
		{"principal only", ` { "principal" : "bob" } `, true, "bob", "a", `{"x":1}`},
		{"null principal keeps the base", `{"principal":null}`, true, "flag", "a", `{"x":1}`},
		{"empty scopes", `{"scopes":[]}`, true, "flag", "", `{"x":1}`},
		{"escaped", `{"principal":"\u0061lice"}`, true, "alice", "a", `{"x":1}`},
		{"null", `null`, false, "", "", ""},
		{"array", `[]`, false, "", "", ""},
		{"string", `"alice"`, false, "", "", ""},
		{"unknown member", `{"principal":"a","tenant":"b"}`, false, "", "", ""},
		{"principal with a space", `{"principal":"al ice"}`, false, "", "", ""},
		{"principal with a control", `{"principal":"al\u0000ice"}`, false, "", "", ""},
		{"principal empty", `{"principal":""}`, false, "", "", ""},
		{"principal too long", `{"principal":"` + strings.Repeat("a", 257) + `"}`, false, "", "", ""},
		{"principal a number", `{"principal":1}`, false, "", "", ""},
		{"scopes a string", `{"scopes":"a b"}`, false, "", "", ""},
		{"too many scopes", `{"scopes":[` + strings.Repeat(`"s",`, 64) + `"s"]}`, false, "", "", ""},
		{"params not an object", `{"requestParams":[1]}`, false, "", "", ""},
		{"params too large", `{"requestParams":{"u":"` + strings.Repeat("a", MaxRequestParamsBytes) + `"}}`, false, "", "", ""},
		{"trailing", `{"principal":"a"} {}`, false, "", "", ""},
		{"not JSON", `{"principal":`, false, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var raw []byte
			if tc.raw != "" {
				raw = []byte(tc.raw)
			}
			g, ok := guardFor(base, raw)
			if ok != tc.ok {
				t.Fatalf("ok %v", ok)
			}
			if !ok {
				return
			}
			if g.Principal != tc.principal || strings.Join(g.Scopes, " ") != tc.scopes || string(g.Request) != tc.param || g.Tenant != "acme" {
				t.Fatalf("got %q %q %q %q", g.Principal, g.Scopes, g.Request, g.Tenant)
			}
		})
	}
	if base.Principal != "flag" {
		t.Fatal("the base was changed")
	}
}

// TestRecordContext: resource records of scan --jsonl carry their request
// context; with it and the allow-list the guard passes the page, without
// it the guard refuses (fail closed), a bad context answers the record
// with bad-record-context; the same in memory and for a record over
// MemRecordBytes (bigrecord.go).
func TestRecordContext(t *testing.T) {
	eng, err := pipeline.NewEngine(&pipeline.Policy{Version: "res-1", Resources: mustResources(t)})
	if err != nil {
		t.Fatal(err)
	}
	authz, err := resgate.NewPrefixAuthorizer([]string{"https://docs.example.com/"})
	if err != nil {
		t.Fatal(err)
	}
	result := `{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"https://docs.example.com/a.html","text":"the page ` + strings.Repeat("x", 6000) + `"}]}}`
	lines := []string{
		`{"context":{"principal":"alice","requestParams":{"uri":"https://DOCS.example.com/a.html"}},"result":` + result + `}`,
		`{"result":` + result + `}`,
		`{"context":{"principal":"alice","requestParams":{"uri":"https://evil.example.com/a.html"}},"result":` + result + `}`,
		`{"context":{"principal":"al ice"},"result":` + result + `}`,
		`{"context":"alice","result":` + result + `}`,
	}
	in := strings.Join(lines, "\n") + "\n"
	for _, mem := range []int{0, 4096} {
		var out bytes.Buffer
		err := Run(context.Background(), eng, strings.NewReader(in), &out, Options{Kind: pipeline.KindResourceResult, MemRecordBytes: mem,
			SpoolDir: t.TempDir(), Guard: &pipeline.GuardInput{Tenant: "acme", Authorizer: authz}})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		if len(got) != len(lines) {
			t.Fatalf("mem %d: %d lines", mem, len(got))
		}
		want := []string{"", string(wire.CodeResourceUnavailable), string(wire.CodeResourceUnavailable), string(wire.CodeInvalidContent), string(wire.CodeInvalidContent)}
		for i, l := range got {
			var rec struct {
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatalf("mem %d line %d: %v", mem, i+1, err)
			}
			passed := bytes.Contains(rec.Result, []byte("the page"))
			if (want[i] == "") != passed || (want[i] != "" && !bytes.Contains(rec.Result, []byte(`"dev.mcp-sanitize/code":"`+want[i]+`"`))) {
				t.Fatalf("mem %d line %d: want %q: %.300s", mem, i+1, want[i], rec.Result)
			}
		}
	}
}

func mustResources(t *testing.T) *resgate.Policy {
	t.Helper()
	var p resgate.Policy
	if err := json.Unmarshal([]byte(`{"schemes":[{"name":"https","kind":"https","hosts":["docs.example.com"]}]}`), &p); err != nil {
		t.Fatal(err)
	}
	return &p
}
