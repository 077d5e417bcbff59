package wire

import "testing"

func TestCheckToken(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"acme", true}, {"tenant_1-prod", true}, {"", false}, {"a.b", false}, {"*", false}, {">", false},
		{"a b", false}, {"é", false}, {string(make([]byte, 65)), false}, {"x123456789012345678901234567890123456789012345678901234567890123"[:64], true},
	} {
		if got := CheckToken(tc.in) == nil; got != tc.ok {
			t.Errorf("CheckToken(%q) ok=%v, want %v", tc.in, got, tc.ok)
		}
		want := tc.in
		if !tc.ok {
			want = InvalidToken
		}
		if got := TokenOr(tc.in); got != want {
			t.Errorf("TokenOr(%q) = %q, want %q", tc.in, got, want)
		}
	}
}

func TestParseRaw(t *testing.T) {
	te, se, k, err := ParseRaw(Subject(RawPrefix, "acme", "files", "tool-result"))
	if err != nil || te != "acme" || se != "files" || k != "tool-result" {
		t.Fatalf("ParseRaw = %q %q %q %v", te, se, k, err)
	}
	for _, bad := range []string{"mcp.raw.acme.files", "mcp.clean.a.b.tool-result", "mcp.raw.a.b.c.d", "mcp.raw.a!.b.tool-result"} {
		if _, _, _, err := ParseRaw(bad); err == nil {
			t.Errorf("ParseRaw(%q) accepted", bad)
		}
	}
}

func TestKindForMethod(t *testing.T) {
	for _, tc := range []struct {
		method string
		want   Kind
	}{
		{MethodToolsCall, KindToolResult},
		{MethodResourcesRead, KindResourceResult},
		{MethodPromptsGet, KindPromptResult},
		{MethodCompletionComplete, KindCompletionResult},
		{MethodElicitationCreate, KindElicitationRequest},
		{"", KindGeneric},
		{"vendor/unknown", KindGeneric},
	} {
		if got := KindForMethod(tc.method); got != tc.want {
			t.Errorf("KindForMethod(%q) = %q, want %q", tc.method, got, tc.want)
		}
	}
	if len(KnownMethods()) == 0 {
		t.Fatal("KnownMethods is empty")
	}
}
