package pipeline_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

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
