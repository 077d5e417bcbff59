package strictjson

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

type umInner struct {
	Subject  string `json:"subject"`
	ClientID string `json:"clientId"`
}

type umBase struct {
	Base string `json:"base"`
}

type umDoc struct {
	umBase
	Identity umInner            `json:"identity"`
	Ptr      *umInner           `json:"ptr,omitempty"`
	List     []umInner          `json:"list,omitempty"`
	ByID     map[string]umInner `json:"byId,omitempty"`
	Raw      json.RawMessage    `json:"raw,omitempty"`
	Bytes    []byte             `json:"bytes,omitempty"`
	When     time.Time          `json:"when,omitzero"`
	Any      any                `json:"any,omitempty"`
	N        int                `json:"n,omitempty"`
	Untagged string
	Skipped  string `json:"-"`
	hidden   string //nolint:unused // an unexported field has no member name
}

func TestUnmarshalReasons(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want Reason // 0: accepted
	}{
		{"all-members", `{"base":"b","identity":{"subject":"u","clientId":"c"},"ptr":{"subject":"p"},"list":[{"subject":"l"}],"byId":{"Any-Key":{"clientId":"m"}},"raw":{"Free":{"Form":1}},"bytes":"AQI=","when":"2026-12-01T10:00:00Z","any":{"X":1},"n":3,"Untagged":"u"}`, 0},
		{"empty", `{}`, 0},
		{"null-members", `{"ptr":null,"list":null,"identity":null}`, 0},
		{"unknown-member", `{"bogus":1}`, UnknownMember},
		{"other-case", `{"Identity":{"subject":"u"}}`, UnknownMember},
		{"other-case-nested", `{"identity":{"Subject":"u"}}`, UnknownMember},
		{"other-case-clientid", `{"identity":{"clientID":"c"}}`, UnknownMember},
		{"other-case-pointer", `{"ptr":{"SUBJECT":"u"}}`, UnknownMember},
		{"other-case-in-slice", `{"list":[{"subject":"a"},{"subjecT":"b"}]}`, UnknownMember},
		{"other-case-in-map", `{"byId":{"k":{"clientid":"c"}}}`, UnknownMember},
		{"other-case-promoted", `{"Base":"b"}`, UnknownMember},
		{"untagged-other-case", `{"untagged":"u"}`, UnknownMember},
		{"skipped-field", `{"Skipped":"s"}`, UnknownMember},
		{"unexported-field", `{"hidden":"h"}`, UnknownMember},
		{"kelvin-sign", `{"identity":{"subject":"u","clientId":"c"},"n":1,"\u212a":1}`, UnknownMember},
		{"duplicate", `{"n":1,"n":2}`, DuplicateKey},
		{"duplicate-escaped", `{"identity":{"subject":"a","\u0073ubject":"b"}}`, DuplicateKey},
		{"duplicate-in-raw", `{"raw":{"a":1,"a":2}}`, DuplicateKey},
		{"invalid-utf8", "{\"identity\":{\"subject\":\"u\xff\"}}", UTF8},
		{"invalid-utf8-name", "{\"identity\":{\"subject\xfe\":\"u\"}}", UTF8},
		{"invalid-utf8-in-raw", "{\"raw\":[\"\xc3\x28\"]}", UTF8},
		{"lone-surrogate", `{"identity":{"subject":"u\ud800"}}`, Surrogate},
		{"number-range", `{"raw":1e999}`, Number},
		{"trailing-data", `{} {}`, Syntax},
		{"not-json", `{`, Syntax},
		{"wrong-type", `{"n":"3"}`, Type},
		{"fraction-for-int", `{"n":1.5}`, Type},
		{"wrong-type-struct", `{"identity":[]}`, Type},
		{"bad-base64", `{"bytes":"!!"}`, Type},
		{"bad-time", `{"when":"yesterday"}`, Type},
		{"too-deep", `{"raw":[[[[[[1]]]]]]}`, Depth},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d umDoc
			err := Unmarshal([]byte(tc.in), 6, &d)
			var e *Error
			switch {
			case tc.want == 0 && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != 0 && (!errors.As(err, &e) || e.Reason != tc.want):
				t.Fatalf("error %v, want reason %d", err, tc.want)
			case err != nil && strings.ContainsAny(err.Error(), "{\"\\"):
				t.Fatalf("the error %q repeats input", err)
			}
		})
	}
}

// What Unmarshal accepts, it decodes as encoding/json does.
func TestUnmarshalSameValue(t *testing.T) {
	in := `{"base":"b","identity":{"subject":"u","clientId":"c"},"ptr":{"subject":"p"},"list":[{"subject":"l"}],"byId":{"k":{"clientId":"m"}},"raw":{"a":[1,2]},"bytes":"AQI=","when":"2026-12-01T10:00:00Z","any":{"x":1},"n":3,"Untagged":"u"}`
	var got, want umDoc
	if err := Unmarshal([]byte(in), 8, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if got.Identity.Subject != "u" || got.ByID["k"].ClientID != "m" || got.Base != "b" || string(got.Raw) != `{"a":[1,2]}` {
		t.Fatalf("decoded %+v", got)
	}
}

func TestUnmarshalTarget(t *testing.T) {
	var d umDoc
	for _, v := range []any{nil, d, (*umDoc)(nil)} {
		if err := Unmarshal([]byte(`{}`), 4, v); err == nil {
			t.Fatalf("%T accepted as a target", v)
		}
	}
}

// Two embedded structs that give the same name at one depth leave it to
// neither (encoding/json ignores it), so the name is unknown.
func TestUnmarshalAmbiguousPromotedName(t *testing.T) {
	type a struct{ X string }
	type b struct{ X string }
	type both struct {
		a
		b
		Y string `json:"y"`
	}
	var v both
	if err := Unmarshal([]byte(`{"y":"1"}`), 4, &v); err != nil {
		t.Fatal(err)
	}
	var e *Error
	if err := Unmarshal([]byte(`{"X":"1"}`), 4, &v); !errors.As(err, &e) || e.Reason != UnknownMember {
		t.Fatalf("ambiguous promoted name: %v", err)
	}
}
