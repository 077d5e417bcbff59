package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// write puts report.md, bench.txt and the charts into dir.
func (h *harness) write(dir string) error {
	m := h.machine
	var b strings.Builder
	fmt.Fprintf(&b, "# mcp-sanitize benchmark report\n\n")
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| date | %s |\n", m.date.Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "| CPU | %s, %d logical cores |\n", m.cpu, m.cores)
	fmt.Fprintf(&b, "| vector extensions | %s |\n", m.flags)
	fmt.Fprintf(&b, "| kernels (`MCP_SANITIZE_KERNELS`) | %s |\n", m.kernels)
	fmt.Fprintf(&b, "| Go | %s, %s, GOMAXPROCS %d |\n", m.goVersion, m.os, m.maxprocs)
	fmt.Fprintf(&b, "| tree | %s |\n", m.rev)
	fmt.Fprintf(&b, "| load average before / after | %s / %s |\n", m.loadBefore, m.loadAfter)
	fmt.Fprintf(&b, "| corpus | %s: %d records, %.1f MB of results |\n", h.corpusName, len(h.corpus), float64(h.corpusBytes)/1e6)
	fmt.Fprintf(&b, "| command | `go run ./bench/harness %s` (took %s) |\n\n", strings.Join(os.Args[1:], " "), m.took)
	b.WriteString("In-process figures are Go benchmarks (`testing.Benchmark`, " + h.o.benchtime.String() + " each); `bench.txt` holds them " +
		"in the benchmark format, so two reports compare with `benchstat old/bench.txt new/bench.txt`. " +
		"A loaded machine lowers every figure: compare runs made under the same load average.\n\n")
	for _, s := range h.sections {
		fmt.Fprintf(&b, "## %s\n\n", s.title)
		for _, t := range s.text {
			b.WriteString(strings.TrimRight(t, "\n"))
			b.WriteString("\n\n")
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	var bt strings.Builder
	fmt.Fprintf(&bt, "goos: %s\ngoarch: %s\npkg: github.com/mcp-sanitize/mcp-sanitize/bench/harness\ncpu: %s\n", strings.Split(m.os, "/")[0], strings.Split(m.os, "/")[1], m.cpu)
	for _, l := range h.lines {
		bt.WriteString(l)
		bt.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.txt"), []byte(bt.String()), 0o644); err != nil {
		return err
	}
	for _, c := range h.charts {
		if err := os.WriteFile(filepath.Join(dir, c.file), []byte(c.svg()), 0o644); err != nil {
			return err
		}
	}
	return nil
}
