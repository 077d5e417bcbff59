// Command cgprobe runs one configuration of pipeline's BenchmarkSanitize
// (the same generated documents, bench.SanitizeCorpora, and the same bounds) a given number of times
// in its main goroutine and does nothing else, so that an instruction count
// taken inside its loop is the cost of the passes alone:
//
//	valgrind --tool=callgrind --toggle-collect='main.loop' cgprobe -corpus WebPage -size 4096 -n 41
//
// A benchmark binary is not that: under valgrind the testing package's own
// work on other goroutines (compiling the -test.bench pattern for every
// sub-benchmark name) is counted as if it ran inside Engine.Sanitize, at
// moments that change from run to run; counts of one 4 KiB configuration
// taken that way moved by more than 50%. scripts/cgsanitize.sh runs this
// probe twice (n and m calls) and prints the instructions of one call.
//
// With -records FILE it runs records.Run (what `scan --jsonl` runs, one
// worker, output discarded) over a file of scan records n times after one
// run outside the loop, with the harness's policy (bounds that cut
// nothing). FILE may instead be mix:N[:PART], the first N records of the
// harness's generated mix (bench.Mix, seed 1), or of them only the records
// with an outputSchema (PART schema), the same with it removed (removed),
// or those without one (plain). records.Run has goroutines of its own,
// which --toggle-collect does not follow: count the whole process at two
// values of -n and divide the difference (scripts/cgrecords.sh).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"

	"io"
	"strconv"
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/records"
)

func main() {
	name := flag.String("corpus", "Code", "a BenchmarkSanitize corpus: Code, CodeGoJSON, Logs, JSONInText, Search, WebPage, WebPageASCII, SecretsDense")
	size := flag.Int("size", 64<<10, "document size in bytes (the benchmark's are 4096, 65536 and 1048576)")
	n := flag.Int("n", 11, "Sanitize calls inside loop (after one outside it)")
	recs := flag.String("records", "", "a `FILE` of scan records: run records.Run over it n times instead")
	flag.Parse()
	if *recs != "" {
		if err := runRecords(*recs, *n); err != nil {
			fmt.Fprintln(os.Stderr, "cgprobe:", err)
			os.Exit(1)
		}
		return
	}
	var doc []byte
	for _, c := range bench.SanitizeCorpora {
		if c.Name == *name && *size > 0 && *n >= 0 {
			doc = c.Doc(*size)
		}
	}
	if doc == nil {
		fmt.Fprintln(os.Stderr, "cgprobe: unknown corpus or bad -size/-n")
		os.Exit(2)
	}
	// The benchmark's policy: a fixed fingerprint key, bounds that cut
	// nothing, 64 KiB reads.
	os.Setenv("MCP_SANITIZE_CGPROBE_KEY", "cgprobe-fingerprint-key-0123456789")
	e, err := pipeline.NewEngine(&pipeline.Policy{
		ChunkBytes:  64 << 10,
		Fingerprint: pipeline.Fingerprint{KeyEnv: "MCP_SANITIZE_CGPROBE_KEY"},
		Limits:      map[string]int64{"text-chars": 1 << 31, "string-chars": 1 << 31, "output-bytes": 1 << 31},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "cgprobe:", err)
		os.Exit(1)
	}
	info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "bench"}
	r := bytes.NewReader(doc)
	var out pipeline.Discarder
	// One call outside the loop: first-use tables and buffers.
	ev, err := e.Sanitize(context.Background(), r, &out, info)
	if err != nil || ev.Outcome == pipeline.OutcomeRejected || ev.Outcome == pipeline.OutcomeTruncated {
		fmt.Fprintf(os.Stderr, "cgprobe: outcome %s %s (%v)\n", ev.Outcome, ev.Code, err)
		os.Exit(1)
	}
	if err := loop(e, r, doc, &out, info, *n); err != nil {
		fmt.Fprintln(os.Stderr, "cgprobe:", err)
		os.Exit(1)
	}
}

// loop is what callgrind counts (--toggle-collect='main.loop').
//
//go:noinline
func loop(e *pipeline.Engine, r *bytes.Reader, doc []byte, out *pipeline.Discarder, info pipeline.MessageInfo, n int) error {
	ctx := context.Background()
	for range n {
		r.Reset(doc)
		if _, err := e.Sanitize(ctx, r, out, info); err != nil {
			return err
		}
	}
	return nil
}

// runRecords runs records.Run over the scan records of path once, then n
// times more, with one worker and the harness's bounds.
func runRecords(path string, n int) error {
	in, err := recordsInput(path)
	if err != nil {
		return err
	}
	p := pipeline.DefaultPolicy()
	p.Limits = map[string]int64{"text-chars": 1 << 31, "string-chars": 1 << 31, "output-bytes": 1 << 31}
	e, err := pipeline.NewEngine(p)
	if err != nil {
		return err
	}
	o := records.Options{Kind: pipeline.KindToolResult, Workers: 1}
	for range n + 1 {
		if err := records.Run(context.Background(), e, bytes.NewReader(in), io.Discard, o); err != nil {
			return err
		}
	}
	return nil
}

// recordsInput reads the records of path, or generates them for
// mix:N[:PART].
func recordsInput(path string) ([]byte, error) {
	spec, ok := strings.CutPrefix(path, "mix:")
	if !ok {
		return os.ReadFile(path)
	}
	count, part, _ := strings.Cut(spec, ":")
	nrec, err := strconv.Atoi(count)
	if err != nil || nrec <= 0 {
		return nil, fmt.Errorf("bad -records %q: want mix:N[:all|schema|removed|plain]", path)
	}
	var recs []bench.Record
	for _, d := range bench.Mix(bench.MixOptions{Seed: 1, Records: nrec}) {
		r := d.Record()
		switch part {
		case "", "all":
		case "schema":
			if r.OutputSchema == nil {
				continue
			}
		case "removed":
			if r.OutputSchema == nil {
				continue
			}
			r.OutputSchema = nil
		case "plain":
			if r.OutputSchema != nil {
				continue
			}
		default:
			return nil, fmt.Errorf("bad -records %q: want mix:N[:all|schema|removed|plain]", path)
		}
		recs = append(recs, r)
	}
	return bench.JSONL(recs), nil
}
