// Command rss measures the peak resident set size of sanitizing one very
// large text result: a CallToolResult whose single text block holds -size
// bytes, generated on the fly by bench.BigText (never held in memory),
// through pipeline.Engine.Sanitize into a pipeline.Discarder, with the text,
// string and output bounds raised to 2 GiB so nothing is cut. It prints the
// throughput and VmHWM from /proc/self/status.
//
//	go run ./bench/rss -size 1073741824
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

func main() {
	size := flag.Int64("size", 1<<30, "bytes of the text")
	shape := flag.String("shape", "log-tail", "text of: log-tail, file-read, web-page or api-response")
	flag.Parse()
	var sh bench.Shape = bench.LogTail
	for _, s := range bench.Shapes() {
		if s.String() == *shape {
			sh = s
		}
	}
	const big = 2 << 30
	eng, err := pipeline.NewEngine(&pipeline.Policy{
		Limits: map[string]int64{"text-chars": big, "string-chars": big, "output-bytes": big},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "rss:", err)
		os.Exit(1)
	}
	in := bench.BigText(*size, sh, 1)
	var out pipeline.Discarder
	start := time.Now()
	ev, err := eng.Sanitize(context.Background(), in, &out, pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "rss"})
	d := time.Since(start)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rss:", err)
		os.Exit(1)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("shape %s, input %d bytes, output %d bytes, outcome %s %s\n", sh, ev.Input.Bytes, out.N, ev.Outcome, ev.Code)
	fmt.Printf("%.2f s, %.0f MB/s (GOMAXPROCS %d)\n", d.Seconds(), float64(ev.Input.Bytes)/d.Seconds()/1e6, runtime.GOMAXPROCS(0))
	fmt.Printf("Go heap: sys %d KiB, total allocated %d KiB, GCs %d\n", ms.HeapSys>>10, ms.TotalAlloc>>10, ms.NumGC)
	fmt.Printf("%s, %s\n", status("VmHWM"), status("VmRSS"))
	if ev.Outcome == pipeline.OutcomeRejected || ev.Outcome == pipeline.OutcomeTruncated {
		os.Exit(1)
	}
}

// status returns one line of /proc/self/status.
func status(key string) string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return key + ": unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), key+":") {
			return strings.Join(strings.Fields(sc.Text()), " ")
		}
	}
	return key + ": unknown"
}
