package pipeline

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/resgate"
	"github.com/mcp-sanitize/mcp-sanitize/resuri"
)

// templatesPolicy guards resources: the docs root, file:///srv/project
// and https://docs.example.com.
func templatesPolicy() *Policy {
	pol := DefaultPolicy()
	pol.Version = "tpl-1"
	pol.Resources = &resgate.Policy{
		Schemes: []resuri.Scheme{{Name: "aidefend-file", Kind: resuri.KindRoot}, {Name: "file", Kind: resuri.KindFile},
			{Name: "https", Kind: resuri.KindHTTPS, Hosts: []string{"docs.example.com"}, AllowQuery: true}},
		Roots:              map[string]resgate.Root{"docs": {RootID: "root-docs", MIMEType: "text/markdown"}},
		FileRoots:          map[string]resgate.Root{"/srv/project": {RootID: "root-project", MIMEType: "text/plain"}},
		AdapterBuildSha256: guardAdapter,
	}
	return pol
}

// TestTemplatesListGuard: each uriTemplate of a resources/templates/list
// result is checked against the resources policy after expansion; the
// ones it would refuse are dropped, the rest kept, the result stays a
// valid ListResourceTemplatesResult of the official schema, and evidence
// names the dropped ones by index, name and reason.
func TestTemplatesListGuard(t *testing.T) {
	official := example(t, "ListResourceTemplatesResultResponse")
	sc := mcpSchema(t, "2026-07-28", "ListResourceTemplatesResultResponse")
	info := MessageInfo{Kind: KindResourceTemplatesList}
	withTemplates := func(tpls ...string) string {
		var m map[string]any
		json.Unmarshal([]byte(official), &m)
		item := m["result"].(map[string]any)["resourceTemplates"].([]any)[0].(map[string]any)
		var list []any
		for i, tp := range tpls {
			c := map[string]any{}
			for k, v := range item {
				c[k] = v
			}
			c["uriTemplate"] = tp
			c["name"] = "t" + strings.Repeat("x", i)
			list = append(list, c)
		}
		m["result"].(map[string]any)["resourceTemplates"] = list
		b, _ := json.Marshal(m)
		return string(b)
	}
	cases := []struct {
		name   string
		pol    *Policy
		in     string
		kept   []string
		reason []string // of the dropped, in order
	}{
		{"official, no resources policy", DefaultPolicy(), official, []string{"file:///{path}"}, nil},
		// file:///{path} can only name a file at the top of the file
		// system (a simple expansion encodes "/"): no file root.
		{"official, resources policy", templatesPolicy(), official, nil, []string{"uri-unknown-root"}},
		{"official under a file root", templatesPolicy(), withTemplates("file:///srv/project/{path}"), []string{"file:///srv/project/{path}"}, nil},
		{"kept and poisoned variants", templatesPolicy(), withTemplates(
			"aidefend-file://docs/guide/{page}",
			"https://docs.example.com/api/{+path}{?q}",
			"file:///srv/project/../../etc/{name}",
			"file:///srv/project/%2e%2e/{name}",
			"file:///srv/project/a%2Fb/{name}",
			"file:///srv/project/a%252e%252e/{name}",
			"aidefend-file://{alias}/x",
			"aidefend-file://other/{page}",
			"https://evil.example/{page}",
			"gopher://docs/{page}",
			"AIDEFEND-FILE://Docs/guide/{page}",
			"file:///srv/project/{path",
			"file:///srv/project\\etc/{x}",
			"https://docs.example.com/{page}#{frag}",
		), []string{"aidefend-file://docs/guide/{page}", "https://docs.example.com/api/{+path}{?q}", "AIDEFEND-FILE://Docs/guide/{page}"},
			[]string{"uri-dot-segment", "uri-dot-segment", "uri-encoded-separator", "uri-double-encoding", "uri-template", "uri-unknown-root",
				"uri-unknown-root", "uri-scheme", "uri-template", "uri-template", "uri-query-or-fragment"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, ev := run(t, c.pol, info, c.in)
			if ev.Outcome == OutcomeRejected {
				t.Fatalf("list rejected: %s %s", ev.Reason, out)
			}
			var m struct {
				Result struct {
					Templates []struct {
						URITemplate string `json:"uriTemplate"`
					} `json:"resourceTemplates"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatal(err)
			}
			var kept []string
			for _, x := range m.Result.Templates {
				kept = append(kept, x.URITemplate)
			}
			if strings.Join(kept, " ") != strings.Join(c.kept, " ") {
				t.Fatalf("kept %q, want %q", kept, c.kept)
			}
			var doc any
			json.Unmarshal([]byte(out), &doc)
			if err := sc.Validate(doc); err != nil {
				t.Fatalf("output is not a ListResourceTemplatesResultResponse: %v\n%s", err, out)
			}
			var reasons []string
			if ev.Guard != nil {
				for _, d := range ev.Guard.Dropped {
					reasons = append(reasons, d.Reason)
				}
			}
			if strings.Join(reasons, " ") != strings.Join(c.reason, " ") {
				t.Fatalf("dropped reasons %q, want %q", reasons, c.reason)
			}
			if len(c.reason) > 0 && ev.Outcome != OutcomeSanitized {
				t.Fatalf("outcome %s with templates dropped", ev.Outcome)
			}
			j := string(ev.AppendJSON(nil))
			for _, leak := range []string{"etc", "evil", "srv"} {
				if strings.Contains(j, leak) {
					t.Fatalf("evidence holds %q: %s", leak, j)
				}
			}
		})
	}
}

// FuzzTemplatesListPolicy: templates list results with fuzzed
// uriTemplates under a resources policy: never a fault of ours, valid
// JSON out, every template delivered is one the policy accepts, and
// kept plus dropped is what came in.
func FuzzTemplatesListPolicy(f *testing.F) {
	for _, s := range []string{"aidefend-file://docs/{p}\xfffile:///srv/project/../{x}\xffhttps://docs.example.com/{+q}",
		"file:///{path}\xffaidefend-file://{a}/b\xff{x}", "https://docs.example.com/a%2f{x}\xff\xff"} {
		f.Add([]byte(s))
	}
	e, err := NewEngine(templatesPolicy())
	if err != nil {
		f.Fatal(err)
	}
	uris := e.guards.res.URIs()
	f.Fuzz(func(t *testing.T, raw []byte) {
		s := fuzzStrings(raw)
		in := `{"jsonrpc":"2.0","id":1,"result":{"resourceTemplates":[{"uriTemplate":"` + s[0] + `","name":"a"},{"uriTemplate":"` + s[1] +
			`","name":"b"},{"uriTemplate":"` + s[2] + `","name":"c"}]}}`
		var out Buffer
		ev, err := e.Sanitize(context.Background(), strings.NewReader(in), &out, MessageInfo{Kind: KindResourceTemplatesList})
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(out.Bytes()) {
			t.Fatalf("invalid JSON out: %q", out.Bytes())
		}
		if ev.Code == CodeInternal {
			t.Fatalf("internal fault: %s", ev.Reason)
		}
		if ev.Outcome == OutcomeRejected {
			return
		}
		var m struct {
			Result struct {
				Templates []struct {
					URITemplate string `json:"uriTemplate"`
				} `json:"resourceTemplates"`
			} `json:"result"`
		}
		if err := json.Unmarshal(out.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		dropped := 0
		if ev.Guard != nil {
			dropped = len(ev.Guard.Dropped)
		}
		if len(m.Result.Templates)+dropped != 3 {
			t.Fatalf("%d kept, %d dropped of 3", len(m.Result.Templates), dropped)
		}
		for _, x := range m.Result.Templates {
			if r := templateRefusal(uris, x.URITemplate); r != "" {
				t.Fatalf("delivered %q, which the policy refuses (%s)", x.URITemplate, r)
			}
		}
	})
}
