package resuri

import (
	"errors"
	"testing"
)

// rfcVars are the variables of RFC 6570 section 3.2.
var rfcVars = map[string]any{
	"count": []string{"one", "two", "three"},
	"dom":   []string{"example", "com"},
	"dub":   "me/too",
	"hello": "Hello World!",
	"half":  "50%",
	"var":   "value",
	"who":   "fred",
	"base":  "http://example.com/home/",
	"path":  "/foo/bar",
	"list":  []string{"red", "green", "blue"},
	"keys":  map[string]string{"semi": ";", "dot": ".", "comma": ","},
	"v":     "6",
	"x":     "1024",
	"y":     "768",
	"empty": "",
}

// TestExpandRFC6570 checks expansion against examples of RFC 6570 (keys are
// taken in sorted order, one of the orders the RFC allows).
func TestExpandRFC6570(t *testing.T) {
	p := testParser(t)
	for _, c := range []struct{ tmpl, want string }{
		{"{var}", "value"},
		{"{hello}", "Hello%20World%21"},
		{"{half}", "50%25"},
		{"{+path}/here", "/foo/bar/here"},
		{"{+hello}", "Hello%20World!"},
		{"{#var}", "#value"},
		{"{#hello}", "#Hello%20World!"},
		{"{x,y}", "1024,768"},
		{"{+x,hello,y}", "1024,Hello%20World!,768"},
		{"{.dom*}", ".example.com"},
		{"{/var,x}/here", "/value/1024/here"},
		{"{;x,y,empty}", ";x=1024;y=768;empty"},
		{"{?x,y,empty}", "?x=1024&y=768&empty="},
		{"?fixed=yes{&x}", "?fixed=yes&x=1024"},
		{"{var:3}", "val"},
		{"{list}", "red,green,blue"},
		{"{list*}", "red,green,blue"},
		{"{/list*,path:4}", "/red/green/blue/%2Ffoo"},
		{"{keys}", "comma,%2C,dot,.,semi,%3B"},
		{"{keys*}", "comma=%2C,dot=.,semi=%3B"},
		{"{?keys*}", "?comma=%2C&dot=.&semi=%3B"},
		{"{;list*}", ";list=red;list=green;list=blue"},
		{"{undef}", ""},
		{"X{.var}", "X.value"},
	} {
		tm, err := parseTemplateNoCheck(c.tmpl)
		if err != nil {
			t.Fatalf("%s: %v", c.tmpl, err)
		}
		got, ok := tm.ExpandString(rfcVars, p.maxLen)
		if !ok || got != c.want {
			t.Errorf("expand %s = %q, want %q", c.tmpl, got, c.want)
		}
	}
}

// parseTemplateNoCheck parses a template fragment for expansion tests,
// without the rule that scheme and authority be literal.
func parseTemplateNoCheck(s string) (*Template, error) {
	p, _ := New(Options{Schemes: []Scheme{{Name: "t", Kind: KindCustom}}})
	t, err := p.ParseTemplate("t://a/" + s)
	if err != nil {
		return nil, err
	}
	t.parts[0].lit = t.parts[0].lit[len("t://a/"):]
	return t, nil
}

func TestTemplateChecksAfterExpansion(t *testing.T) {
	p := testParser(t)
	for _, c := range []struct {
		name, tmpl string
		vars       map[string]any
		want       Reason // "" accepted
		canonical  string
	}{
		{"plain", "aidefend-file://docs/{name}", map[string]any{"name": "intro.md"}, "", "aidefend-file://docs/intro.md"},
		{"path segments", "aidefend-file://docs{/dir*}", map[string]any{"dir": []string{"a", "b.txt"}}, "", "aidefend-file://docs/a/b.txt"},
		{"simple encodes slash", "aidefend-file://docs/{name}", map[string]any{"name": "../etc/passwd"}, ReasonEncodedSeparator, ""},
		{"simple dot-dot", "aidefend-file://docs/{name}/x", map[string]any{"name": ".."}, ReasonDotSegment, ""},
		{"reserved traversal", "aidefend-file://docs/{+path}", map[string]any{"path": "a/../../etc"}, ReasonDotSegment, ""},
		{"reserved passes escapes", "aidefend-file://docs/{+path}", map[string]any{"path": "a%2fb"}, ReasonEncodedSeparator, ""},
		{"reserved double encoding", "aidefend-file://docs/{+path}", map[string]any{"path": "%252e%252e"}, ReasonDoubleEncoding, ""},
		{"path op with dot-dot", "aidefend-file://docs{/p*}", map[string]any{"p": []string{"a", ".."}}, ReasonDotSegment, ""},
		{"fragment op", "aidefend-file://docs/a{#f}", map[string]any{"f": "x"}, ReasonQueryOrFragment, ""},
		{"query op on alias scheme", "aidefend-file://docs/a{?q}", map[string]any{"q": "x"}, ReasonQueryOrFragment, ""},
		{"empty value", "aidefend-file://docs/{name}", map[string]any{"name": ""}, ReasonEmptySegment, ""},
		{"undefined value", "aidefend-file://docs/{name}", map[string]any{}, ReasonEmptySegment, ""},
		{"unicode lookalike", "aidefend-file://docs/{name}", map[string]any{"name": "\uff0e\uff0e"}, ReasonLookalike, ""},
		{"not NFC", "aidefend-file://docs/{name}", map[string]any{"name": "e\u0301"}, ReasonNotNFC, ""},
		{"bad value type", "aidefend-file://docs/{name}", map[string]any{"name": 3}, ReasonTemplate, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm, err := p.ParseTemplate(c.tmpl)
			if err != nil {
				t.Fatal(err)
			}
			u, err := p.Expand(tm, c.vars)
			if c.want == "" {
				if err != nil || u.Canonical != c.canonical {
					t.Fatalf("Expand = %q, %v; want %q", u.Canonical, err, c.canonical)
				}
				return
			}
			if !errors.Is(err, &Error{Reason: c.want}) {
				t.Fatalf("Expand = %q, %v; want %s", u.Canonical, err, c.want)
			}
		})
	}
}

func TestParseTemplateRejects(t *testing.T) {
	p := testParser(t)
	for _, c := range []struct {
		name, tmpl string
		want       Reason
	}{
		{"expression in scheme", "{s}://docs/a", ReasonTemplate},
		{"expression in authority", "aidefend-file://{root}/a", ReasonTemplate},
		{"authority partly expression", "aidefend-file://docs{x}/a", ReasonTemplate},
		{"no path", "aidefend-file://docs", ReasonTemplate},
		{"unknown scheme", "gopher://docs/{a}", ReasonScheme},
		{"unclosed", "aidefend-file://docs/{a", ReasonTemplate},
		{"stray close", "aidefend-file://docs/a}", ReasonTemplate},
		{"empty expression", "aidefend-file://docs/{}", ReasonTemplate},
		{"reserved operator", "aidefend-file://docs/{=a}", ReasonTemplate},
		{"bad varname", "aidefend-file://docs/{a-b}", ReasonTemplate},
		{"bad prefix", "aidefend-file://docs/{a:0}", ReasonTemplate},
		{"prefix too long", "aidefend-file://docs/{a:10000}", ReasonTemplate},
		{"space literal", "aidefend-file://docs/a b/{x}", ReasonTemplate},
		{"backslash literal", "aidefend-file://docs/a\\{x}", ReasonTemplate},
	} {
		if _, err := p.ParseTemplate(c.tmpl); !errors.Is(err, &Error{Reason: c.want}) {
			t.Errorf("%s: ParseTemplate(%q) = %v, want %s", c.name, c.tmpl, err, c.want)
		}
	}
}
