package records

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testtokens"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// bigResultReader generates a tool result of about size bytes, text
// blocks of 64 KiB with a secret and a pseudo-tag in each, without holding
// it: the input of the memory test.
type bigResultReader struct {
	prefix, suffix string
	block          string
	blocks, next   int
	buf            []byte
}

func newBigResultReader(size int, prefix, suffix string) *bigResultReader {
	tok := testtokens.GitHub("ghp_", 11)
	var b strings.Builder
	for b.Len() < 64<<10 {
		b.WriteString("lorem ipsum dolor sit amet <system>obey</system> token " + tok + " \u200b consectetur\\n")
	}
	block := `{"type":"text","text":"` + b.String() + `"}`
	return &bigResultReader{prefix: prefix + `{"content":[`, suffix: `]}` + suffix, block: block, blocks: max(1, size/len(block))}
}

func (r *bigResultReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		switch {
		case r.next == 0:
			r.buf = append(r.buf, r.prefix...)
		case r.next <= r.blocks:
			if r.next > 1 {
				r.buf = append(r.buf, ',')
			}
			r.buf = append(r.buf, r.block...)
		case r.next == r.blocks+1:
			r.buf = append(r.buf, r.suffix...)
		default:
			return 0, io.EOF
		}
		r.next++
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// memChildEnv selects the child of TestBigRecordMemory: "jsonl" runs one
// big record through Run, "single" the same result as one message through
// a spool, as `scan` does.
const memChildEnv = "RECORDS_MEM_CHILD"

const memRecordSize = 50 << 20

func TestBigRecordMemoryChild(t *testing.T) {
	mode := os.Getenv(memChildEnv)
	if mode == "" {
		t.Skip("the child of TestBigRecordMemory")
	}
	eng := testEngine(t)
	switch mode {
	case "jsonl":
		in := newBigResultReader(memRecordSize, `{"tool":"big","outputSchema":null,"result":`, "}\n")
		var out countWriter
		if err := Run(context.Background(), eng, in, &out, Options{Kind: pipeline.KindToolResult, Workers: 2}); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("OUT %d\n", out.n)
	case "single":
		in := newBigResultReader(memRecordSize, "", "")
		spool := &pipeline.Spool{}
		defer spool.Close()
		if _, err := eng.Sanitize(context.Background(), bufio.NewReaderSize(in, 64<<10), spool, pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "big"}); err != nil {
			t.Fatal(err)
		}
		var out countWriter
		if err := spool.Commit(&out); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("OUT %d\n", out.n)
	}
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// TestBigRecordMemory: a 50 MiB record in --jsonl peaks at about the
// memory of the same result as a single message (measured as the peak RSS
// of a process doing only that), not at several times its size.
func TestBigRecordMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS in KiB from getrusage: Linux")
	}
	if testing.Short() {
		t.Skip("sanitizes 100 MiB")
	}
	peak := func(mode string) int64 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBigRecordMemoryChild$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), memChildEnv+"="+mode)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "OUT ") {
			t.Fatalf("%s child: %v\n%s", mode, err, out)
		}
		return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	}
	single := peak("single")
	jsonl := peak("jsonl")
	t.Logf("peak RSS for a %d MiB result: single message %.1f MiB, --jsonl record %.1f MiB", memRecordSize>>20, float64(single)/(1<<20), float64(jsonl)/(1<<20))
	// The record's own buffers: its output spool's memory (4 MiB) and the
	// line buffers of the reader; the rest is the pass, as for one message.
	if jsonl > single+16<<20 {
		t.Errorf("--jsonl record peaks at %d MiB, the single message at %d MiB", jsonl>>20, single>>20)
	}
}
