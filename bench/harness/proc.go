package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

const gitleaksVersion = "8.30.1"

// timed runs cmd runs times and returns the median wall time and the
// largest peak RSS (KiB; 0 where /usr/bin/time is absent).
func (h *harness) timed(runs int, dir string, env []string, name string, args ...string) (time.Duration, int64, error) {
	wall, _, rss, err := h.timedCPU(runs, dir, env, name, args...)
	return wall, rss, err
}

// timedCPU is timed that also returns the median CPU time (user + system,
// of the process and its threads and children; 0 where /usr/bin/time is
// absent). On a shared machine the wall time counts what else runs; the
// CPU time much less so.
func (h *harness) timedCPU(runs int, dir string, env []string, name string, args ...string) (time.Duration, time.Duration, int64, error) {
	timeBin, _ := exec.LookPath("/usr/bin/time")
	var walls, cpus []time.Duration
	var rss int64
	for range runs {
		var cmd *exec.Cmd
		rssFile := filepath.Join(h.work, "rss")
		if timeBin != "" {
			cmd = exec.Command(timeBin, append([]string{"-f", "%M %U %S", "-o", rssFile, name}, args...)...)
		} else {
			cmd = exec.Command(name, args...)
		}
		cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			return 0, 0, 0, fmt.Errorf("%s: %v: %s", filepath.Base(name), err, lastLines(stderr.String(), 5))
		}
		walls = append(walls, time.Since(t0))
		if timeBin != "" {
			if b, err := os.ReadFile(rssFile); err == nil {
				// The last line is ours; a line before it may say the
				// command was signalled.
				l := strings.Split(strings.TrimSpace(string(b)), "\n")
				f := strings.Fields(l[len(l)-1])
				if len(f) == 3 {
					if k, err := strconv.ParseInt(f[0], 10, 64); err == nil {
						rss = max(rss, k)
					}
					u, uerr := strconv.ParseFloat(f[1], 64)
					sy, serr := strconv.ParseFloat(f[2], 64)
					if uerr == nil && serr == nil {
						cpus = append(cpus, time.Duration(math.Round((u+sy)*1000))*time.Millisecond)
					}
				}
			}
		}
	}
	slices.Sort(walls)
	var cpu time.Duration
	if len(cpus) > 0 {
		slices.Sort(cpus)
		cpu = cpus[len(cpus)/2]
	}
	return walls[len(walls)/2], cpu, rss, nil
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, " | ")
}

