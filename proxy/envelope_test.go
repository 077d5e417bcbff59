package proxy

import (
	"encoding/json"
	"testing"
)

func TestPeek(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		typ      msgType
		id       string
		method   string
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, msgRequest, `1`, "tools/list"},
		{"request string id last", `{"jsonrpc":"2.0","method":"ping","params":{"a":"}"},"id":"x\"y"}`, msgRequest, `"x\"y"`, "ping"},
		{"notification", ` {"jsonrpc":"2.0","method":"notifications/message","params":{}} `, msgNotification, ``, "notifications/message"},
		{"null id is a notification", `{"jsonrpc":"2.0","id":null,"method":"m"}`, msgNotification, ``, "m"},
		{"response", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"]}"}]}}`, msgResponse, `7`, ""},
		{"error response", `{"jsonrpc":"2.0","id":7,"error":{"code":1}}`, msgResponse, `7`, ""},
		{"escaped key", `{"jsonrpc":"2.0","\u0069d":3,"result":{}}`, msgResponse, `3`, ""},
		{"method and result", `{"jsonrpc":"2.0","id":1,"method":"m","result":{}}`, msgInvalid, `1`, "m"},
		{"neither", `{"jsonrpc":"2.0","id":1}`, msgInvalid, `1`, ""},
		{"array", `[{"jsonrpc":"2.0","id":1,"result":{}}]`, msgInvalid, ``, ""},
		{"truncated", `{"jsonrpc":"2.0","id":1,"result":{"a":`, msgInvalid, ``, ""},
		{"trailing data", `{"jsonrpc":"2.0","id":1,"result":{}} x`, msgInvalid, `1`, ""},
		{"unterminated string", `{"jsonrpc":"2.0","id":"1`, msgInvalid, ``, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := peek([]byte(tc.in))
			if e.typ != tc.typ || (e.typ != msgInvalid && (string(e.id) != tc.id || e.method != tc.method)) {
				t.Fatalf("peek = %d id %s method %q; want %d id %s method %q", e.typ, e.id, e.method, tc.typ, tc.id, tc.method)
			}
		})
	}
}

func TestIDKey(t *testing.T) {
	a, _ := idKey([]byte(`"1"`))
	b, _ := idKey([]byte(`1`))
	c, _ := idKey([]byte(`"\u0031"`))
	if a == b || a != c {
		t.Fatalf("keys %q %q %q", a, b, c)
	}
	if _, ok := idKey([]byte(`{}`)); ok {
		t.Fatal("an object is an id")
	}
}

func TestReplaceID(t *testing.T) {
	for _, tc := range []struct{ in, id, want string }{
		{`{"jsonrpc":"2.0","id":"ab","result":{}}`, `"a\u200bb"`, `{"jsonrpc":"2.0","id":"a\u200bb","result":{}}`},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32603}}`, `42`, `{"jsonrpc":"2.0","id":42,"error":{"code":-32603}}`},
		{`{"jsonrpc":"2.0","id":5,"result":{}}`, `5`, `{"jsonrpc":"2.0","id":5,"result":{}}`},
		{`{"jsonrpc":"2.0","method":"m"}`, `5`, `{"jsonrpc":"2.0","method":"m"}`},
	} {
		if got := string(replaceID([]byte(tc.in), []byte(tc.id))); got != tc.want {
			t.Errorf("replaceID(%s, %s) = %s", tc.in, tc.id, got)
		}
	}
}

func TestHeadID(t *testing.T) {
	id, m := headID([]byte(`{"jsonrpc":"2.0","id":12,"method":"sampling/createMessage","params":{"systemPrompt":"aaaa`))
	if string(id) != "12" || m != "sampling/createMessage" {
		t.Fatalf("headID = %s %q", id, m)
	}
	id, _ = headID([]byte(`{"jsonrpc":"2.0","result":{"x":"aaa`))
	if id != nil {
		t.Fatalf("an id from nowhere: %s", id)
	}
}

func TestSplitBatch(t *testing.T) {
	got := splitBatch([]byte(` [ {"a":[1,2]} , {"b":"]"} ]`))
	if len(got) != 2 || string(got[0]) != `{"a":[1,2]}` || string(got[1]) != `{"b":"]"}` {
		t.Fatalf("splitBatch = %q", got)
	}
}

// FuzzPeek: peek, headID, splitBatch and replaceID never panic, and on a
// message that encoding/json reads as one object, peek's id is the one
// encoding/json reads (when the key is not repeated).
func FuzzPeek(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"a","result":{"x":["]",{"}":1}]}}`,
		`{"jsonrpc":"2.0","method":"n","params":{"a":"\"}"}}`,
		`[{"id":1},{"id":2}]`, `{"\u0069d":1,"error":{}}`, `{`, `"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e := peek(b)
		headID(b)
		splitBatch(b)
		replaceID(b, []byte(`1`))
		var m map[string]json.RawMessage
		if e.typ == msgInvalid || json.Unmarshal(b, &m) != nil || m["id"] == nil || string(m["id"]) == "null" {
			return
		}
		var n int
		topMembers(b, func(k, _ []byte) bool {
			if string(k) == "id" {
				n++
			}
			return true
		})
		if n == 1 && string(e.id) != string(m["id"]) {
			t.Fatalf("peek id %s, encoding/json %s", e.id, m["id"])
		}
	})
}
