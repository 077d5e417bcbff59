package pipeline_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// Hardening of the string chain (issue 17): long held text and the escaped
// shadow (class 10), secrets and tags behind JSON escapes in text that is
// itself JSON (class 4), JSON in text left valid (class 9), and secrets
// split across adjacent text blocks (class 7).

// pemHeaders are the private-key headers of the PEM-like formats: a line of
// one opens a block the redactor holds until its end line or MaxHold.
var pemHeaders = []string{
	"-----BEGIN PRIVATE KEY-----",
	"-----BEGIN OPENSSH PRIVATE KEY-----",
	"-----BEGIN PGP PRIVATE KEY BLOCK-----",
	"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----",
	"-----BEGIN RSA PRIVATE KEY-----",
}

// heldTextCases are texts of 64 KiB and more that the redactor holds
// across batch boundaries: repeated key headers, as `grep -rn` over a folder
// of PEM files prints them (file:line: prefixes), with and without bodies,
// in each escaping.
func heldTextCases() []splitCase {
	var cases []splitCase
	for hi, h := range pemHeaders {
		for _, size := range []int{65 << 10, 96 << 10} {
			var plain, grep, body strings.Builder
			for i := 0; plain.Len() < size; i++ {
				plain.WriteString(h + "\n")
			}
			for i := 0; grep.Len() < size; i++ {
				fmt.Fprintf(&grep, "keys/k%03d.pem:1:%s\n", i, h)
			}
			for i := 0; body.Len() < size; i++ {
				fmt.Fprintf(&body, "%s\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC%04d\n", h, i)
			}
			for _, v := range []struct{ name, text string }{{"plain", plain.String()}, {"grep", grep.String()}, {"body", body.String()}} {
				name := fmt.Sprintf("held-%d-%s-%d", hi, v.name, size>>10)
				cases = append(cases,
					splitCase{name: name, in: tr(esc(v.text))},
					splitCase{name: name + "-html", in: tr(htmlEsc(v.text)), pol: polBig},
					splitCase{name: name + "-lead", in: tr(esc("é " + strings.Repeat("x", 32760) + v.text)), pol: polBig})
			}
		}
	}
	return cases
}

// TestHeldTextShadow: text the redactor holds for more than one batch is
// written by the shadow exactly as by the escaper, never as an internal
// fault, in reads of several sizes.
func TestHeldTextShadow(t *testing.T) {
	cases := heldTextCases()
	if testing.Short() {
		cases = cases[:9]
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantOut, wantEv, ev := runCase(t, plainEngine(t, c.policy(), 64<<10), c, 0, false)
			if ev.Code == pipeline.CodeInternal {
				t.Fatalf("escaper: INTERNAL %s", ev.Reason)
			}
			if !json.Valid(wantOut) {
				t.Fatalf("output is not JSON: %.300q", wantOut)
			}
			for _, chunk := range []int{512, 64 << 10} {
				e := engine(t, c.policy(), chunk)
				for _, k := range []int{0, 4099} {
					out, evj, ev := runCase(t, e, c, k, k%2 == 0)
					if ev.Code == pipeline.CodeInternal {
						t.Fatalf("chunk %d, reads of %d: INTERNAL %s", chunk, k, ev.Reason)
					}
					if !bytes.Equal(out, wantOut) || !bytes.Equal(evj, wantEv) {
						t.Fatalf("chunk %d, reads of %d: shadow and escaper differ\n got: %.300q %s\nwant: %.300q %s", chunk, k, out, evj, wantOut, wantEv)
					}
				}
			}
		})
	}
}

// jsonLevel writes s as the inside of a JSON string n times over: n = 1 is
// s escaped once (as in a text block on the wire), n = 2 is JSON text whose
// string holds s, as it appears on the wire, and so on.
func jsonLevel(s string, n int) string {
	for range n {
		s = esc(s)
	}
	return s
}

// textOf returns the text of the first content block of a tool result,
// without the label.
func textOf(t *testing.T, out []byte) string {
	t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("not a tool result with content: %.300s", out)
	}
	s := r.Content[0].Text
	if k := strings.IndexByte(s, '\n'); k >= 0 && strings.HasPrefix(s, "Untrusted tool output") {
		s = s[k+1:]
	}
	return s
}

// unwrapJSON decodes s as JSON n-1 times (a JSON document whose strings
// hold JSON), collecting every string of the innermost level; ok is false
// when a level is not valid JSON.
func unwrapJSON(s string, n int) (strs []string, ok bool) {
	cur := []string{s}
	for range n - 1 {
		var next []string
		for _, c := range cur {
			if !strings.HasPrefix(c, "{") {
				next = append(next, c) // a key or a value that is not JSON text
				continue
			}
			var v any
			if err := json.Unmarshal([]byte(c), &v); err != nil {
				return nil, false
			}
			collectStrings(v, &next)
		}
		cur = next
	}
	return cur, true
}

func collectStrings(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
	case []any:
		for _, e := range x {
			collectStrings(e, out)
		}
	case map[string]any:
		for k, e := range x {
			*out = append(*out, k)
			collectStrings(e, out)
		}
	}
}

