package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

const explainUsageHead = `usage: sanitize-worker explain [flags] [< text]

Says, for a text, which rules matched where and whether each match was
redacted or kept, and why: the rule's description and confidence, a
checksum or an encoding when there is one, and for a kept match the
rules.allow entry that kept it. The text is sanitized as the only text block
of a tool result under the policy (so rules.allow, rules.minConfidence,
rules.disabled and normalization apply as they would in scan), and never
printed: only rule ids, offsets (bytes of the normalized text) and
fingerprints. With --json the explanation is one JSON object.

Exit codes: 0 nothing matched; 4 something matched (redacted or kept); 2
usage error; 1 any other failure.

flags:
`

// exitMatched is explain's exit code when the text holds a match.
const exitMatched = 4

// explanation is what explain prints.
type explanation struct {
	Tool     string        `json:"tool"`
	Policy   string        `json:"policy"`
	Matches  []explainItem `json:"matches"`
	Redacted int           `json:"redacted"`
	Kept     int           `json:"kept"`
}

type explainItem struct {
	Rule        string `json:"rule"`
	Kind        string `json:"kind"`
	Verdict     string `json:"verdict"` // "redacted", "removed" (a tag) or "kept"
	Offset      int64  `json:"offset"`
	Length      int    `json:"length"`
	Confidence  string `json:"confidence,omitempty"`
	Why         string `json:"why"`
	Checksum    string `json:"checksum,omitempty"`
	Encoding    string `json:"encoding,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	AllowEntry  *int   `json:"allowEntry,omitempty"`
}

func runExplain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), explainUsageHead)
		fs.PrintDefaults()
	}
	in := fs.String("in", "", "read the text from `FILE` instead of standard input")
	policy := fs.String("policy", "", "policy `FILE` (JSON or YAML); the built-in defaults without it")
	tool := fs.String("tool", "explain", "tool `NAME` the text is attributed to (rules.allow entries with a tool match it)")
	server := fs.String("server", "", "server `NAME` the text is attributed to")
	asJSON := fs.Bool("json", false, "print one JSON object instead of lines")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sanitize-worker explain: unexpected argument %q (the text comes from standard input or --in)\n", fs.Arg(0))
		return exitUsage
	}
	pol := pipeline.DefaultPolicy()
	if *policy != "" {
		p, err := pipeline.LoadPolicy(*policy)
		if err != nil {
			fmt.Fprintf(stderr, "sanitize-worker explain: %v\n", err)
			return exitUsage
		}
		pol = p
	}
	eng, err := pipeline.NewEngine(pol)
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker explain: %v\n", err)
		return exitUsage
	}
	src := stdin
	if *in != "" {
		f, err := os.Open(*in)
		if err != nil {
			fmt.Fprintln(stderr, "sanitize-worker explain: cannot open --in")
			return exitFailure
		}
		defer f.Close()
		src = f
	}
	text, err := io.ReadAll(io.LimitReader(src, maxExplainBytes+1))
	if err != nil {
		fmt.Fprintln(stderr, "sanitize-worker explain: cannot read the text")
		return exitFailure
	}
	if len(text) > maxExplainBytes {
		fmt.Fprintf(stderr, "sanitize-worker explain: the text is longer than %d bytes\n", maxExplainBytes)
		return exitUsage
	}
	ex, err := explain(ctx, eng, string(text), pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: *tool, Server: *server})
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker explain: %v\n", err)
		return exitFailure
	}
	if *asJSON {
		b, _ := json.Marshal(ex)
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		printExplanation(stdout, ex)
	}
	if len(ex.Matches) > 0 {
		return exitMatched
	}
	return exitOK
}

// maxExplainBytes bounds the text explain reads.
const maxExplainBytes = 16 << 20

// explain sanitizes text as one text block and describes the evidence.
func explain(ctx context.Context, eng *pipeline.Engine, text string, info pipeline.MessageInfo) (*explanation, error) {
	body, err := json.Marshal(map[string]any{"content": []any{map[string]string{"type": "text", "text": text}}})
	if err != nil {
		return nil, err
	}
	var out pipeline.Buffer
	ev, err := eng.Sanitize(ctx, bytes.NewReader(body), &out, info)
	if err != nil {
		return nil, err
	}
	infos := map[string][2]string{}
	for _, r := range eng.Catalog().Rules() {
		infos[r.ID] = [2]string{r.Confidence, r.Description}
	}
	ex := &explanation{Tool: ev.Tool, Policy: ev.PolicyVersion, Matches: []explainItem{}}
	for _, f := range ev.Findings {
		it := explainItem{Rule: f.Rule, Kind: f.Kind, Verdict: "redacted", Offset: f.Offset, Length: f.Length,
			Confidence: infos[f.Rule][0], Why: infos[f.Rule][1], Checksum: f.Checksum, Encoding: f.Encoding, Fingerprint: f.Fingerprint}
		if f.Kind == "tag" {
			it.Verdict, it.Confidence = "removed", ""
		} else {
			ex.Redacted++
		}
		ex.Matches = append(ex.Matches, it)
	}
	for _, s := range ev.Suppressed {
		entry := s.Entry
		ex.Matches = append(ex.Matches, explainItem{Rule: s.Rule, Kind: "secret", Verdict: "kept", Offset: s.Offset, Length: s.Length,
			Confidence: infos[s.Rule][0], Why: fmt.Sprintf("kept by rules.allow[%d]; the rule: %s", entry, infos[s.Rule][1]),
			Fingerprint: s.Fingerprint, AllowEntry: &entry})
		ex.Kept++
	}
	sort.SliceStable(ex.Matches, func(i, j int) bool { return ex.Matches[i].Offset < ex.Matches[j].Offset })
	return ex, nil
}

func printExplanation(w io.Writer, ex *explanation) {
	if len(ex.Matches) == 0 {
		fmt.Fprintf(w, "no rule matched (policy %s, tool %s)\n", ex.Policy, ex.Tool)
		return
	}
	fmt.Fprintf(w, "%d match(es) (policy %s, tool %s): %d redacted, %d kept\n", len(ex.Matches), ex.Policy, ex.Tool, ex.Redacted, ex.Kept)
	for _, m := range ex.Matches {
		fmt.Fprintf(w, "  %-8s %s at bytes %d..%d", m.Verdict, m.Rule, m.Offset, m.Offset+int64(m.Length))
		if m.Confidence != "" {
			fmt.Fprintf(w, ", confidence %s", m.Confidence)
		}
		if m.Checksum != "" {
			fmt.Fprintf(w, ", checksum %s", m.Checksum)
		}
		if m.Encoding != "" {
			fmt.Fprintf(w, ", inside %s", m.Encoding)
		}
		if m.Fingerprint != "" {
			fmt.Fprintf(w, ", fingerprint %s", m.Fingerprint)
		}
		fmt.Fprintf(w, "\n           why: %s\n", m.Why)
	}
}
