package toolcat

import "testing"

// TestPinKeys: a tool's pin, a prompt's pin of the same name and the
// catalog entry are three keys, and no pin key reads as a catalog key.
func TestPinKeys(t *testing.T) {
	for _, name := range []string{"get_weather", "a.b", "ünï code", "pin"} {
		cat, err := Key("srv", name)
		if err != nil {
			t.Fatal(err)
		}
		tk, err := PinKey("srv", name)
		if err != nil {
			t.Fatal(err)
		}
		pk, err := PromptPinKey("srv", name)
		if err != nil {
			t.Fatal(err)
		}
		if cat == tk || cat == pk || tk == pk {
			t.Fatalf("%q: keys %q %q %q are not distinct", name, cat, tk, pk)
		}
		for _, k := range []string{tk, pk} {
			if _, _, err := ParseKey(k); err == nil {
				t.Fatalf("pin key %q reads as a catalog key", k)
			}
		}
		if (&Pins{}).prefix != "" || NewPins(nil).Prompts().prefix != promptPinPrefix {
			t.Fatal("prefixes")
		}
	}
	if _, err := PromptPinKey("bad server", "p"); err == nil {
		t.Fatal("a server that is not a token made a key")
	}
}
