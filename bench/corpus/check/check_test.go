package main

import (
	"strings"
	"testing"
)

func TestSurvives(t *testing.T) {
	// The needle is only in the decoded form: \u003c is '<', and a key counts.
	doc := []byte(`{"content":[{"type":"text","text":"a \u003csystem\u003e b"}],"k\u200bey":1,"n":"qq"}`)
	strs, err := Strings(doc)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		needles []string
		want    bool
		path    string
	}{
		{[]string{"<system>"}, true, "/content/0/text"},
		{[]string{`\u003csystem`}, false, ""}, // raw bytes do not count
		{[]string{"\u200b"}, true, "/#key:k\u200bey"},
		{[]string{"absent", "qq"}, true, "/n"},
		{[]string{"absent"}, false, ""},
		{[]string{""}, false, ""},
		{nil, false, ""},
		{[]string{"text"}, true, "/content/0/#key:text"}, // keys too
	}
	for _, c := range cases {
		h, ok := Survives(strs, c.needles)
		if ok != c.want || ok && h.Str.Path != c.path {
			t.Errorf("%q: got %v at %q, want %v at %q", c.needles, ok, h.Str.Path, c.want, c.path)
		}
	}
	if _, err := Strings([]byte(`{"a":1} {"b":2}`)); err == nil {
		t.Error("trailing data accepted")
	}
	if _, err := Strings([]byte(`{"a":`)); err == nil {
		t.Error("truncated JSON accepted")
	}
}

func TestContextMasksNeedle(t *testing.T) {
	strs, _ := Strings([]byte(`{"s":"before TOKEN123 after"}`))
	h, ok := Survives(strs, []string{"TOKEN123"})
	if !ok {
		t.Fatal("not found")
	}
	c := Context(h, 3)
	if strings.Contains(c, "TOKEN123") || c != `"re " «NEEDLE» " af"` {
		t.Errorf("context %s", c)
	}
}

func TestSeedRuleMatches(t *testing.T) {
	// Full-width tag: the seed's NFKC turns it into <system>.
	strs, _ := Strings([]byte(`{"s":"＜ｓｙｓｔｅｍ＞ x\u202e sk-abcdefghijklmnopqrstuvwxyz"}`))
	n := SeedRuleMatches(strs)
	if n[0] != 1 || n[1] != 0 || n[2] != 0 || n[3] != 1 || n[4] != 1 {
		t.Errorf("matches %v", n)
	}
}
