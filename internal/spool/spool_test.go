package spool

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSpoolMemoryAndSpill(t *testing.T) {
	tests := []struct {
		name    string
		limit   int
		writes  []string
		spilled bool
	}{
		{"empty", 16, nil, false},
		{"fits", 16, []string{"0123456789", "012345"}, false},
		{"one-over", 16, []string{"0123456789", "0123456"}, true},
		{"first-write-over", 4, []string{"0123456789"}, true},
		{"zero-limit", 0, []string{"x"}, true},
		{"zero-limit-empty-write", 0, []string{""}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := &Spool{Limit: tt.limit, Dir: dir}
			var want string
			for _, w := range tt.writes {
				if n, err := s.Write([]byte(w)); err != nil || n != len(w) {
					t.Fatalf("Write: %d %v", n, err)
				}
				want += w
			}
			if s.Spilled() != tt.spilled || s.Len() != int64(len(want)) {
				t.Fatalf("spilled %v len %d, want %v %d", s.Spilled(), s.Len(), tt.spilled, len(want))
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Fatalf("the spill file is not unlinked: %v", ents)
			}
			if !tt.spilled && string(s.Bytes()) != want {
				t.Fatalf("Bytes %q", s.Bytes())
			}
			if tt.spilled && s.Bytes() != nil {
				t.Fatal("Bytes of a spilled spool")
			}
			r := s.Reader()
			if _, ok := r.(*bytes.Buffer); ok {
				t.Fatal("Reader is a *bytes.Buffer")
			}
			got, err := io.ReadAll(r)
			if err != nil || string(got) != want {
				t.Fatalf("Reader: %q %v", got, err)
			}
			var out strings.Builder
			if err := s.Commit(&out); err != nil || out.String() != want {
				t.Fatalf("Commit: %q %v", out.String(), err)
			}
			if s.Len() != 0 || s.Spilled() {
				t.Fatal("Commit does not discard")
			}
		})
	}
}

func TestSpoolAppendBuffer(t *testing.T) {
	s := &Spool{Limit: 64, Dir: t.TempDir()}
	b := s.AppendBuffer(10)
	if b == nil || len(b) != 0 || cap(b) < 10 {
		t.Fatalf("len %d cap %d", len(b), cap(b))
	}
	b = append(b, "in place"...)
	s.Write(b)
	if &s.Bytes()[0] != &b[0] {
		t.Fatal("appended bytes were copied")
	}
	if s.AppendBuffer(57) != nil {
		t.Fatal("room past Limit")
	}
	s.Write(bytes.Repeat([]byte("z"), 60)) // spills
	if !s.Spilled() || s.AppendBuffer(1) != nil {
		t.Fatal("room after a spill")
	}
	got, _ := io.ReadAll(s.Reader())
	if string(got) != "in place"+strings.Repeat("z", 60) {
		t.Fatalf("%q", got)
	}
	if err := s.Discard(); err != nil || s.Len() != 0 || s.Spilled() {
		t.Fatal("Discard")
	}
	// The spool is usable again, in memory.
	s.Write([]byte("again"))
	if s.Spilled() || string(s.Bytes()) != "again" {
		t.Fatalf("after Discard: %q", s.Bytes())
	}
}

func TestSpoolMemoryHandOver(t *testing.T) {
	buf := make([]byte, 3, 128)
	var s Spool
	s.Limit = 128
	s.SetMemory(buf)
	s.Write([]byte("abc"))
	if &s.Bytes()[0] != &buf[:1][0] || s.Len() != 3 {
		t.Fatal("SetMemory buffer not used from its start")
	}
	s.Discard()
	m := s.Memory()
	if cap(m) != 128 || len(m) != 0 || s.Bytes() != nil {
		t.Fatalf("Memory: len %d cap %d", len(m), cap(m))
	}
}

func TestSpoolCreateFails(t *testing.T) {
	s := &Spool{Limit: 1, Dir: filepath.Join(t.TempDir(), "missing")}
	if _, err := s.Write([]byte("too long")); err == nil {
		t.Fatal("no error when the file cannot be created")
	}
}