func (h *harness) processSection() error {
	worker, err := h.build("./cmd/sanitize-worker")
	if err != nil {
		return err
	}
	text := []string{fmt.Sprintf("Whole processes, start-up and I/O included, median of %d runs; MB/s = %.1f MB of results / wall time.",
		h.o.runs, float64(h.corpusBytes)/1e6)}

	// Start-up: one small message against a hello-world Go process.
	hello := filepath.Join(h.work, "hello")
	if err := os.MkdirAll(hello, 0o755); err != nil {
		return err
	}
	src := filepath.Join(hello, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"), 0o600); err != nil {
		return err
	}
	helloBin := filepath.Join(hello, "hello")
	if b, err := exec.Command("go", "build", "-o", helloBin, src).CombinedOutput(); err != nil {
		return fmt.Errorf("building hello world: %v: %s", err, b)
	}
	small := filepath.Join(h.work, "small.json")
	if err := os.WriteFile(small, []byte(`{"content":[{"type":"text","text":"ok: 3 files changed"}]}`), 0o600); err != nil {
		return err
	}
	startRuns := 21
	if h.o.quick {
		startRuns = 7
	}
	th, _, err := h.timed(startRuns, h.work, nil, helloBin)
	if err != nil {
		return err
	}
	ts, _, err := h.timed(startRuns, h.work, nil, worker, "scan", "--in", small, "--out", os.DevNull)
	if err != nil {
		return err
	}
	h.progress("  start-up: hello %s, scan %s (%.1fx)", th, ts, float64(ts)/float64(th))
	h.line("Process/startup/hello", startRuns, fmt.Sprintf("%d ns/op", th.Nanoseconds()))
	h.line("Process/startup/scan", startRuns, fmt.Sprintf("%d ns/op", ts.Nanoseconds()))
	text = append(text, fmt.Sprintf("Start-up: `sanitize-worker scan` of one small tool result takes %s, a hello-world Go process %s: **%.1fx** (median of %d runs each).",
		ts.Round(10*time.Microsecond), th.Round(10*time.Microsecond), float64(ts)/float64(th), startRuns))

	policy := filepath.Join(h.work, "policy.yaml")
	if err := os.WriteFile(policy, []byte("version: harness\nlimits:\n  text-chars: 1000000000\n  string-chars: 1000000000\n  output-bytes: 1000000000\n"), 0o600); err != nil {
		return err
	}
	tab := []string{"| side | wall s | CPU s (user+sys) | MB/s | records/s | peak RSS MiB | speed against the seed (wall) | CPU time against the seed |", "|---|---|---|---|---|---|---|---|"}
	type side struct {
		name      string
		wall, cpu time.Duration
		rss       int64
	}
	var sides []side
	// On a CPU with AVX-512 the runs are repeated on the AVX2 path
	// (GODEBUG=cpu.avx512f=off turns off every AVX-512 kernel, as on a
	// Zen 3), so both kernel paths are reported from one machine.
	paths := []struct{ name, env string }{{"", ""}}
	if strings.Contains(h.machine.flags, "avx512f") {
		paths = append(paths, struct{ name, env string }{", AVX2 path (`GODEBUG=cpu.avx512f=off`)", "GODEBUG=cpu.avx512f=off"})
	}
	for _, path := range paths {
		var env []string
		if path.env != "" {
			env = []string{path.env}
		}
		for _, w := range []int{1, h.machine.cores} {
			if w == 1 && h.machine.cores == 1 && len(sides) > 0 {
				continue
			}
			wall, cpu, rss, err := h.timedCPU(h.o.runs, h.work, env, worker, "scan", "--jsonl", "--workers", strconv.Itoa(w), "--policy", policy,
				"--in", h.corpusFile, "--out", os.DevNull)
			if err != nil {
				return err
			}
			sides = append(sides, side{fmt.Sprintf("ours, `scan --jsonl --workers %d`%s", w, path.name), wall, cpu, rss})
			h.progress("  scan --jsonl --workers %d%s: %s, %.1f MB/s, CPU %s", w, path.name, wall, float64(h.corpusBytes)/1e6/wall.Seconds(), cpu)
			name := fmt.Sprintf("Process/scan-jsonl/workers=%d", w)
			if path.env != "" {
				name += "/avx2"
			}
			h.line(name, h.o.runs, fmt.Sprintf("%d ns/op", wall.Nanoseconds()),
				fmt.Sprintf("%.2f MB/s", float64(h.corpusBytes)/1e6/wall.Seconds()), fmt.Sprintf("%d cpu-ns/op", cpu.Nanoseconds()))
		}
	}
	var seedWall, seedCPU time.Duration
	if dir, note := h.seedJS(); dir == "" {
		text = append(text, "The seed's guards: "+note)
	} else {
		out := filepath.Join(h.work, "seed-out.jsonl")
		wall, cpu, rss, err := h.timedCPU(h.o.runs, dir, []string{"SEED_MAX_TEXT_CHARS=1000000000"}, "node", "run.mjs", h.corpusFile, out)
		if err != nil {
			text = append(text, "The seed's guards failed on this corpus: "+err.Error())
		} else {
			seedWall, seedCPU = wall, cpu
			sides = append(sides, side{"the seed's guards (`node run.mjs`, G001 + G002)", wall, cpu, rss})
			h.progress("  seed-js: %s, %.1f MB/s, CPU %s", wall, float64(h.corpusBytes)/1e6/wall.Seconds(), cpu)
			h.line("Process/seed-js", h.o.runs, fmt.Sprintf("%d ns/op", wall.Nanoseconds()),
				fmt.Sprintf("%.2f MB/s", float64(h.corpusBytes)/1e6/wall.Seconds()), fmt.Sprintf("%d cpu-ns/op", cpu.Nanoseconds()))
		}
	}
	for _, s := range sides {
		ratio, cpuRatio := "", ""
		if seedWall > 0 && !strings.HasPrefix(s.name, "the seed") {
			ratio = fmt.Sprintf("%.1fx", seedWall.Seconds()/s.wall.Seconds())
			if s.cpu > 0 && seedCPU > 0 {
				cpuRatio = fmt.Sprintf("%.1fx", seedCPU.Seconds()/s.cpu.Seconds())
			}
		}
		tab = append(tab, fmt.Sprintf("| %s | %.3f | %.3f | %.1f | %.0f | %.1f | %s | %s |", s.name, s.wall.Seconds(), s.cpu.Seconds(),
			float64(h.corpusBytes)/1e6/s.wall.Seconds(), float64(len(h.corpus))/s.wall.Seconds(), float64(s.rss)/1024, ratio, cpuRatio))
	}
	text = append(text, "CPU s is the user and system time of the process and its threads (median of the runs): on a machine shared with other work it moves much less than the wall time.")
	text = append(text, table(tab))
	if gl := h.gitleaksRow(worker, policy); gl != "" {
		text = append(text, gl)
	}
	h.add(section{title: "Whole process", text: text})
	return nil
}

