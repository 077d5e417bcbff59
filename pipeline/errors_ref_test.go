package pipeline_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/errsan"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// sanitizedError is the message the reference expects for its tool error
// under mode keep-actionable (no code of the reference policies is mapped
// or has a mode of its own): the written text through the error sanitizer,
// or "" for the default message.
func (r *reference) sanitizedError(t testing.TB) string {
	if r.pol.Errors.Mode == pipeline.ErrorModeGeneric {
		return ""
	}
	marker := r.pol.Rules.SecretMarker
	if marker == "" {
		marker = "[REDACTED:%s]"
	}
	marker = marker[:max(0, strings.Index(marker, "%s"))]
	if len(marker) < 3 {
		marker = ""
	}
	s, err := errsan.New(errsan.Options{MaxBytes: pipeline.MaxErrorTextBytes, MaxInput: refMaxErrText, SecretMarker: marker})
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := s.Sanitize(string(r.errText))
	return msg
}

// withMessage rewrites the default tool error result exp to say text, with
// reason "sanitized".
func withMessage(t testing.TB, exp []byte, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"resultType":"complete","content":[{"type":"text","text":`)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(text)
	b.Truncate(b.Len() - 1)
	b.WriteString(`}],"isError":true,"_meta":`)
	i := bytes.Index(exp, []byte(`"_meta":`))
	meta := exp[i+len(`"_meta":`) : len(exp)-1]
	reason := `"` + pipeline.MetaPrefix + `reason":`
	b.Write(bytes.Replace(meta, []byte(reason+`"unmapped"`), []byte(reason+`"sanitized"`), 1))
	b.WriteByte('}')
	return b.Bytes()
}

// refRPCError applies the rewriting of JSON-RPC error objects to the
// reference's output: the "error" member of the top-level object.
func refRPCError(t testing.TB, e *pipeline.Engine, want any) any {
	m, ok := want.(map[string]any)
	if !ok {
		return want
	}
	v, ok := m["error"]
	if !ok {
		return want
	}
	var held bytes.Buffer
	enc := json.NewEncoder(&held)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("reference error member: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(pipeline.RewriteRPCError(e, bytes.TrimSpace(held.Bytes()))))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("rewritten error member: %v", err)
	}
	m["error"] = out
	return m
}
