// Command detect measures detection quality on the labeled corpus of package
// bench: it generates the corpus from a seed, runs the engine with the
// default policy over every record, scores what was redacted against the
// labels, measures single-core throughput, and runs gitleaks (when
// installed) on the same corpus for comparison. It prints a Markdown report
// (or JSON with -json). See docs/detection.md.
//
//	go run ./bench/detect [-seed 1] [-records 6000] [-out DIR] [-gitleaks PATH]
//	                      [-gitleaks-records 1000] [-examples 3] [-runs 3] [-json]
//
// gitleaks reads files and is about a hundred times slower than the engine,
// so it runs on the first -gitleaks-records records (0: all), written as
// decoded text files and as raw JSON files; our engine is scored on the
// same subset for the side-by-side table, and on the whole corpus above it.
//
// The corpus holds fake credentials only. Without -out it is written to a
// temporary directory that is removed at the end.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// GitleaksVersion is the gitleaks release the report is pinned to.
const GitleaksVersion = "8.30.1"

const gitleaksInstall = "go install github.com/zricethezav/gitleaks/v8@v" + GitleaksVersion

type options struct {
	seed     uint64
	records  int
	out      string
	gitleaks string
	jsonOut  bool
	runs     int
	glRecs   int
	examples int
}

func main() {
	var o options
	flag.Uint64Var(&o.seed, "seed", 1, "corpus seed")
	flag.IntVar(&o.records, "records", bench.DefaultCorpusRecords, "records in the corpus")
	flag.StringVar(&o.out, "out", "", "write the corpus here and keep it (default: a temporary directory, removed)")
	flag.StringVar(&o.gitleaks, "gitleaks", "", "gitleaks binary (default: gitleaks on PATH, then $(go env GOPATH)/bin/gitleaks); \"none\" skips it")
	flag.BoolVar(&o.jsonOut, "json", false, "print JSON instead of Markdown")
	flag.IntVar(&o.runs, "runs", 3, "timed passes over the corpus (the fastest is reported)")
	flag.IntVar(&o.glRecs, "gitleaks-records", 1000, "records gitleaks scans (the first ones; 0 means all)")
	flag.IntVar(&o.examples, "examples", 3, "example contexts per miss, destroyed decoy and off-target rule (secrets masked)")
	flag.Parse()
	if err := run(o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "detect:", err)
		os.Exit(1)
	}
}

// Result is the whole report.
type Result struct {
	Seed        uint64       `json:"seed"`
	Records     int          `json:"records"`
	CorpusBytes int64        `json:"corpusJsonlBytes"`
	ResultBytes int64        `json:"resultBytes"`
	TextBytes   int64        `json:"rawTextBytes"`
	Rules       int          `json:"catalogRules"`
	Tree        string       `json:"tree"`
	Machine     string       `json:"machine"`
	Ours        bench.Report `json:"ours"`
	OursMBps    float64      `json:"oursMBps"`
	Speeds      []Speed      `json:"speeds"`
	// OursSubset is our score on the records gitleaks scanned.
	OursSubset  *bench.Report `json:"oursOnGitleaksSubset,omitempty"`
	SubsetRecs  int           `json:"gitleaksRecords,omitempty"`
	Gitleaks    []GitleaksRun `json:"gitleaks,omitempty"`
	GitleaksMsg string        `json:"gitleaksNote,omitempty"`
}

// GitleaksRun is one gitleaks run on one variant of the corpus.
type GitleaksRun struct {
	Variant     string              `json:"variant"` // "text" or "json"
	DecodeDepth string              `json:"maxDecodeDepth"`
	Bytes       int64               `json:"bytes"`
	Seconds     float64             `json:"seconds"`
	MBps        float64             `json:"mbps"`
	Score       bench.ExternalScore `json:"score"`
}

