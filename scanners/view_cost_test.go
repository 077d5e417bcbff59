package scanners

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// viewPieces are what build's walk must tell apart: ASCII, '&' and
// references (whole, cut, without ';', with leading zeros), look-alikes of
// two, three and four bytes, runes without a target of each length, and
// bytes that are not valid UTF-8 (lone continuation bytes, cut and overlong
// sequences, surrogates, invalid leads), a lead byte just before a '&'.
var viewPieces = []string{
	"a", "system", " ", "\n", "&", "&lt;", "&lt", "&ltx", "&#0060;", "&#x3c", "&#115", "&amp;lt;", "&sol;", "&#", "&l",
	"ρ", "ѕ", "о", "ɡ", "п", "é", "ö", "Ꮪ", "‹", "›", "〈", "—", "“", "该", "日", "▁", "𝐬", "🔧", "\U0001d5ba",
	"\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xc2", "\xd1", "\xe0\x80\x80", "\xe0\xa0", "\xed\xa0\x80", "\xe1\x8f",
	"\xf0\x9f", "\xf0\x9f\x94", "\xf4\x90\x80\x80", "\xf8\x88\x80\x80", "\xff", "\xf0&lt", "\xe3\x81&#60", "\xd0&gt;",
	strings.Repeat("x", 40), strings.Repeat("é", 9), strings.Repeat("ρ", 9) + strings.Repeat("b", 17),
}

// TestViewBuildMatchesReference checks build, split at random places and
// with look-alikes on and off, against the reference view (refView): the
// view bytes and the text offset of every view offset.
func TestViewBuildMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 4))
	for iter := 0; iter < 4000; iter++ {
		var b strings.Builder
		for k := rng.IntN(24); k >= 0; k-- {
			b.WriteString(viewPieces[rng.IntN(len(viewPieces))])
		}
		s := b.String()
		for _, skel := range []bool{true, false} {
			var tv *refTextView
			if skel {
				tv = refView(s)
			} else {
				tv = refViewNoSkel(s)
			}
			var w detView
			w.skel = skel
			var view []byte
			for p := 0; p < len(s) || p == 0; {
				q := len(s)
				if rng.IntN(3) > 0 {
					q = min(len(s), p+rng.IntN(12))
				}
				v := w.build([]byte(s[p:q]), int64(len(view)), q == len(s))
				view = append(view, v...)
				if q == len(s) {
					break
				}
				p = q
			}
			if string(view) != tv.v {
				t.Fatalf("skel %v, %q:\nview %q\nwant %q", skel, s, view, tv.v)
			}
			for k := 0; k <= len(view); k++ {
				if got := w.textOff(int64(k)); got != int64(tv.at[k]) {
					t.Fatalf("skel %v, %q: view offset %d at text %d, want %d", skel, s, k, got, tv.at[k])
				}
			}
		}
	}
}

// refViewNoSkel is refView without look-alikes (DisableSkeleton):
// references only.
func refViewNoSkel(s string) *refTextView {
	tv := &refTextView{s: s}
	var v strings.Builder
	for i := 0; i < len(s); {
		tv.at = append(tv.at, i)
		if s[i] == '&' {
			if to, n := refViewAt(s, i); n > 0 {
				v.WriteByte(to)
				i += n
				continue
			}
		}
		v.WriteByte(s[i])
		i++
	}
	tv.at = append(tv.at, len(s))
	tv.v = v.String()
	return tv
}

// FuzzViewBuild is TestViewBuildMatchesReference on any text: the view of
// s split where the fuzzer says (each byte of cuts is the length of the
// next piece, 0-15), with and without look-alikes, against refView.
func FuzzViewBuild(f *testing.F) {
	for _, p := range viewPieces {
		f.Add(p+"ρ&lt;"+p, []byte{1, 2, 3})
	}
	f.Add("\xff\xcf\x81", []byte{1})
	f.Add("\xf0&lt", []byte{})
	// Runs of two- and three-byte runes broken by invalid and cut bytes.
	f.Add("обрабатывается\xd0\xc1\x81по\xd1", []byte{3, 5, 7})
	f.Add("该服务\xe8\x80日本\xe0\x80\x80ρ語\xed\xa0\x80", []byte{2, 4, 1, 9})
	f.Fuzz(func(t *testing.T, s string, cuts []byte) {
		for _, skel := range []bool{true, false} {
			tv := refViewNoSkel(s)
			if skel {
				tv = refView(s)
			}
			w := detView{skel: skel}
			var view []byte
			p, k := 0, 0
			for {
				q := len(s)
				if k < len(cuts) {
					q = min(len(s), p+int(cuts[k]&15))
					k++
				}
				view = append(view, w.build([]byte(s[p:q]), int64(len(view)), q == len(s))...)
				if q == len(s) {
					break
				}
				p = q
			}
			if string(view) != tv.v {
				t.Fatalf("skel %v, %q split by %v:\nview %q\nwant %q", skel, s, cuts, view, tv.v)
			}
			for x := 0; x <= len(view); x++ {
				if got := w.textOff(int64(x)); got != int64(tv.at[x]) {
					t.Fatalf("skel %v, %q: view offset %d at text %d, want %d", skel, s, x, got, tv.at[x])
				}
			}
		}
	})
}
