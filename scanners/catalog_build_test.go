package scanners

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestCatalogIndexesMatchReference recomputes what NewCatalog derives from
// the enabled rules (the infos with their keywords, the markers, the hit
// items of every automaton state) the way it was written before the build
// was sized once and lost fmt.Sprintf (2026-12-07), and compares, for the
// default catalog, one without tags and one with a custom rule and marker.
func TestCatalogIndexesMatchReference(t *testing.T) {
	for _, o := range []CatalogOptions{
		{},
		{DisableTags: true},
		{SecretMarker: "[gone:%s]", Custom: []CustomRule{{ID: "custom-x", Keywords: []string{"zzq", "ZZQ", "api_key"}, Pattern: "zzq[0-9]{4}"}}},
	} {
		c := newTestCatalog(t, o)
		secretMarker := o.SecretMarker
		if secretMarker == "" {
			secretMarker = DefaultSecretMarker
		}
		kwIndex := map[string]int{}
		var kwItems [][]hitItem
		var infos []RuleInfo
		var markers [][]byte
		for id, r := range c.rules {
			info := RuleInfo{ID: r.id, Provider: r.provider, Kind: r.kind, Confidence: r.confidence, Description: r.desc}
			for fi := range r.forms {
				f := &r.forms[fi]
				for _, kw := range f.keywords {
					kw = strings.ToLower(kw)
					k, ok := kwIndex[kw]
					if !ok {
						k = len(kwItems)
						kwIndex[kw] = k
						kwItems = append(kwItems, nil)
					}
					kwItems[k] = append(kwItems[k], hitItem{rule: RuleID(id), kwLen: int32(len(kw)), form: f, wsEnd: setSpace[kw[len(kw)-1]]})
					if !containsString(info.Keywords, kw) {
						info.Keywords = append(info.Keywords, kw)
					}
				}
			}
			infos = append(infos, info)
			m := DefaultTagMarker
			if r.kind == KindSecret {
				m = fmt.Sprintf(secretMarker, r.id)
			}
			markers = append(markers, []byte(m))
		}
		items := make([][]hitItem, len(c.ac.outputs))
		for s, outs := range c.ac.outputs {
			for _, k := range outs {
				items[s] = append(items[s], kwItems[k]...)
			}
		}
		name := fmt.Sprintf("%+v", o)
		if !reflect.DeepEqual(c.infos, infos) {
			t.Fatalf("%s: infos differ from the reference", name)
		}
		if !reflect.DeepEqual(c.markers, markers) {
			t.Fatalf("%s: markers differ from the reference", name)
		}
		if len(c.items) != len(items) {
			t.Fatalf("%s: %d item lists, want %d", name, len(c.items), len(items))
		}
		for s := range items {
			if len(c.items[s]) != len(items[s]) {
				t.Fatalf("%s: state %d: %d items, want %d", name, s, len(c.items[s]), len(items[s]))
			}
			for i := range items[s] {
				a, b := c.items[s][i], items[s][i]
				if a.rule != b.rule || a.kwLen != b.kwLen || a.form != b.form || a.wsEnd != b.wsEnd {
					t.Fatalf("%s: state %d item %d differs", name, s, i)
				}
			}
		}
	}
}