func run(o options, stdout, stderr io.Writer) error {
	res := Result{Seed: o.seed, Records: o.records, Machine: machine(), Tree: tree()}
	dir := o.out
	if dir == "" {
		d, err := os.MkdirTemp("", "detect-corpus-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	start := time.Now()
	recs := bench.GenerateCorpus(bench.CorpusOptions{Seed: o.seed, Records: o.records})
	size, err := bench.WriteCorpus(dir, recs)
	if err != nil {
		return err
	}
	res.CorpusBytes = size
	for i := range recs {
		res.ResultBytes += int64(len(recs[i].Result))
	}
	fmt.Fprintf(stderr, "corpus: %d records, %.1f MB of results, written to %s in %.1fs\n", len(recs), mb(res.ResultBytes), dir, time.Since(start).Seconds())

	e, err := pipeline.NewEngine(pipeline.DefaultPolicy())
	if err != nil {
		return err
	}
	res.Rules = len(e.Catalog().Rules())
	ours, err := score(e, recs, o.examples)
	if err != nil {
		return err
	}
	res.Ours = ours
	if res.Speeds, err = throughput(e, recs, o.runs); err != nil {
		return err
	}
	res.OursMBps = res.Speeds[0].MBps
	fmt.Fprintf(stderr, "ours: recall %.2f%%, %.0f MB/s on one core\n", 100*ours.Totals.Recall(), res.OursMBps)

	bin, note := findGitleaks(o.gitleaks)
	if bin == "" {
		res.GitleaksMsg = note
		fmt.Fprintln(stderr, note)
	} else {
		if note != "" {
			res.GitleaksMsg = note
			fmt.Fprintln(stderr, note)
		}
		sub := recs
		if o.glRecs > 0 && o.glRecs < len(recs) {
			sub = recs[:o.glRecs]
		}
		res.SubsetRecs = len(sub)
		if res.TextBytes, _, err = bench.WriteRaw(dir, sub); err != nil {
			return err
		}
		so, err := score(e, sub, 0)
		if err != nil {
			return err
		}
		res.OursSubset = &so
		for _, variant := range []string{"text", "json"} {
			for _, depth := range []string{"", "0"} {
				gr, err := runGitleaks(bin, dir, variant, depth, sub)
				if err != nil {
					return err
				}
				fmt.Fprintf(stderr, "gitleaks %s depth %s: recall %.2f%%, %.1f MB/s\n", variant, gr.DecodeDepth, 100*gr.Score.Recall(), gr.MBps)
				res.Gitleaks = append(res.Gitleaks, gr)
			}
		}
	}
	if o.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return markdown(stdout, &res)
}

// normalize is the string the pipeline's finding offsets refer to.
func normalize(s string) string {
	var n scanners.Normalizer
	return string(n.Append(nil, []byte(s), true))
}

// score runs the engine over every record and scores the outcomes.
func score(e *pipeline.Engine, recs []bench.LabeledRecord, examples int) (bench.Report, error) {
	sc := bench.Scorer{Normalize: normalize, Examples: examples}
	ctx := context.Background()
	var out pipeline.Buffer
	for i := range recs {
		r := &recs[i]
		out.Reset()
		ev, err := e.Sanitize(ctx, bytes.NewReader(r.Result), &out, pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: r.Tool})
		if err != nil {
			return bench.Report{}, err
		}
		oc := bench.Outcome{
			Output:     out.Bytes(),
			Incomplete: ev.FindingsCut > 0,
			Truncated:  ev.Outcome == pipeline.OutcomeTruncated,
			Rejected:   ev.Outcome == pipeline.OutcomeRejected,
		}
		for _, f := range ev.Findings {
			if f.InKey {
				continue
			}
			oc.Findings = append(oc.Findings, bench.Finding{Rule: f.Rule, Kind: f.Kind, Pointer: f.Pointer, Offset: int(f.Offset), Length: f.Length})
		}
		if err := sc.Add(r, oc); err != nil {
			return bench.Report{}, err
		}
	}
	return sc.Report(), nil
}

// Speed is the throughput of one policy variant.
type Speed struct {
	Variant string  `json:"variant"`
	MBps    float64 `json:"mbps"`
}

// throughput measures the MB/s of the whole pass over every record on one
// core (GOMAXPROCS 1, output discarded) for the default engine and, for
// scale, with decoding of encoded runs off and with every rule off. The
// variants run interleaved, best of runs passes each, so load on a shared
// machine weighs on all of them alike.
func throughput(e *pipeline.Engine, recs []bench.LabeledRecord, runs int) ([]Speed, error) {
	noDecode := pipeline.DefaultPolicy()
	noDecode.Rules.DisableDecoding = true
	noRules := pipeline.DefaultPolicy()
	noRules.Rules.DisableTags = true
	for _, r := range e.Catalog().Rules() {
		if r.Kind == scanners.KindSecret {
			noRules.Rules.Disabled = append(noRules.Rules.Disabled, r.ID)
		}
	}
	engines := []*pipeline.Engine{e}
	for _, p := range []*pipeline.Policy{noDecode, noRules} {
		x, err := pipeline.NewEngine(p)
		if err != nil {
			return nil, err
		}
		engines = append(engines, x)
	}
	names := []string{"default policy (full catalog, decoding on)", "decoding of encoded runs off", "every rule off (normalization, bounds, re-escaping only)"}

	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	var total int64
	for i := range recs {
		total += int64(len(recs[i].Result))
	}
	ctx := context.Background()
	var out pipeline.Discarder
	var r bytes.Reader
	best := make([]time.Duration, len(engines))
	for range max(runs, 1) {
		for k, x := range engines {
			runtime.GC()
			start := time.Now()
			for i := range recs {
				r.Reset(recs[i].Result)
				if _, err := x.Sanitize(ctx, &r, &out, pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: recs[i].Tool}); err != nil {
					return nil, err
				}
			}
			if d := time.Since(start); best[k] == 0 || d < best[k] {
				best[k] = d
			}
		}
	}
	sp := make([]Speed, len(engines))
	for k := range engines {
		sp[k] = Speed{Variant: names[k], MBps: float64(total) / 1e6 / best[k].Seconds()}
	}
	return sp, nil
}