// seedJS returns the seed-js directory ready to run (npm installed into a
// copy in the work directory), or "" and why not.
func (h *harness) seedJS() (string, string) {
	src := h.o.seedJS
	if src == "none" {
		return "", "skipped (-seed-js none)."
	}
	if src == "" {
		src = filepath.Join(h.root, "..", "shared", "reference", "seed-js")
	}
	if _, err := os.Stat(filepath.Join(src, "run.mjs")); err != nil {
		return "", fmt.Sprintf("not found at %s (pass -seed-js DIR); only our side is measured.", src)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", "node not found; only our side is measured."
	}
	dst := filepath.Join(h.work, "seed-js")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return "", "copying seed-js: " + err.Error()
	}
	_ = os.RemoveAll(filepath.Join(dst, "node_modules"))
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dst
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Sprintf("npm install failed (%v): %s", err, lastLines(string(b), 3))
	}
	return dst, ""
}

// gitleaksRow scans the corpus's results as files with gitleaks and with
// ours on one core, and says how they compare; "" when gitleaks is skipped.
func (h *harness) gitleaksRow(worker, policy string) string {
	bin, note := h.findGitleaks()
	if bin == "" {
		return "gitleaks: " + note
	}
	dir := filepath.Join(h.work, "gitleaks-in")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "gitleaks: " + err.Error()
	}
	for i, r := range h.corpus {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("r%06d.json", i)), r.Result, 0o600); err != nil {
			return "gitleaks: " + err.Error()
		}
	}
	gw, _, err := h.timed(h.o.runs, h.work, []string{"GOMAXPROCS=1"}, bin, "dir", dir, "--no-banner", "--exit-code", "0",
		"--report-format", "json", "--report-path", filepath.Join(h.work, "gitleaks.json"), "--log-level", "error")
	if err != nil {
		return "gitleaks: " + err.Error()
	}
	ow, _, err := h.timed(h.o.runs, h.work, []string{"GOMAXPROCS=1"}, worker, "scan", "--jsonl", "--workers", "1", "--policy", policy,
		"--in", h.corpusFile, "--out", os.DevNull)
	if err != nil {
		return "gitleaks: " + err.Error()
	}
	mb := float64(h.corpusBytes) / 1e6
	h.progress("  gitleaks %s: %s (%.1f MB/s), ours %s", gitleaksVersion, gw, mb/gw.Seconds(), ow)
	h.line("Process/gitleaks", h.o.runs, fmt.Sprintf("%d ns/op", gw.Nanoseconds()), fmt.Sprintf("%.2f MB/s", mb/gw.Seconds()))
	return fmt.Sprintf("gitleaks %s (`gitleaks dir` over the results as one file each, default rules, `GOMAXPROCS=1`): %.2f s, %.1f MB/s; "+
		"ours on one core (`GOMAXPROCS=1 scan --jsonl --workers 1`, which also normalizes, neutralizes tags and bounds): %.2f s, %.1f MB/s: **%.1fx**.",
		gitleaksVersion, gw.Seconds(), mb/gw.Seconds(), ow.Seconds(), mb/ow.Seconds(), gw.Seconds()/ow.Seconds())
}