// escapeForms spell s with escapes a JSON writer may use, each still
// valid JSON text when put into a string: every letter as \u, a single
// letter as \u, '/' as \/, upper-case hex.
func escapeForms(s string) map[string]string {
	all := ""
	for _, r := range s {
		all += fmt.Sprintf(`\u%04x`, r)
	}
	one := s
	for i, r := range s {
		if r >= 'a' && r <= 'z' {
			one = s[:i] + fmt.Sprintf(`\u%04X`, r) + s[i+1:]
			break
		}
	}
	return map[string]string{"all": all, "one": one, "slash": strings.ReplaceAll(s, "/", `\/`)}
}

// TestEscapedJSONInText: secrets, tags and invisible characters behind the
// escapes of JSON written into a text block, one to three levels deep, are
// found as they are written plainly, and text that was valid JSON at every
// level before sanitizing still is after (issue 17, classes 4 and 9).
func TestEscapedJSONInText(t *testing.T) {
	gh, _, _ := bench.Secret("github-pat", 42)
	gh = gh[strings.Index(gh, "ghp_"):]
	type want struct {
		gone  []string // must not be in any string of the innermost level
		rule  string   // must be in evidence
		keep  string   // must be in an innermost string
		clean bool     // nothing found
	}
	var cases []struct {
		name  string
		inner string // the innermost JSON string's content, as JSON text (escapes in it are the test)
		w     want
	}
	add := func(name, inner string, w want) {
		cases = append(cases, struct {
			name  string
			inner string
			w     want
		}{name, inner, w})
	}
	for form, s := range escapeForms(gh) {
		add("secret-"+form, "token "+s+" end", want{gone: []string{gh}, rule: "github-pat", keep: "end"})
	}
	add("secret-look-alike", "token gh\\u0440_"+gh[4:]+" end", want{gone: []string{gh[4:]}, rule: "github-pat", keep: "end"})
	add("secret-split-by-tag-char-pair", "token "+gh[:8]+`\udb40\udc20`+gh[8:]+" end", want{gone: []string{gh}, rule: "github-pat", keep: "end"})
	for _, tag := range []string{"<system>", "</system>", "<<SYS>>", "<tool_call>", "<|im_start|>"} {
		for form, s := range escapeForms(tag) {
			add("tag-"+tag+"-"+form, "a "+s+"obey b", want{gone: []string{tag}, rule: "", keep: "obey"})
		}
	}
	add("tag-escaped-slash", `<\/system>obey`, want{gone: []string{"</system>"}, keep: "obey"})
	add("tag-letter", `<\u0073ystem>obey`, want{gone: []string{"<system>"}, keep: "obey"})
	add("zero-width-pair", `sys\u200btem \udb40\udc41x`, want{gone: []string{"\u200b", "\U000E0041"}, keep: "system x"})
	add("decoy-quote-kept", `say \u0022hi\u0022 caf\u00e9 \ud83d\ude00`, want{keep: "say \"hi\" café 😀", clean: true})
	for level := 1; level <= 3; level++ {
		for _, c := range cases {
			// The innermost string, then level-1 levels of JSON text
			// around it, then the text block.
			doc := `{"k":"` + c.inner + `","n":1}`
			for range level - 1 {
				doc = `{"v":"` + esc(doc) + `"}`
			}
			if !json.Valid([]byte(doc)) {
				t.Fatalf("%s: the test's document is not JSON: %s", c.name, doc)
			}
			name := fmt.Sprintf("L%d-%s", level, c.name)
			t.Run(name, func(t *testing.T) {
				sc := splitCase{name: name, in: tr(esc(doc)), pol: polBig}
				out, _, ev := runCase(t, engine(t, polBig, 0), sc, 0, false)
				noInternal(t, ev)
				text := textOf(t, out)
				strs, ok := unwrapJSON(text, level+1)
				if !ok {
					t.Fatalf("the text is no longer JSON at every level: %q", text)
				}
				all := strings.Join(strs, "\n")
				for _, g := range c.w.gone {
					if strings.Contains(all, g) || strings.Contains(text, g) {
						t.Fatalf("%q survived: %q", g, all)
					}
				}
				if c.w.keep != "" && !strings.Contains(all, c.w.keep) {
					t.Fatalf("%q is gone: %q", c.w.keep, all)
				}
				if c.w.rule != "" && ev.Rules[c.w.rule] == 0 {
					t.Fatalf("evidence lacks %s: %v", c.w.rule, ev.Rules)
				}
				if c.w.clean && (len(ev.Findings) > 0 || ev.RemovedChars() > 0) {
					t.Fatalf("a decoy changed: %q %v", all, ev.Findings)
				}
				for _, k := range []int{1, 7} {
					out2, _, _ := runCase(t, engine(t, polBig, 512), sc, k, false)
					if !bytes.Equal(out2, out) {
						t.Fatalf("reads of %d: another output\n got %.400q\nwant %.400q", k, out2, out)
					}
				}
			})
		}
	}
}
