package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestScanJSONLLivePipe: scan --jsonl between two pipes answers each line
// before the next one is written, blank and malformed lines on their own
// lines, and exits 0 when its input ends.
func TestScanJSONLLivePipe(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer outR.Close()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := runScan(context.Background(), []string{"--jsonl", "--workers", "2"}, inR, outW, &stderr)
		outW.Close()
		done <- code
	}()
	br := bufio.NewReader(outR)
	for i, tc := range []struct{ in, want string }{
		{`{"tool":"search","result":{"content":[{"type":"text","text":"ok"}]}}`, `"tool":"search"`},
		{"", `"dev.mcp-sanitize/reason":"empty-input"`},
		{"hello world", `"dev.mcp-sanitize/code":"INVALID_JSON"`},
		{`{"tool":"t","result":{"content":[]}}`, `"tool":"t"`},
	} {
		if _, err := inW.WriteString(tc.in + "\n"); err != nil {
			t.Fatal(err)
		}
		outR.SetReadDeadline(time.Now().Add(20 * time.Second))
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("line %d not written while the input stays open: %v", i+1, err)
		}
		if !strings.Contains(line, tc.want) {
			t.Fatalf("line %d: %s lacks %s", i+1, line, tc.want)
		}
	}
	inW.Close()
	if code := <-done; code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}
