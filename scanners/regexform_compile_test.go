package scanners

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// TestRegexFormsCompile: every regexForm pattern of the built-in rules,
// compiled on first use (lazyRegexp), compiles, as regexp.MustCompile at
// catalog build checked before.
func TestRegexFormsCompile(t *testing.T) {
	n := 0
	for _, r := range builtinRules() {
		for _, f := range r.forms {
			if f.pattern == nil {
				continue
			}
			n++
			if _, err := regexp.Compile(f.pattern.src); err != nil {
				t.Errorf("rule %s: %v", r.id, err)
			}
		}
	}
	if n == 0 {
		t.Fatal("no regexForm pattern in the built-in rules")
	}
	t.Logf("%d regexForm patterns", n)
}

// TestDefaultMarkersSafe: the default markers scan clean under the
// built-in rules with every rule enabled, nothing allowlisted and every
// switch of tags, decoding and look-alikes, so NewCatalog may skip the
// scan for the options defaultMarkersChecked accepts (a subset of these
// rules, fewer markers, more suppressed).
func TestDefaultMarkersSafe(t *testing.T) {
	for _, tags := range []bool{false, true} {
		for _, dec := range []bool{false, true} {
			for _, skel := range []bool{false, true} {
				o := CatalogOptions{Allowlist: []string{}, DisableTags: tags, DisableDecoding: dec, DisableSkeleton: skel}
				if !defaultMarkersChecked(o) {
					t.Fatalf("%+v: not a default-marker catalog", o)
				}
				c, err := NewCatalog(o)
				if err != nil {
					t.Fatal(err)
				}
				if err := c.checkMarkers(); err != nil {
					t.Errorf("tags off %v, decoding off %v, look-alikes off %v: %v", tags, dec, skel, err)
				}
			}
		}
	}
}

// TestMarkersCheckedUnlessDefault: options that can make a marker match
// (another marker, a custom rule, other decode limits) are scanned, and a
// marker that matches a rule is refused.
func TestMarkersCheckedUnlessDefault(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    CatalogOptions
		want bool
	}{
		{"zero", CatalogOptions{}, true},
		{"explicit defaults", CatalogOptions{SecretMarker: DefaultSecretMarker, TagMarker: DefaultTagMarker, MaxDecodeRun: DefaultMaxDecodeRun, MaxDecodeDepth: DefaultMaxDecodeDepth}, true},
		{"rules disabled, allowlist", CatalogOptions{Disabled: []string{"github-pat"}, Allowlist: []string{"x"}}, true},
		{"secret marker", CatalogOptions{SecretMarker: "[S:%s]"}, false},
		{"tag marker", CatalogOptions{TagMarker: "[T]"}, false},
		{"custom rule", CatalogOptions{Custom: []CustomRule{{ID: "c", Keywords: []string{"zq"}, Pattern: "zq[0-9]{4}"}}}, false},
		{"keep invalid checksum", CatalogOptions{KeepInvalidChecksum: true}, false},
		{"decode run", CatalogOptions{MaxDecodeRun: DefaultMaxDecodeRun * 2}, false},
		{"decode depth", CatalogOptions{MaxDecodeDepth: 1}, false},
	} {
		if got := defaultMarkersChecked(tc.o); got != tc.want {
			t.Errorf("%s: defaultMarkersChecked = %v, want %v", tc.name, got, tc.want)
		}
	}
	_, err := NewCatalog(CatalogOptions{TagMarker: "[ghp_" + strings.Repeat("a", 36) + "]"})
	if !errors.Is(err, ErrInvalidMarker) {
		t.Errorf("a tag marker that is a GitHub token: err = %v, want ErrInvalidMarker", err)
	}
}
