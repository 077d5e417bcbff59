// Command harness measures mcp-sanitize on this machine, on a generated
// realistic mix of tool results or on your own corpus, and writes a
// Markdown report with SVG charts and a file of Go benchmark lines that
// benchstat reads.
//
//	go run ./bench/harness -out /tmp/report                  # everything, generated mix
//	go run ./bench/harness -corpus mine.jsonl -out /tmp/r    # your own corpus
//	go run ./bench/harness -quick -out /tmp/r                # smaller sizes, shorter runs
//	benchstat /tmp/old/bench.txt /tmp/r/bench.txt            # compare two runs
//
// A corpus is JSON lines of {"tool","outputSchema","result"}, the input of
// `sanitize-worker scan --jsonl`. Without -corpus the harness generates
// bench.Mix: 3000 tool results, log-normal sizes from 1 KiB to 64 KiB with
// a median near 8 KiB, one text result in five with an outputSchema, one
// result in six an image, a planted secret, tag and invisible run in one
// result in four.
//
// Sections (-sections, default all; docs/benchmarks.md says what each
// measures and how):
//
//	engine   whole pass per size, 1 KiB to 64 MiB, MB/s per core and allocations
//	stages   normalizer, redactor and whole pass on the same 64 KiB texts
//	rules    whole pass with 3, 30 and every rule of the catalog
//	corpus   the corpus in process (records.Run, one core): plain and outputSchema records apart
//	process  whole process: start-up against hello world, scan --jsonl on 1 and all cores,
//	         beside the seed's guards (node) and gitleaks on the same records
//	memory   peak RSS of 1 MiB, 64 MiB and 1 GiB messages, and of 64 concurrent 1 MiB ones
//	nats     request/reply over an embedded NATS server, worker beside a plain echo,
//	         messages/s and p50/p99/p999 latency at 1 to 32 concurrent requesters
//
// Progress goes to standard error; the report to -out (report.md,
// bench.txt, *.svg). Figures depend on the CPU and on what else runs: the
// report names the CPU, its vector extensions, the kernels in use and the
// load average before and after.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var allSections = []string{"engine", "stages", "rules", "corpus", "process", "memory", "nats"}

type options struct {
	out       string
	corpus    string
	records   int
	quick     bool
	sections  []string
	seedJS    string
	gitleaks  string
	benchtime time.Duration
	runs      int
}

func main() {
	testing.Init() // testing.Benchmark reads the test.* flags
	var o options
	var sections string
	flag.StringVar(&o.out, "out", "bench-report", "report `DIR` (created)")
	flag.StringVar(&o.corpus, "corpus", "", "corpus `FILE` of {\"tool\",\"outputSchema\",\"result\"} lines (default: the generated mix)")
	flag.IntVar(&o.records, "records", 3000, "records of the generated mix")
	flag.BoolVar(&o.quick, "quick", false, "smaller sizes and shorter runs (a first look, not a report)")
	flag.StringVar(&sections, "sections", strings.Join(allSections, ","), "comma-separated sections to run")
	flag.StringVar(&o.seedJS, "seed-js", "", "the seed's reference guards (default ../shared/reference/seed-js beside the module); \"none\" skips them")
	flag.StringVar(&o.gitleaks, "gitleaks", "", "gitleaks binary (default: on PATH, then $(go env GOPATH)/bin); \"install\" installs v"+gitleaksVersion+" with go install into the work directory; \"none\" skips it")
	flag.DurationVar(&o.benchtime, "benchtime", time.Second, "time per in-process measurement")
	flag.IntVar(&o.runs, "runs", 3, "runs per whole-process measurement (the median is reported)")
	child := flag.String("child", "", "internal: run one measurement in a child process (rss)")
	size := flag.Int64("size", 0, "internal: -child rss message size")
	conc := flag.Int("conc", 1, "internal: -child rss concurrent messages")
	flag.Parse()
	if *child != "" {
		if err := runChild(*child, *size, *conc); err != nil {
			fmt.Fprintln(os.Stderr, "harness:", err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	for _, s := range strings.Split(sections, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !slices.Contains(allSections, s) {
			fmt.Fprintf(os.Stderr, "harness: unknown section %q (known: %s)\n", s, strings.Join(allSections, ", "))
			os.Exit(2)
		}
		o.sections = append(o.sections, s)
	}
	if o.quick && o.benchtime == time.Second {
		o.benchtime = 200 * time.Millisecond
	}
	if o.runs < 1 || o.records < 1 {
		fmt.Fprintln(os.Stderr, "harness: -runs and -records must be positive")
		os.Exit(2)
	}
	if err := flag.Set("test.benchtime", o.benchtime.String()); err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "mcp-sanitize-harness-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	h, err := newHarness(o, work)
	if err != nil {
		return err
	}
	start := time.Now()
	for i, s := range o.sections {
		h.progress("[%d/%d] %s", i+1, len(o.sections), s)
		var err error
		switch s {
		case "engine":
			err = h.engineSection()
		case "stages":
			err = h.stagesSection()
		case "rules":
			err = h.rulesSection()
		case "corpus":
			err = h.corpusSection()
		case "process":
			err = h.processSection()
		case "memory":
			err = h.memorySection()
		case "nats":
			err = h.natsSection()
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	h.machine.loadAfter = loadAverage()
	h.machine.took = time.Since(start).Round(time.Second)
	if err := h.write(o.out); err != nil {
		return err
	}
	abs, _ := filepath.Abs(o.out)
	h.progress("report: %s (report.md, bench.txt, charts), %s", abs, h.machine.took)
	return nil
}
