package scanners

import "testing"

func TestTimestampLike(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"2025-06-01", true}, {"2025-06-01T12:30:00Z", true}, {"2025-06-01 12:30", true},
		{"2025-06-01T12:30:00.123456+02:00", true}, {"2025-06-01T12:30:00-0700", true}, {"2025-06-01t12:30:00z", true},
		{"2025-06-01T12:30:00.Z", false}, {"2025-06-01X", false}, {"2025-6-01", false}, {"2025-06-01T1230", false},
		{"2025-06-01T12:30:00Zx", false}, {"2025-06-01T12:30:00+02:0", false}, {"20250601", false},
		{"2025-06-01Tab:cd:ef", false}, {"9f8e7d6c-5b4a-3210", false},
	} {
		if got := timestampLike([]byte(tc.in)); got != tc.ok {
			t.Errorf("timestampLike(%q) = %v, want %v", tc.in, got, tc.ok)
		}
	}
	// Under a token-bearing name a timestamp is kept, a token is not.
	cat, err := NewCatalog(CatalogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := cat.NewRedactor(nil)
	for _, tc := range []struct {
		in   string
		kept bool
	}{
		{`"accessTokenExpiresAt": "2025-06-01T12:30:00Z"`, true},
		{`refresh_token=2025-06-01T12:30:00.123+02:00`, true},
		{`"access_token": "` + "aB3dE5fG7hJ9kL1mN3pQ5rS7" + `"`, false},
		{`{"password":"$PASSWORD","username_field_long":"admin"}`, true},
		{`setenv("PASSWORD", "` + "aB3dE5fG7hJ9kL1m" + `")`, false},
	} {
		r.Reset()
		out, _ := r.Append(nil, []byte(tc.in), true, nil)
		if (string(out) == tc.in) != tc.kept {
			t.Errorf("%s -> %s, kept want %v", tc.in, out, tc.kept)
		}
	}
}
