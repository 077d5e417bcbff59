package peertest_test

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestPlantedFound: the planted check sees each kind of planted item,
// in text, in keys and in decoded binary data, and nothing in clean text.
func TestPlantedFound(t *testing.T) {
	p := newPlanted()
	pat := p.secrets["github-pat"]
	for _, tc := range []struct {
		name, msg, want string
	}{
		{"clean", `{"a":"café [REDACTED:github-pat] 👩\u200d💻"}`, ""},
		{"secret in text", `{"a":"x ` + pat + `"}`, "secret github-pat"},
		{"secret in a key", `{"` + pat + `":1}`, "secret github-pat"},
		{"secret in a blob", `{"blob":"` + base64.StdEncoding.EncodeToString([]byte("k="+pat)) + `"}`, "secret github-pat"},
		{"tag", `{"a":"<SYSTEM>"}`, "tag <system>"},
		{"invisible", `{"a":"a\u200bb"}`, "character U+200B"},
		{"escape", `{"a":"\u001b[31m"}`, "character U+001B"},
	} {
		got := strings.Join(p.found([]byte(tc.msg)), ", ")
		if got != tc.want {
			t.Errorf("%s: found %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestFrame: the stack-frame detector of checkErrorText matches frames and
// not times of day or ratios.
func TestFrame(t *testing.T) {
	for s, want := range map[string]bool{
		"    at readFile (/srv/app/dist/index.js:12:5)": true,
		"at file:///srv/a.mjs:1:2":                      true,
		`  File "/srv/app.py", line 3, in main`:         true,
		"goroutine 1 [running]:":                        true,
		"main.go:42 boom":                               true,
		"created at 12:02:31 AM":                        false,
		"expected number, received string at a":         false,
	} {
		if frame.MatchString(s) != want {
			t.Errorf("frame.MatchString(%q) = %v", s, !want)
		}
	}
}
