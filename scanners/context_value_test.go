package scanners

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The reference of the member-name context: the synthetic text
// `"name": "value"` redacted at once by the whole-string reference, matches
// clipped to the value (refRedactSpan).

var refCtxName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// refContextName is contextName by other means: the character set by a
// regexp, the keywords by substring search over every rule's keywords.
func refContextName(cat *Catalog, name string) bool {
	if !refCtxName.MatchString(name) {
		return false
	}
	low := strings.ToLower(`"` + name)
	for _, r := range cat.rules {
		for _, f := range r.forms {
			if f.tokenOnly {
				continue // a prefixed token: the name gives it no context
			}
			for _, kw := range f.keywords {
				if strings.Contains(low, strings.ToLower(kw)) {
					return true
				}
			}
		}
	}
	return false
}

// refRedactContext redacts value as the value of the member called name.
func refRedactContext(cat *Catalog, opts CatalogOptions, key []byte, name, value string) (string, []Finding) {
	if !refContextName(cat, name) {
		return refRedact(cat, opts, key, value)
	}
	pre := `"` + name + `": "`
	return refRedactSpan(cat, opts, key, pre+value+`"`, 0, len(pre), len(pre)+len(value))
}

// redactCutsContext is redactCuts after ResetWithContext(name).
func redactCutsContext(t testing.TB, r *Redactor, name, s string, cuts []int) (string, []Finding) {
	t.Helper()
	r.ResetWithContext([]byte(name))
	if r.Held() > MaxHold {
		t.Fatalf("held %d bytes > MaxHold", r.Held())
	}
	var dst []byte
	var fs []Finding
	prev := 0
	for _, c := range cuts {
		if c < prev || c > len(s) {
			continue
		}
		checkReleased(t, r, s, c, false, func() { dst, fs = r.Append(dst, []byte(s[prev:c]), false, fs) }, &dst)
		if r.Held() > MaxHold {
			t.Fatalf("held %d bytes > MaxHold", r.Held())
		}
		prev = c
	}
	checkReleased(t, r, s, len(s), true, func() { dst, fs = r.Append(dst, []byte(s[prev:]), true, fs) }, &dst)
	return string(dst), fs
}

// contextNames are member names for the context tests: qualifying names of
// every kind (assignment, provider, docker auth, a keyword in the middle, the
// longest allowed) and names that do not qualify.
func contextNames() []string {
	return []string{
		"password", "client_secret", "api_key", "DD_API_KEY", "token", "clientSecret",
		"spring.datasource.password", "x-api-key", "AWS_SECRET_ACCESS_KEY", "auth",
		"TWILIO_AUTH_TOKEN", "token_type", "password_hint", "nextPageToken", "secret",
		strings.Repeat("a", MaxContextName-8) + "password", // exactly MaxContextName
		strings.Repeat("a", MaxContextName-7) + "password", // one over: no context
		"id", "sha", "text", "", "pass word", `pass"word`, "[REDACTED:password-assignment]",
	}
}