// findGitleaks returns the binary to run, or "" and why not.
func findGitleaks(flagPath string) (string, string) {
	skip := "gitleaks: not found, comparison skipped. Install the pinned release with `" + gitleaksInstall + "` and pass -gitleaks $(go env GOPATH)/bin/gitleaks."
	if flagPath == "none" {
		return "", "gitleaks: skipped (-gitleaks none)."
	}
	bin := flagPath
	if bin == "" {
		if p, err := exec.LookPath("gitleaks"); err == nil {
			bin = p
		} else if gp, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			p := filepath.Join(strings.TrimSpace(string(gp)), "bin", "gitleaks")
			if _, err := os.Stat(p); err == nil {
				bin = p
			}
		}
	}
	if bin == "" {
		return "", skip
	}
	if _, err := exec.Command(bin, "version").Output(); err != nil {
		return "", skip
	}
	// A binary built by go install carries its module version in its build
	// information (its own "version" command prints a placeholder then).
	got := "unknown"
	if out, err := exec.Command("go", "version", "-m", bin).Output(); err == nil {
		for _, l := range strings.Split(string(out), "\n") {
			f := strings.Fields(l)
			if len(f) >= 3 && f[0] == "mod" && f[1] == "github.com/zricethezav/gitleaks/v8" {
				got = strings.TrimPrefix(f[2], "v")
			}
		}
	}
	if got != GitleaksVersion {
		return bin, fmt.Sprintf("gitleaks: version %s found, the report is pinned to %s (`%s`); numbers may differ.", got, GitleaksVersion, gitleaksInstall)
	}
	return bin, ""
}

type gitleaksFinding struct {
	RuleID string
	File   string
	Secret string
	Match  string
}

