package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
)

// harness holds what the sections share: the corpus, the machine and what
// has been measured so far.
type harness struct {
	o       options
	work    string // temporary directory: corpus file, built binaries
	root    string // the module's root directory
	machine machine

	corpus      []bench.Record
	corpusFile  string // the corpus as JSON lines
	corpusBytes int64  // bytes of the results (what the MB/s figures count)
	corpusName  string

	sections []section // in the order run
	lines    []string  // Go benchmark lines for bench.txt
	charts   []chart
	bins     map[string]string // built binaries by package path
}

// section is one part of the report.
type section struct {
	title string
	text  []string // paragraphs and tables, Markdown
}

type machine struct {
	cpu, flags, kernels, goVersion, os, rev string
	cores, maxprocs                         int
	loadBefore, loadAfter                   string
	date                                    time.Time
	took                                    time.Duration
}

func newHarness(o options, work string) (*harness, error) {
	h := &harness{o: o, work: work, bins: map[string]string{}}
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || len(bytes.TrimSpace(gomod)) == 0 || string(bytes.TrimSpace(gomod)) == os.DevNull {
		return nil, fmt.Errorf("run the harness from inside the mcp-sanitize module (go env GOMOD: %v)", err)
	}
	h.root = filepath.Dir(string(bytes.TrimSpace(gomod)))
	h.machine = readMachine(h.root)
	if o.corpus != "" {
		recs, n, err := readCorpus(o.corpus)
		if err != nil {
			return nil, err
		}
		h.corpus, h.corpusBytes, h.corpusName = recs, n, filepath.Base(o.corpus)
	} else {
		docs := bench.Mix(bench.MixOptions{Seed: 1, Records: o.records})
		for _, d := range docs {
			h.corpus = append(h.corpus, d.Record())
			h.corpusBytes += int64(len(d.JSON))
		}
		h.corpusName = fmt.Sprintf("generated mix (bench.Mix, seed 1, %d records)", len(docs))
	}
	if len(h.corpus) == 0 {
		return nil, fmt.Errorf("the corpus has no records")
	}
	h.corpusFile = filepath.Join(work, "corpus.jsonl")
	if err := os.WriteFile(h.corpusFile, bench.JSONL(h.corpus), 0o600); err != nil {
		return nil, err
	}
	h.progress("machine: %s, %d cores, %s; corpus: %s, %.1f MB", h.machine.cpu, h.machine.cores, h.machine.goVersion, h.corpusName, float64(h.corpusBytes)/1e6)
	return h, nil
}

// readCorpus reads {"tool","outputSchema","result"} lines.
func readCorpus(path string) ([]bench.Record, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var recs []bench.Record
	var total int64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r struct {
			Tool         string          `json:"tool"`
			OutputSchema json.RawMessage `json:"outputSchema"`
			Result       json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, 0, fmt.Errorf("%s: line %d: not a {\"tool\",\"outputSchema\",\"result\"} record: %v", path, line, err)
		}
		if len(r.Result) == 0 {
			return nil, 0, fmt.Errorf("%s: line %d: no result", path, line)
		}
		rec := bench.Record{Tool: r.Tool, Result: r.Result}
		if s := bytes.TrimSpace(r.OutputSchema); len(s) > 0 && string(s) != "null" {
			rec.OutputSchema = s
		}
		recs = append(recs, rec)
		total += int64(len(r.Result))
	}
	return recs, total, sc.Err()
}

func readMachine(root string) machine {
	m := machine{cores: runtime.NumCPU(), maxprocs: runtime.GOMAXPROCS(0), goVersion: runtime.Version(),
		os: runtime.GOOS + "/" + runtime.GOARCH, date: time.Now().UTC(), loadBefore: loadAverage()}
	m.cpu, m.flags = "unknown", ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(l, ":")
			if !ok {
				continue
			}
			switch strings.TrimSpace(k) {
			case "model name":
				if m.cpu == "unknown" {
					m.cpu = strings.TrimSpace(v)
				}
			case "flags":
				if m.flags == "" {
					var keep []string
					for _, f := range strings.Fields(v) {
						if f == "avx2" || f == "bmi2" || strings.HasPrefix(f, "avx512") {
							keep = append(keep, f)
						}
					}
					m.flags = strings.Join(keep, " ")
				}
			}
		}
	}
	if m.flags == "" {
		m.flags = "none of avx2, bmi2, avx512*"
	}
	m.kernels = os.Getenv("MCP_SANITIZE_KERNELS")
	if m.kernels == "" {
		m.kernels = "default (chosen at start from the CPU)"
	}
	if out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.rev = strings.TrimSpace(string(out))
		if exec.Command("git", "-C", root, "diff", "--quiet", "HEAD").Run() != nil {
			m.rev += " (with uncommitted changes)"
		}
	} else {
		m.rev = "unknown"
	}
	return m
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func (h *harness) progress(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, a...))
}

func (h *harness) add(s section) { h.sections = append(h.sections, s) }

// line records one Go benchmark line; name has no spaces, values are
// value-unit pairs.
func (h *harness) line(name string, n int, pairs ...string) {
	h.lines = append(h.lines, fmt.Sprintf("Benchmark%s-%d\t%d\t%s", name, h.machine.maxprocs, n, strings.Join(pairs, "\t")))
}

// build compiles a main package of the module into the work directory
// once and returns the binary's path.
func (h *harness) build(pkg string) (string, error) {
	if p, ok := h.bins[pkg]; ok {
		return p, nil
	}
	out := filepath.Join(h.work, "bin", filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = h.root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	h.bins[pkg] = out
	return out, nil
}
