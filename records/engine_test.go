package records

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// Records of very different sizes on many workers finish out of order; the
// output is in input order whatever the number of workers, and the same
// bytes for each.
func TestRunOrderUnderParallelism(t *testing.T) {
	var in strings.Builder
	const n = 200
	for i := 0; i < n; i++ {
		// Large records early, small ones late: the small ones finish first.
		fmt.Fprintf(&in, `{"tool":"t%d","result":{"content":[{"type":"text","text":"r%d %s"}]}}`+"\n", i, i, strings.Repeat("z", (n-i)*97%6000))
	}
	var want string
	for _, workers := range []int{1, 2, 7, 16} {
		err, out, reps := runRecords(t, in.String(), Options{Workers: workers}, "")
		if err != nil {
			t.Fatalf("workers %d: %v %s", workers, err, reps)
		}
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if len(lines) != n {
			t.Fatalf("workers %d: %d lines", workers, len(lines))
		}
		for i, l := range lines {
			if !strings.HasPrefix(l, fmt.Sprintf(`{"tool":"t%d",`, i)) {
				t.Fatalf("workers %d: line %d out of order: %.80s", workers, i, l)
			}
		}
		if workers == 1 {
			want = out
		} else if out != want {
			t.Fatalf("workers %d: output differs from one worker", workers)
		}
	}
}

// A bad record in the middle gets an error result on its own line; the
// records around it are answered as usual.
func TestRunBadRecordInTheMiddle(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"not-json", `{"tool":"x","result":`, `"dev.mcp-sanitize/code":"INVALID_JSON"`},
		{"no-result", `{"tool":"x"}`, `"dev.mcp-sanitize/code":"INVALID_JSON"`},
		{"array", `[1,2]`, `"dev.mcp-sanitize/code":"INVALID_JSON"`},
		{"bad-schema", `{"tool":"x","outputSchema":{"type":7},"result":{"content":[]}}`, `"dev.mcp-sanitize/code":"SCHEMA_INVALID"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := `{"tool":"a","result":{"content":[{"type":"text","text":"first"}]}}` + "\n" + tt.line + "\n" +
				`{"tool":"c","result":{"content":[{"type":"text","text":"third"}]}}` + "\n"
			err, out, reps := runRecords(t, in, Options{Workers: 3}, "")
			if err != nil {
				t.Fatalf("%v %s", err, reps)
			}
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			if len(lines) != 3 || !strings.Contains(lines[0], "first") || !strings.Contains(lines[2], "third") {
				t.Fatalf("%q", out)
			}
			if !strings.Contains(lines[1], tt.want) || !strings.Contains(lines[1], `"isError":true`) {
				t.Fatalf("line 2 lacks %s: %s", tt.want, lines[1])
			}
		})
	}
}

// A line over MaxRecordBytes is not held: it is answered with
// BOUND_EXCEEDED and none of its bytes, and the next record is read.
func TestRunRecordTooLong(t *testing.T) {
	long := `{"tool":"big","result":{"content":[{"type":"text","text":"` + strings.Repeat("y", 5000) + `"}]}}`
	in := `{"tool":"small0","result":{"content":[]}}` + "\n" + long + "\n" + `{"tool":"small","result":{"content":[]}}` + "\n"
	err, out, reps := runRecords(t, in, Options{MaxRecordBytes: 2048}, "")
	if err != nil {
		t.Fatalf("%v %s", err, reps)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "BOUND_EXCEEDED") || !strings.Contains(lines[1], "record-too-long") ||
		!strings.Contains(lines[2], `"tool":"small"`) || strings.Contains(out, "yyyy") {
		t.Fatalf("%q", out)
	}
	// Without a final newline, too.
	err, out, _ = runRecords(t, long, Options{MaxRecordBytes: 2048}, "")
	if err != nil || !strings.Contains(out, "BOUND_EXCEEDED") || strings.Contains(out, "yyyy") {
		t.Fatalf("%v %q", err, out)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

type failReader struct{ n int }

func (r *failReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		r.n++
		return copy(p, `{"tool":"a","result":{"content":[]}}`+"\n"), nil
	}
	return 0, errors.New("connection reset")
}

// Write and read failures are reported, typed, and fail the run.
func TestRunReportsFailures(t *testing.T) {
	eng := testEngine(t)
	in := `{"tool":"a","result":{"content":[]}}` + "\n" + `{"tool":"b","result":{"content":[]}}` + "\n"
	ctx := context.Background()
	var reps []error
	o := Options{Kind: pipeline.KindToolResult, Evidence: failWriter{}, Report: func(err error) { reps = append(reps, err) }}
	err := Run(ctx, eng, strings.NewReader(in), io.Discard, o)
	var we *WriteError
	if !errors.As(err, &we) || we.What != "evidence" || len(reps) != 1 || reps[0].Error() != "writing evidence: disk full" {
		t.Fatalf("evidence: %v %v", err, reps)
	}
	reps = nil
	o.Evidence = nil
	err = Run(ctx, eng, &failReader{}, io.Discard, o)
	var re *ReadError
	if !errors.As(err, &re) || len(reps) != 1 || reps[0].Error() != "reading input: connection reset" {
		t.Fatalf("read: %v %v", err, reps)
	}
	reps = nil
	err = Run(ctx, eng, strings.NewReader(in), failWriter{}, o)
	if !errors.As(err, &we) || we.What != "output" || len(reps) != 1 {
		t.Fatalf("output: %v %v", err, reps)
	}
	for _, bad := range []Options{{Workers: -1}, {MaxRecordBytes: 10}, {Timeout: -time.Second}, {InFlightBytes: -1}} {
		if err := Run(ctx, eng, strings.NewReader(in), io.Discard, bad); !errors.Is(err, ErrOptions) {
			t.Fatalf("%+v: %v", bad, err)
		}
	}
	if err := Run(ctx, nil, strings.NewReader(in), io.Discard, Options{}); !errors.Is(err, ErrOptions) {
		t.Fatalf("nil engine: %v", err)
	}
}
