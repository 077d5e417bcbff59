package toolcat

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
)

func testJS(t *testing.T) jetstream.JetStream {
	t.Helper()
	srv := testnats.RunServer(t, testnats.Options{})
	_, js := testnats.Connect(t, srv.ClientURL())
	return js
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

const toolsList = `{"tools":[
  {"name":"search","description":"Search","inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]},
   "outputSchema":{"type":"object","properties":{"hits":{"type":"integer"}}},"annotations":{"readOnlyHint":true}},
  {"name":"admin.tools.list","inputSchema":{"type":"object"}},
  {"name":"café ☕","inputSchema":{"type":"object","properties":{"size":{"enum":["s","m"]}}}}
]}`

func TestKeyEncoding(t *testing.T) {
	cases := []struct {
		server, tool, key string
		code              Code
	}{
		{"github", "search_repos", "github.search_repos", ""},
		{"github", "get-file", "github.get-file", ""},
		{"github", "admin.tools.list", "github.=YWRtaW4udG9vbHMubGlzdA", ""},
		{"s", "a b", "s.=YSBi", ""},
		{"s", "=x", "s.=PXg", ""},
		{"s", "", "", CodeName},
		{"s", strings.Repeat("a", 129), "", CodeName},
		{"s", "\xff", "", CodeName},
		{"bad.server", "t", "", CodeName},
		{"", "t", "", CodeName},
		{"s*", "t", "", CodeName},
	}
	for _, tc := range cases {
		key, err := Key(tc.server, tc.tool)
		if tc.code != "" {
			if CodeOf(err) != tc.code {
				t.Errorf("%q %q: err %v, want %s", tc.server, tc.tool, err, tc.code)
			}
			continue
		}
		if err != nil || key != tc.key {
			t.Errorf("%q %q: key %q %v, want %q", tc.server, tc.tool, key, err, tc.key)
			continue
		}
		s, name, err := ParseKey(key)
		if err != nil || s != tc.server || name != tc.tool {
			t.Errorf("ParseKey(%q) = %q %q %v", key, s, name, err)
		}
	}
	// A plain name written in encoded form is not a valid key (one name,
	// one key).
	if _, _, err := ParseKey("s.=" + "YWJj"); err == nil {
		t.Fatal("encoded plain name accepted")
	}
}

func TestPutGetList(t *testing.T) {
	js := testJS(t)
	ctx := ctxT(t)
	c, err := Open(ctx, js, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Put(ctx, "github", []byte(toolsList))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Tools, ",") != "search,admin.tools.list,café ☕" {
		t.Fatalf("stored %q", res.Tools)
	}
	e, err := c.Get(ctx, "github", "search")
	if err != nil {
		t.Fatal(err)
	}
	if e.Input == nil || e.Output == nil || e.Name != "search" || e.Server != "github" {
		t.Fatalf("entry %+v", e)
	}
	if !strings.Contains(string(e.Definition), `"annotations":{"readOnlyHint":true}`) {
		t.Fatalf("definition lost members: %s", e.Definition)
	}
	if e.Input.Valid(map[string]any{}) {
		t.Fatal("compiled inputSchema does not require q")
	}
	if raw, err := c.InputSchema(ctx, "github", "search"); err != nil || string(raw) != `{"properties":{"q":{"type":"string"}},"required":["q"],"type":"object"}` {
		t.Fatalf("InputSchema %s %v", raw, err)
	}
	e2, err := c.Get(ctx, "github", "café ☕")
	if err != nil || e2.Output != nil {
		t.Fatalf("encoded name: %v %+v", err, e2)
	}
	names, err := c.List(ctx, "github")
	if err != nil || strings.Join(names, ",") != "admin.tools.list,café ☕,search" {
		t.Fatalf("list %q %v", names, err)
	}
	if names, err := c.List(ctx, "other"); err != nil || len(names) != 0 {
		t.Fatalf("list of an unknown server %q %v", names, err)
	}
	if _, err := c.Get(ctx, "github", "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown tool: %v", err)
	}
	if _, err := c.Get(ctx, "other", "search"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("tool of another server: %v", err)
	}
	// A JSON-RPC response is accepted too.
	if _, err := c.Put(ctx, "gitlab", []byte(`{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"mr","inputSchema":{"type":"object"}}],"nextCursor":"x"}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, "gitlab", "mr"); err != nil {
		t.Fatal(err)
	}
}

func TestPutRejects(t *testing.T) {
	js := testJS(t)
	ctx := ctxT(t)
	c, err := Open(ctx, js, Options{MaxTools: 3, MaxDefinitionBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	good := `{"name":"ok","inputSchema":{"type":"object"}}`
	cases := []struct {
		name, server, list string
		code               Code
		index              int
	}{
		{"not-json", "s", `{"tools":[`, CodeInvalid, -1},
		{"no-tools", "s", `{"result":{}}`, CodeInvalid, -1},
		{"rpc-error", "s", `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}`, CodeInvalid, -1},
		{"tool-not-object", "s", `{"tools":[` + good + `,3]}`, CodeInvalid, 1},
		{"no-name", "s", `{"tools":[{"inputSchema":{}}]}`, CodeInvalid, 0},
		{"duplicate", "s", `{"tools":[` + good + `,` + good + `]}`, CodeInvalid, 1},
		{"bad-name", "s", `{"tools":[{"name":"","inputSchema":{}}]}`, CodeName, 0},
		{"bad-server", "a.b", `{"tools":[]}`, CodeName, -1},
		{"no-input-schema", "s", `{"tools":[` + good + `,{"name":"x"}]}`, CodeSchema, 1},
		{"input-ref-denied", "s", `{"tools":[{"name":"x","inputSchema":{"$ref":"http://evil/s.json"}}]}`, CodeSchema, 0},
		{"output-invalid", "s", `{"tools":[{"name":"x","inputSchema":{},"outputSchema":{"type":"nope"}}]}`, CodeSchema, 0},
		{"too-many", "s", `{"tools":[` + strings.Repeat(good+",", 3) + good + `]}`, CodeTooLarge, -1},
		{"definition-too-large", "s", `{"tools":[{"name":"x","description":"` + strings.Repeat("d", 5000) + `","inputSchema":{}}]}`, CodeTooLarge, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Put(ctx, tc.server, []byte(tc.list))
			var e *Error
			if !errors.As(err, &e) || e.Code != tc.code || e.Index != tc.index {
				t.Fatalf("got %v, want %s at %d", err, tc.code, tc.index)
			}
			if strings.Contains(err.Error(), "evil") || strings.Contains(err.Error(), "nope") {
				t.Fatalf("error text carries input: %s", err)
			}
		})
	}
	// All or nothing: the good tool before the bad one was not stored.
	if _, err := c.Get(ctx, "s", "ok"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("partial put stored a tool: %v", err)
	}
}

// The local cache follows the bucket: an update made through another
// catalog (another worker) is seen once the watch reports it.
func TestWatchInvalidates(t *testing.T) {
	js := testJS(t)
	ctx := ctxT(t)
	a, err := Open(ctx, js, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, js, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	v1 := `{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"a":{}}}}]}`
	v2 := `{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"b":{}},"required":["b"]}}]}`
	if _, err := a.Put(ctx, "srv", []byte(v1)); err != nil {
		t.Fatal(err)
	}
	e1, err := b.Get(ctx, "srv", "t")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := b.Get(ctx, "srv", "t"); again != e1 {
		t.Fatal("second Get not served from the local cache")
	}
	if _, err := a.Put(ctx, "srv", []byte(v2)); err != nil {
		t.Fatal(err)
	}
	testnats.CheckFor(t, 5*time.Second, 10*time.Millisecond, func() error {
		e, err := b.Get(ctx, "srv", "t")
		if err != nil {
			return err
		}
		if e.Input.Valid(map[string]any{}) {
			return errors.New("still the old schema")
		}
		return nil
	})
	if err := a.Delete(ctx, "srv", "t"); err != nil {
		t.Fatal(err)
	}
	testnats.CheckFor(t, 5*time.Second, 10*time.Millisecond, func() error {
		if _, err := b.Get(ctx, "srv", "t"); !errors.Is(err, ErrNotFound) {
			return errors.New("deleted tool still served")
		}
		return nil
	})
}

// A definition written into the bucket by something else that does not
// compile fails closed on Get.
func TestGetFailsClosedOnBadStoredValue(t *testing.T) {
	js := testJS(t)
	ctx := ctxT(t)
	c, err := Open(ctx, js, Options{NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(ctx, "mcp-tools")
	if err != nil {
		t.Fatal(err)
	}
	for key, val := range map[string]string{
		"s.ref":   `{"name":"ref","inputSchema":{"$ref":"file:///etc/passwd"}}`,
		"s.junk":  `not json`,
		"s.other": `{"name":"different","inputSchema":{}}`,
	} {
		if _, err := kv.Put(ctx, key, []byte(val)); err != nil {
			t.Fatal(err)
		}
	}
	for tool, code := range map[string]Code{"ref": CodeSchema, "junk": CodeInvalid, "other": CodeInvalid} {
		if _, err := c.Get(ctx, "s", tool); CodeOf(err) != code {
			t.Errorf("%s: %v, want %s", tool, err, code)
		}
	}
}