func TestMemberContextTable(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	uuid := "123e4567-e89b-12d3-a456-426614174000"
	sha := "da39a3ee5e6b4b0d3255bfef95601890afd80709"
	for _, tc := range []struct {
		name, value string
		ctx         bool
		want        string   // output
		rules       []string // rule ids of the findings
	}{
		{"password", "Xk29!vqLm#2pR7", true, "[REDACTED:password-assignment]", []string{"password-assignment"}},
		{"client_secret", "q8Vf3kLz9PwX2mRt7YbN4cJh", true, "[REDACTED:secret-assignment]", []string{"secret-assignment"}},
		{"api_key", "a7Fk29QmZx83LpW0vB5nRt6Y", true, "[REDACTED:secret-assignment]", []string{"secret-assignment"}},
		{"DD_API_KEY", "3f9a1c0b7e2d4a6f8b1c3e5d7f9a0b2c", true, "[REDACTED:datadog-api-key]", []string{"datadog-api-key"}},
		{"token", "eyQ7mP2xK9vL4nR8tW3zB6cF", true, "[REDACTED:token-assignment]", []string{"token-assignment"}},
		{"AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz3x9Qk2Lm", true, "[REDACTED:aws-secret-access-key]", []string{"aws-secret-access-key"}},
		// A quote in the value ends the quoted value, as in the text.
		{"password", `Xk29!vqLm#2pR7", "note": "rotated`, true, `[REDACTED:password-assignment]", "note": "rotated`, []string{"password-assignment"}},
		// Decoys the text rules keep.
		{"token_type", "bearer", true, "bearer", nil},
		{"password_hint", "the name of my first dog", true, "the name of my first dog", nil},
		{"nextPageToken", "CiAKGjBpNDd2Nmp2Zml2cXRnYnB1OXQ", true, "CiAKGjBpNDd2Nmp2Zml2cXRnYnB1OXQ", nil},
		{"token", uuid, true, uuid, nil},
		{"password", "${DB_PASSWORD}", true, "${DB_PASSWORD}", nil},
		{"id", uuid, false, uuid, nil},
		{"sha", sha, false, sha, nil},
		// Names outside the character set or the length bound: no context.
		{"pass word", "Xk29!vqLm#2pR7", false, "Xk29!vqLm#2pR7", nil},
		{strings.Repeat("a", MaxContextName-7) + "password", "Xk29!vqLm#2pR7", false, "Xk29!vqLm#2pR7", nil},
		// A secret of its own in the value is found with or without context.
		{"id", "ghp_" + fakeChars(base62Alphabet, 36, 41), false, "[REDACTED:github-pat]", []string{"github-pat"}},
		{"password", "", true, "", nil},
	} {
		if got := r.ResetWithContext([]byte(tc.name)); got != tc.ctx {
			t.Errorf("%q: ResetWithContext = %v, want %v", tc.name, got, tc.ctx)
		}
		out, fs := r.Append(nil, []byte(tc.value), true, nil)
		if string(out) != tc.want || !reflect.DeepEqual(ruleNames(c, fs), tc.rules) {
			t.Errorf("%q: %q -> %q %v, want %q %v", tc.name, tc.value, out, ruleNames(c, fs), tc.want, tc.rules)
		}
		for _, f := range fs {
			if f.Offset < 0 || f.Offset+int64(f.Length) > int64(len(tc.value)) {
				t.Errorf("%q: finding %+v outside the value", tc.name, f)
			}
		}
		// The Redactor is back to plain strings after the final Append.
		out, fs = r.Append(nil, []byte(tc.value), true, nil)
		wantPlain, wantFs := refRedact(c, CatalogOptions{}, testKey, tc.value)
		if string(out) != wantPlain || !reflect.DeepEqual(fs, wantFs) {
			t.Errorf("%q: next string kept the context: %q", tc.name, out)
		}
	}
}

// TestMemberContextReference compares every split of values under every
// context name with the reference, and checks the hold bound.
func TestMemberContextReference(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	values := []string{
		"Xk29!vqLm#2pR7", "3f9a1c0b7e2d4a6f8b1c3e5d7f9a0b2c", "bearer", "", "x", `a"b`,
		`q8Vf3kLz9PwX2mRt7YbN4cJh", "other": "v`,
		"dXNlcjpwYXNzd29yZDEyMw==", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz3x9Qk2Lm",
		// Longer than ctxJoinMax: a last piece this long is not joined
		// with the closing quote but followed by it in a second call.
		"Xk29!vqLm#2pR7" + strings.Repeat(" a", ctxJoinMax/2) + " " + withCRC("ghp_", fakeChars(base62Alphabet, 30, 11)),
		strings.Repeat("b", ctxJoinMax+1),
	}
	for _, tp := range plants() {
		if len(tp) < 2048 {
			values = append(values, tp)
		}
	}
	names := contextNames()
	if testing.Short() {
		names = names[:6]
	}
	for _, name := range names {
		if refContextName(c, name) != c.contextName([]byte(name)) {
			t.Fatalf("%q: contextName disagrees with the reference", name)
		}
		for _, v := range values {
			want, wantFs := refRedactContext(c, CatalogOptions{}, testKey, name, v)
			for _, n := range []int{0, 1, 3, 7, 64} {
				var cuts []int
				for p := n; n > 0 && p < len(v); p += n {
					cuts = append(cuts, p)
				}
				got, fs := redactCutsContext(t, r, name, v, cuts)
				if got != want || !reflect.DeepEqual(fs, wantFs) {
					t.Fatalf("name %q value %q chunk %d\n got %q %v %v\nwant %q %v %v", name, trunc(v), n, trunc(got), ruleNames(c, fs), fs, trunc(want), ruleNames(c, wantFs), wantFs)
				}
			}
		}
	}
}

