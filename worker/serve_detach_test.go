package worker

import (
	"bytes"
	"testing"
)

// TestResultDetached checks that a detached body survives the release of
// the sink's buffer (which the pool hands to the next message), and that
// the release happens once.
func TestResultDetached(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		done bool
	}{
		{"sink body", []byte(`{"content":[{"type":"text","text":"ok"}]}`), true},
		{"empty body", []byte{}, true},
		{"no sink", []byte(`{"isError":true}`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := bytes.Clone(tc.data)
			want := bytes.Clone(tc.data)
			releases := 0
			r := result{data: buf}
			if tc.done {
				r.done = func() {
					releases++
					for i := range buf {
						buf[i] = 'X' // the pool's next user overwrites it
					}
				}
			}
			d := r.detached()
			d.release()
			d.release()
			if !bytes.Equal(d.data, want) {
				t.Fatalf("detached body %q, want %q", d.data, want)
			}
			if wantRel := map[bool]int{true: 1, false: 0}[tc.done]; releases != wantRel {
				t.Fatalf("released %d times, want %d", releases, wantRel)
			}
		})
	}
}
