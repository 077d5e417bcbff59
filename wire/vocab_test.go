package wire_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

var (
	kebab     = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	upperSnak = regexp.MustCompile(`^[A-Z0-9]+(_[A-Z0-9]+)*$`)
)

// Every reason is declared once and spelled in kebab-case.
func TestReasonsOneCasing(t *testing.T) {
	seen := map[wire.Reason]bool{}
	for _, r := range wire.Reasons() {
		if !kebab.MatchString(string(r)) {
			t.Errorf("reason %q is not kebab-case", r)
		}
		if seen[r] {
			t.Errorf("reason %q listed twice", r)
		}
		seen[r] = true
	}
	if seen[wire.ReasonNone] {
		t.Error("ReasonNone is listed")
	}
}

// The bounds package spells its limit names itself (it imports nothing of
// ours); each must be a declared reason, since a crossed bound is reported
// with its name as the reason.
func TestBoundNamesAreReasons(t *testing.T) {
	known := map[wire.Reason]bool{}
	for _, r := range wire.Reasons() {
		known[r] = true
	}
	for _, b := range bounds.All() {
		if !known[wire.Reason(b.String())] {
			t.Errorf("bound %q is not a wire.Reason", b.String())
		}
	}
}

// CodeReason of each schema code is the declared reason of scan --jsonl.
func TestCodeReason(t *testing.T) {
	for _, tc := range []struct {
		c wire.Code
		r wire.Reason
	}{
		{wire.CodeSchemaInvalid, wire.ReasonSchemaInvalid},
		{wire.CodeSchemaTooLarge, wire.ReasonSchemaTooLarge},
		{wire.CodeSchemaTooDeep, wire.ReasonSchemaTooDeep},
		{wire.CodeSchemaRefDenied, wire.ReasonSchemaRefDenied},
		{wire.CodeSchemaRefUnresolved, wire.ReasonSchemaRefUnresolved},
		{wire.CodeValueInvalid, wire.ReasonValueInvalid},
		{wire.CodeValueTooDeep, wire.ReasonValueTooDeep},
	} {
		if got := wire.CodeReason(tc.c); got != tc.r {
			t.Errorf("CodeReason(%s) = %q, want %q", tc.c, got, tc.r)
		}
	}
}

var allCodes = []wire.Code{
	wire.CodeInvalidJSON, wire.CodeBoundExceeded, wire.CodeTimeout, wire.CodeOutputTruncated,
	wire.CodeInvalidContent, wire.CodeInternal, wire.CodeSchemaMismatch,
	wire.CodeSchemaMismatchAfterRedaction, wire.CodeSchemaInvalid, wire.CodeToolError,
	wire.CodeInvalidEncoding,
	wire.CodeSchemaTooLarge, wire.CodeSchemaTooDeep, wire.CodeSchemaRefDenied,
	wire.CodeSchemaRefUnresolved, wire.CodeValueInvalid, wire.CodeValueTooDeep,
	wire.CodeToolsInvalid, wire.CodeToolsName, wire.CodeToolsSchema, wire.CodeToolsTooLarge,
	wire.CodeToolsNotFound, wire.CodeToolsUnavailable,
	wire.CodeArgsValid, wire.CodeArgsMalformed, wire.CodeArgsMissing, wire.CodeArgsType,
	wire.CodeArgsUnknownProperty, wire.CodeArgsInvalid, wire.CodeArgsSchemaUnusable,
	wire.CodeArgsUnknownTool, wire.CodeArgsUnavailable,
	wire.CodeResourceUnavailable, wire.CodePromptRefused, wire.CodeCompletionRefused,
}

// Codes are upper snake case and distinct; every public message is one
// sentence or phrase without input placeholders.
func TestCodes(t *testing.T) {
	seen := map[wire.Code]bool{}
	for _, c := range allCodes {
		if !upperSnak.MatchString(string(c)) {
			t.Errorf("code %q is not upper snake case", c)
		}
		if seen[c] {
			t.Errorf("code %q declared twice", c)
		}
		seen[c] = true
		m := c.PublicMessage()
		if m == "" || strings.ContainsAny(m, "%{}\n") {
			t.Errorf("code %s: public message %q", c, m)
		}
	}
	for _, c := range []wire.Code{wire.CodeInternal, wire.CodeOutputTruncated, "NO_SUCH_CODE"} {
		if _, ok := wire.LookupPublicMessage(c); ok {
			t.Errorf("%s has a message of its own", c)
		}
		if c.PublicMessage() != wire.DefaultPublicMessage {
			t.Errorf("%s: %q, want the default", c, c.PublicMessage())
		}
	}
}

func TestKinds(t *testing.T) {
	for _, k := range wire.Kinds() {
		if !kebab.MatchString(string(k)) {
			t.Errorf("kind %q is not kebab-case", k)
		}
		if got, ok := wire.ParseKind(string(k)); !ok || got != k {
			t.Errorf("ParseKind(%q) = %q, %v", k, got, ok)
		}
		if wire.CheckToken(string(k)) != nil {
			t.Errorf("kind %q is not a subject token", k)
		}
	}
	for _, bad := range []string{"", "tool_result", "Tool-Result", "tool-result "} {
		if _, ok := wire.ParseKind(bad); ok {
			t.Errorf("ParseKind(%q) accepted", bad)
		}
	}
}

func TestMetaKey(t *testing.T) {
	if got := wire.MetaKey(wire.MetaGuard); got != "dev.mcp-sanitize/guard" {
		t.Errorf("MetaKey(guard) = %q", got)
	}
}