func (h *harness) findGitleaks() (string, string) {
	switch h.o.gitleaks {
	case "none":
		return "", "skipped (-gitleaks none)."
	case "install":
		gobin := filepath.Join(h.work, "gobin")
		cmd := exec.Command("go", "install", "github.com/zricethezav/gitleaks/v8@v"+gitleaksVersion)
		cmd.Env = append(os.Environ(), "GOBIN="+gobin)
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Sprintf("go install failed (%v): %s", err, lastLines(string(b), 3))
		}
		return filepath.Join(gobin, "gitleaks"), ""
	case "":
		if p, err := exec.LookPath("gitleaks"); err == nil {
			return p, ""
		}
		if gp, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			p := filepath.Join(strings.TrimSpace(string(gp)), "bin", "gitleaks")
			if _, err := os.Stat(p); err == nil {
				return p, ""
			}
		}
		return "", "not found; run with -gitleaks install (go install github.com/zricethezav/gitleaks/v8@v" + gitleaksVersion + ") or -gitleaks PATH."
	}
	return h.o.gitleaks, ""
}

// memorySection runs each measurement in a child process of its own, so
// that the peak RSS (VmHWM) is that measurement's alone.
func (h *harness) memorySection() error {
	cases := []struct{ size, conc int64 }{{1 << 20, 1}, {64 << 20, 1}, {1 << 30, 1}, {1 << 20, 64}}
	if h.o.quick {
		cases = []struct{ size, conc int64 }{{1 << 20, 1}, {64 << 20, 1}, {1 << 20, 16}}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tab := []string{"| messages | peak RSS MiB | MB/s (all messages) |", "|---|---|---|"}
	var pts []point
	for _, c := range cases {
		out, err := exec.Command(self, "-child", "rss", "-size", strconv.FormatInt(c.size, 10), "-conc", strconv.FormatInt(c.conc, 10)).Output()
		if err != nil {
			return fmt.Errorf("rss child %s x %d: %v", human(c.size), c.conc, err)
		}
		var r struct {
			HWMKiB int64   `json:"hwmKiB"`
			MBps   float64 `json:"mbps"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			return fmt.Errorf("rss child output: %v", err)
		}
		label := fmt.Sprintf("%d x %s", c.conc, human(c.size))
		if c.conc == 1 {
			label = "one of " + human(c.size)
			pts = append(pts, point{float64(c.size), float64(r.HWMKiB) / 1024})
		}
		h.progress("  %s: peak RSS %.1f MiB", label, float64(r.HWMKiB)/1024)
		h.line(fmt.Sprintf("Memory/size=%s/conc=%d", human(c.size), c.conc), 1, fmt.Sprintf("%d peak-RSS-KiB", r.HWMKiB), fmt.Sprintf("%.2f MB/s", r.MBps))
		tab = append(tab, fmt.Sprintf("| %s | %.1f | %.1f |", label, float64(r.HWMKiB)/1024, r.MBps))
	}
	h.charts = append(h.charts, chart{file: "memory-size.svg", title: "Peak RSS of one message against its size",
		xlabel: "message size (bytes)", ylabel: "peak RSS (MiB)", logX: true, series: []series{{name: "one text block", pts: pts}}})
	h.add(section{title: "Memory", text: []string{
		"Peak resident set size (VmHWM) of a child process that sanitizes `bench.BigText` results (one text block, generated " +
			"while read, never held) with every bound raised so nothing is cut, output discarded. The engine holds a chunk, " +
			"the redactor's window and the output buffer per message: the peak should not grow with the message.",
		"![memory against size](memory-size.svg)", table(tab)}})
	return nil
}

// runChild is the -child mode: conc concurrent messages of size bytes.
func runChild(what string, size int64, conc int) error {
	if what != "rss" || size <= 0 || conc <= 0 {
		return fmt.Errorf("-child rss needs -size and -conc > 0")
	}
	eng, err := newEngine(nil)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, conc)
	t0 := time.Now()
	for i := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out pipeline.Discarder
			if _, err := eng.Sanitize(context.Background(), bench.BigText(size, bench.LogTail, uint64(i+1)), &out, toolInfo); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	el := time.Since(t0)
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	hwm, err := vmHWM()
	if err != nil {
		return err
	}
	total := float64(bench.BigText(size, bench.LogTail, 1).Size()) * float64(conc)
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"hwmKiB": hwm, "mbps": total / 1e6 / el.Seconds(), "gomaxprocs": runtime.GOMAXPROCS(0)})
}

func vmHWM() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				return strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("VmHWM not in /proc/self/status")
}

// natsSection runs bench/natsbench: the inline and the durable path at
// several numbers of requesters, then a fleet of one worker per core.
func (h *harness) natsSection() error {
	nb, err := h.build("./bench/natsbench")
	if err != nil {
		return err
	}
	concs := []int{1, 4, 16, 32}
	dur := "6s"
	if h.o.quick {
		concs, dur = []int{1, 8}, "1500ms"
	}
	type runCfg struct {
		durable bool
		conc    int
		workers int
	}
	var cfgs []runCfg
	for _, d := range []bool{false, true} {
		for _, c := range concs {
			cfgs = append(cfgs, runCfg{d, c, 1})
		}
	}
	if h.machine.cores > 1 {
		for _, d := range []bool{false, true} {
			cfgs = append(cfgs, runCfg{d, concs[len(concs)-1], h.machine.cores})
		}
	}
	tab := []string{"| path | workers | payloads | requesters | echo msg/s | echo p50 / p99 / p999 ms | worker msg/s | worker p50 / p99 / p999 ms | worker / echo | CPU µs/msg echo / worker | echo CPU / worker CPU |",
		"|---|---|---|---|---|---|---|---|---|---|---|"}
	lat := map[string][]point{}
	for i, cfg := range cfgs {
		path := map[bool]string{false: "inline", true: "durable"}[cfg.durable]
		jf := filepath.Join(h.work, fmt.Sprintf("nats-%d.jsonl", i))
		args := []string{"-mix", "400", "-sizes", "4096", "-c", strconv.Itoa(cfg.conc), "-d", dur, "-json", jf, "-default-bounds",
			"-workers", strconv.Itoa(cfg.workers)}
		if cfg.durable {
			args = append(args, "-durable")
		}
		cmd := exec.Command(nb, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("natsbench %s: %v: %s", strings.Join(args, " "), err, lastLines(stderr.String(), 5))
		}
		b, err := os.ReadFile(jf)
		if err != nil {
			return err
		}
		for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			var r struct {
				Size   string    `json:"size"`
				Echo   natsStats `json:"echo"`
				Worker natsStats `json:"worker"`
			}
			if err := json.Unmarshal(l, &r); err != nil {
				return fmt.Errorf("natsbench output: %v", err)
			}
			e, w := r.Echo, r.Worker
			h.progress("  %s, %d worker(s), %s, %d requesters: echo %.0f msg/s, worker %.0f msg/s (%.2f); CPU/msg echo %.0f µs, worker %.0f µs (%.2f)",
				path, cfg.workers, r.Size, cfg.conc, e.Rate, w.Rate, w.Rate/e.Rate, us(e.CPUPerMsg), us(w.CPUPerMsg), cpuRatio(e, w))
			for _, sd := range []struct {
				n string
				v natsStats
			}{{"echo", e}, {"worker", w}} {
				h.line(fmt.Sprintf("NATS/%s/%s/workers=%d/payload=%s/c=%d", path, sd.n, cfg.workers, strings.ReplaceAll(r.Size, " ", ""), cfg.conc), sd.v.Count,
					fmt.Sprintf("%.0f msg/s", sd.v.Rate), fmt.Sprintf("%d p50-ns", sd.v.P50), fmt.Sprintf("%d p99-ns", sd.v.P99), fmt.Sprintf("%d p999-ns", sd.v.P999), fmt.Sprintf("%d cpu-ns/msg", sd.v.CPUPerMsg))
				if r.Size == "mix" && cfg.workers == 1 {
					k := fmt.Sprintf("%s %s p99", path, sd.n)
					lat[k] = append(lat[k], point{float64(cfg.conc), float64(sd.v.P99) / 1e6})
				}
			}
			tab = append(tab, fmt.Sprintf("| %s | %d | %s | %d | %.0f | %.2f / %.2f / %.2f | %.0f | %.2f / %.2f / %.2f | %.2f | %.0f / %.0f | %.2f |", path, cfg.workers, r.Size, cfg.conc,
				e.Rate, ms(e.P50), ms(e.P99), ms(e.P999), w.Rate, ms(w.P50), ms(w.P99), ms(w.P999), w.Rate/e.Rate,
				us(e.CPUPerMsg), us(w.CPUPerMsg), cpuRatio(e, w)))
		}
	}
	var ss []series
	for _, k := range []string{"inline echo p99", "inline worker p99", "durable echo p99", "durable worker p99"} {
		ss = append(ss, series{name: k, pts: lat[k]})
	}
	h.charts = append(h.charts, chart{file: "latency-load.svg", title: "p99 latency on the realistic mix against concurrent requesters",
		xlabel: "concurrent requesters", ylabel: "p99 latency (ms)", logX: true, series: ss})
	h.add(section{title: "Over NATS", text: []string{
		"`bench/natsbench` with an embedded NATS server (one process: server, responders and requesters share the cores, so " +
			"the ratio is the result). Inline: request/reply on `mcp.sanitize.tool-result`, against a plain echo responder. " +
			"Durable: each requester publishes to MCP_RAW (JetStream) and waits for its output on MCP_CLEAN before the next " +
			"(closed loop), against a plain JetStream consumer that republishes every input unchanged. The worker runs its " +
			"default bounds (text cut at 12000 characters), evidence to JetStream. Echo and worker take turns so load on a shared " +
			"machine weighs on both. Payloads: the realistic mix (400 documents of bench.Mix) and 4 KiB results. " +
			"CPU µs/msg is the user and system time of the whole process (server, responders, requesters: getrusage) over the " +
			"messages of a phase; on a shared machine it moves much less than msg/s, and since a quiet 2-core machine is CPU-bound " +
			"here, echo CPU / worker CPU is the load-independent proxy of the throughput ratio.",
		"![latency against load](latency-load.svg)", table(tab)}})
	return nil
}

// natsStats is one side of a natsbench -json line.
type natsStats struct {
	Rate  float64 `json:"msgsPerSec"`
	Count int     `json:"count"`
	P50   int64   `json:"p50ns"`
	P99   int64   `json:"p99ns"`
	P999  int64   `json:"p999ns"`
	// CPUPerMsg is the process's user and system time over the phase's
	// messages, in nanoseconds.
	CPUPerMsg int64 `json:"cpuPerMsgNs"`
}

// cpuRatio is the echo's CPU time a message over the worker's: the
// throughput ratio the process could reach if CPU bound it alone.
func cpuRatio(e, w natsStats) float64 {
	if w.CPUPerMsg == 0 {
		return 0
	}
	return float64(e.CPUPerMsg) / float64(w.CPUPerMsg)
}

func us(ns int64) float64 { return float64(ns) / 1e3 }

func ms(ns int64) float64 { return float64(ns) / 1e6 }