// runGitleaks scans one raw variant of the corpus with gitleaks' default
// config on one core (GOMAXPROCS=1) and scores its findings. depth "" is
// gitleaks' default --max-decode-depth.
func runGitleaks(bin, dir, variant, depth string, recs []bench.LabeledRecord) (GitleaksRun, error) {
	src := filepath.Join(dir, bench.RawTextDir)
	if variant == "json" {
		src = filepath.Join(dir, bench.RawJSONDir)
	}
	report := filepath.Join(dir, fmt.Sprintf("gitleaks-%s-depth%s.json", variant, depth))
	args := []string{"dir", src, "--report-format", "json", "--report-path", report, "--no-banner", "--exit-code", "0", "--log-level", "error"}
	if depth != "" {
		args = append(args, "--max-decode-depth", depth)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return GitleaksRun{}, fmt.Errorf("gitleaks %s: %v (%d bytes of stderr withheld: it may quote corpus text)", variant, err, stderr.Len())
	}
	secs := time.Since(start).Seconds()
	b, err := os.ReadFile(report)
	if err != nil {
		return GitleaksRun{}, err
	}
	var fs []gitleaksFinding
	if err := json.Unmarshal(b, &fs); err != nil {
		return GitleaksRun{}, fmt.Errorf("gitleaks report: %w", err)
	}
	var ext []bench.ExternalFinding
	for _, f := range fs {
		n := bench.RawFileRecord(f.File)
		if n < 0 {
			continue
		}
		ext = append(ext, bench.ExternalFinding{Record: n, Rule: f.RuleID, Secret: f.Secret, Match: f.Match})
	}
	size := dirBytes(src)
	d := depth
	if d == "" {
		d = "5 (default)"
	}
	return GitleaksRun{Variant: variant, DecodeDepth: d, Bytes: size, Seconds: secs, MBps: mb(size) / secs,
		Score: bench.ScoreExternal(recs, ext, variant == "json")}, nil
}

func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func mb(n int64) float64 { return float64(n) / 1e6 }

func machine() string {
	model := ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				if i := strings.IndexByte(l, ':'); i >= 0 {
					model = strings.TrimSpace(l[i+1:])
				}
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d cores, %s %s/%s", model, runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func tree() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", ""
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = " (with uncommitted changes)"
				}
			}
		}
		if rev != "" {
			return rev[:min(12, len(rev))] + dirty
		}
	}
	if out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output(); err == nil {
		t := strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain", "--", "scanners", "pipeline").Output(); err == nil && len(st) > 0 {
			t += " (with uncommitted changes in scanners/ or pipeline/)"
		}
		return t
	}
	return "unknown"
}

func pct(x float64) string { return fmt.Sprintf("%.2f%%", 100*x) }