// TestMemberContextAllocs: the context allocates nothing of its own: a
// value under a qualifying name costs what the same text does without it
// (the finding's fingerprint), and a value under another name nothing.
func TestMemberContextAllocs(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	dst := make([]byte, 0, 256)
	fs := make([]Finding, 0, 4)
	allocs := func(name, val string) float64 {
		n, v := []byte(name), []byte(val)
		return testing.AllocsPerRun(100, func() {
			if name == "" {
				r.Reset()
			} else {
				r.ResetWithContext(n)
			}
			dst, fs = r.Append(dst[:0], v, true, fs[:0])
		})
	}
	secret := "q8Vf3kLz9PwX2mRt7YbN4cJh"
	plain := allocs("", `"client_secret": "`+secret+`"`)
	if got := allocs("client_secret", secret); got > plain {
		t.Errorf("value under client_secret: %v allocations, the same text without context %v", got, plain)
	}
	if got := allocs("client_secret", "bearer"); got != 0 {
		t.Errorf("value without a finding under client_secret: %v allocations", got)
	}
	if got := allocs("id", secret); got != 0 {
		t.Errorf("value under id: %v allocations", got)
	}
}

// FuzzMemberContext is FuzzRedactor for values under a member name: random
// text with a planted secret, under one of contextNames, split at random
// places, against refRedactContext.
//
//	go test -run '^$' -fuzz FuzzMemberContext -fuzztime 100000x ./scanners/
func FuzzMemberContext(f *testing.F) {
	f.Add([]byte("Xk29!vqLm#2pR7"), uint16(0), uint16(0), uint64(1))
	f.Add([]byte(`a", "b": "c`), uint16(1), uint16(7), uint64(99))
	f.Add([]byte(""), uint16(3), uint16(2), uint64(12345))
	c, err := NewCatalog(CatalogOptions{})
	if err != nil {
		f.Fatal(err)
	}
	ps := plants()
	names := contextNames()
	f.Fuzz(func(t *testing.T, text []byte, pickName, pickPlant uint16, seed uint64) {
		if len(text) > 1<<12 {
			return
		}
		x := seed | 1
		next := func(n int) int {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			return int(x % uint64(n))
		}
		name := names[int(pickName)%len(names)]
		// The Redactor reads normalized text, valid UTF-8 (the pass replaces
		// invalid bytes before it); the detection view decodes runes.
		s := strings.ToValidUTF8(string(text), "\uFFFD")
		text = []byte(s)
		if pickPlant%4 != 0 { // three in four: a planted secret too
			at := next(len(text) + 1)
			s = string(text[:at]) + ps[int(pickPlant)%len(ps)] + string(text[at:])
		}
		want, wantFs := refRedactContext(c, CatalogOptions{}, testKey, name, s)
		var cuts []int
		for p := 0; p < len(s); {
			p += 1 + next(1+next(64))
			cuts = append(cuts, p)
		}
		got, fs := redactCutsContext(t, c.NewRedactor(testKey), name, s, cuts)
		if got != want || !reflect.DeepEqual(fs, wantFs) {
			t.Fatalf("name %q value %q cuts %v\n got %q %v\nwant %q %v", name, s, cuts, got, fs, want, wantFs)
		}
	})
}