// markdown prints the report.
func markdown(w io.Writer, r *Result) error {
	t := r.Ours.Totals
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# Detection report\n\n")
	p("Corpus: seed %d, %d records, %.1f MB of tool results (%.1f MB as JSONL). Tree %s, %d catalog rules, default policy. Machine: %s.\n\n",
		r.Seed, r.Records, mb(r.ResultBytes), mb(r.CorpusBytes), r.Tree, r.Rules, r.Machine)
	p("## Summary\n\n")
	p("| | ours | target |\n|---|---|---|\n")
	p("| recall (secrets found / planted) | %s (%d / %d) | ≥ 99%% |\n", pct(t.Recall()), t.SecretsFound, t.Secrets)
	p("| precision (secret findings on a planted secret / all) | %s (%d / %d) | |\n", pct(t.Precision()), t.SecretFindingsTP, t.SecretFindings)
	p("| decoys intact | %s (%d destroyed / %d) | ≥ 99%% |\n", pct(t.DecoysIntact()), t.DecoysDestroyed, t.Decoys)
	p("| planted tags surviving | %d / %d | 0 |\n", t.TagsSurviving, t.Tags)
	p("| planted invisible runs surviving | %d / %d | 0 |\n", t.InvisibleSurvive, t.Invisible)
	p("| invisible or control characters anywhere in the output | %d | 0 |\n", t.InvisibleInOutput)
	p("| throughput, whole pass, one core (GOMAXPROCS=1) | %.0f MB/s | ≥ 300 MB/s |\n", r.OursMBps)
	for _, sp := range r.Speeds[1:] {
		p("| for scale: %s | %.0f MB/s | |\n", sp.Variant, sp.MBps)
	}
	if t.Truncated+t.Rejected+t.Incomplete > 0 {
		p("| records truncated / rejected / with findings not listed | %d / %d / %d | 0 |\n", t.Truncated, t.Rejected, t.Incomplete)
	}
	p("\n")

	if len(r.Gitleaks) > 0 && r.OursSubset != nil {
		st := r.OursSubset.Totals
		p("## Beside gitleaks %s (default config, GOMAXPROCS=1)\n\n", GitleaksVersion)
		p("On the first %d records (%d planted secrets, %.1f MB as decoded text, %.1f MB as raw JSON); both scanners on the same records.\n\n",
			r.SubsetRecs, st.Secrets, mb(r.TextBytes), mb(r.Gitleaks[len(r.Gitleaks)-1].Bytes))
		p("| scanner | input | recall | false positives (of which on decoys) | findings | MB/s |\n|---|---|---|---|---|---|\n")
		p("| ours | JSON records (strings decoded) | %s | %d (%d) | %d | %.0f |\n", pct(st.Recall()), st.SecretFindings-st.SecretFindingsTP, oursOnDecoy(r.OursSubset), st.SecretFindings, r.OursMBps)
		for _, g := range r.Gitleaks {
			in := "decoded text files"
			if g.Variant == "json" {
				in = "raw JSON files"
			}
			p("| gitleaks, --max-decode-depth %s | %s | %s | %d (%d) | %d | %.1f |\n", g.DecodeDepth, in, pct(g.Score.Recall()), g.Score.FalsePositives, g.Score.OnDecoy, g.Score.Findings, g.MBps)
		}
		p("\n")
	}
	if r.GitleaksMsg != "" {
		p("%s\n\n", r.GitleaksMsg)
	}

	p("## Recall by family\n\n")
	fhdr := "| family | planted | found | recall |"
	if len(r.Gitleaks) > 0 {
		fhdr += " gitleaks text (first records) | gitleaks json (first records) |"
	}
	p("%s\n|%s\n", fhdr, strings.Repeat("---|", strings.Count(fhdr, "|")-1))
	type fam struct{ planted, found, gt, gtp, gj, gjp int }
	fams := map[string]*fam{}
	var order []string
	for _, ts := range r.Ours.Types {
		if ts.Kind != bench.LabelSecret {
			continue
		}
		f := fams[ts.Family]
		if f == nil {
			f = &fam{}
			fams[ts.Family] = f
			order = append(order, ts.Family)
		}
		f.planted += ts.Planted
		f.found += ts.Found
		for _, g := range r.Gitleaks {
			if g.DecodeDepth == "0" {
				continue
			}
			c := g.Score.Types[ts.Type]
			if g.Variant == "text" {
				f.gt, f.gtp = f.gt+c[0], f.gtp+c[1]
			} else {
				f.gj, f.gjp = f.gj+c[0], f.gjp+c[1]
			}
		}
	}
	for _, name := range order {
		f := fams[name]
		p("| %s | %d | %d | %s |", name, f.planted, f.found, pct(float64(f.found)/float64(max(f.planted, 1))))
		if len(r.Gitleaks) > 0 {
			p(" %s | %s |", pct(float64(f.gt)/float64(max(f.gtp, 1))), pct(float64(f.gj)/float64(max(f.gjp, 1))))
		}
		p("\n")
	}
	p("\n## Secrets by family and type\n\n")
	hdr := "| family | type | planted | found | missed (bytes survive / no covering finding) | found by |"
	if len(r.Gitleaks) > 0 {
		hdr += " gitleaks text (first records) | gitleaks json (first records) |"
	}
	p("%s\n|%s\n", hdr, strings.Repeat("---|", strings.Count(hdr, "|")-1))
	for _, ts := range r.Ours.Types {
		if ts.Kind != bench.LabelSecret {
			continue
		}
		miss := ts.Planted - ts.Found
		p("| %s | %s | %d | %d | %d (%d / %d) | %s |", ts.Family, ts.Type, ts.Planted, ts.Found, miss, ts.Survived, ts.Uncovered, ruleList(ts.Rules))
		if len(r.Gitleaks) > 0 {
			for _, g := range r.Gitleaks {
				if g.DecodeDepth == "0" {
					continue
				}
				c := g.Score.Types[ts.Type]
				p(" %d/%d |", c[0], c[1])
			}
		}
		p("\n")
	}
	p("\n## Tags and invisible characters\n\n| kind | type | planted | removed | surviving | by |\n|---|---|---|---|---|---|\n")
	for _, ts := range r.Ours.Types {
		if ts.Kind == bench.LabelTag || ts.Kind == bench.LabelInvisible {
			p("| %s | %s | %d | %d | %d | %s |\n", ts.Kind, ts.Type, ts.Planted, ts.Found, ts.Survived, ruleList(ts.Rules))
		}
	}
	p("\n## Decoys\n\n| type | planted | intact | destroyed | destroyed by |\n|---|---|---|---|---|\n")
	for _, ts := range r.Ours.Types {
		if ts.Kind == bench.LabelDecoy {
			p("| %s | %d | %d | %d | %s |\n", ts.Type, ts.Planted, ts.Found, ts.Destroyed, ruleList(ts.Rules))
		}
	}
	p("\n## Findings per rule\n\n| rule | kind | findings | on planted | on decoys | elsewhere | decoys destroyed |\n|---|---|---|---|---|---|---|\n")
	for _, rs := range r.Ours.Rules {
		p("| %s | %s | %d | %d | %d | %d | %d |\n", rs.Rule, rs.Kind, rs.Findings, rs.OnPlanted, rs.OnDecoy, rs.Elsewhere, rs.DecoysDestroyed)
	}
	p("\nRules of the catalog with no finding on this corpus are not listed.\n")
	var misses []string
	for _, ts := range r.Ours.Types {
		if (ts.Kind == bench.LabelSecret && ts.Found < ts.Planted) || ts.Destroyed > 0 || ts.Survived > 0 && ts.Kind != bench.LabelSecret {
			misses = append(misses, fmt.Sprintf("- %s %s: %s", ts.Kind, ts.Type, ctxList(ts.MissContexts)))
		}
	}
	if len(misses) > 0 {
		p("\n## Where the misses are (record shapes)\n\n%s\n", strings.Join(misses, "\n"))
	}
	if len(r.Ours.Examples) > 0 {
		var keys []string
		for k := range r.Ours.Examples {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		p("\n## Examples (planted secrets masked: prefix and length)\n\n")
		for _, k := range keys {
			p("- %s\n", k)
			for _, x := range r.Ours.Examples[k] {
				p("  - `%s`\n", strings.ReplaceAll(x, "`", "'"))
			}
		}
	}
	return nil
}

func oursOnDecoy(r *bench.Report) int {
	n := 0
	for _, rs := range r.Rules {
		if rs.Kind != "tag" {
			n += rs.OnDecoy
		}
	}
	return n
}

func ruleList(m map[string]int) string {
	type kv struct {
		k string
		v int
	}
	var s []kv
	for k, v := range m {
		s = append(s, kv{k, v})
	}
	sort.Slice(s, func(i, j int) bool { return s[i].v > s[j].v || s[i].v == s[j].v && s[i].k < s[j].k })
	var out []string
	for _, x := range s {
		out = append(out, fmt.Sprintf("%s (%d)", x.k, x.v))
	}
	if len(out) == 0 {
		return "–"
	}
	return strings.Join(out, ", ")
}

func ctxList(m map[string]int) string { return ruleList(m) }
