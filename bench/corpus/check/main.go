// Command check counts the planted items of a corpus (bench/corpus) that
// survive a sanitizer. It reads the corpus manifest and one or more
// sanitized JSONL outputs, one line per record in corpus order (ours:
// `sanitize-worker scan --jsonl` records; the seed's run.mjs: one guarded
// object a line), and prints, per plant kind and name, how many were planted
// and how many survived in each output. A plant survives when one of its
// needles is a substring of any decoded string or key of the record's
// output line (JSON decoded, never raw bytes, so escapes do not hide or
// fake a hit).
//
//	go run ./bench/corpus/check -manifest manifest.jsonl ours=clean.jsonl seed=seed-out.jsonl
//
// -show N lists up to N survivors per output with their place and a short
// context in which the needle itself is masked.
//
// As a cross-check beyond the plants, it also counts, per output, the
// matches of the seed's own G001 rules (its three secret patterns, its
// pseudo-tag pattern and its invisible-character class, applied to the NFKC
// form of each decoded string as the seed does): what the seed would still
// find in an output, planted or not.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Plant is one manifest plant.
type Plant struct {
	Kind    string   `json:"kind"`
	Name    string   `json:"name"`
	Pointer string   `json:"pointer"`
	Needles []string `json:"needles"`
}

// ManifestLine is the manifest line of one record.
type ManifestLine struct {
	Record int     `json:"record"`
	Tool   string  `json:"tool"`
	Plants []Plant `json:"plants"`
}

// Str is one decoded string or key of a document and where it is.
type Str struct {
	Path string // JSON pointer; a key is its object's pointer plus "/#key:NAME"
	S    string
}

// Strings decodes one JSON document and returns every string value and
// every object key in it, in document order.
func Strings(doc []byte) ([]Str, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON value")
	}
	var out []Str
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case string:
			out = append(out, Str{path, v})
		case []any:
			for i, e := range v {
				walk(e, path+"/"+strconv.Itoa(i))
			}
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				out = append(out, Str{path + "/#key:" + k, k})
				walk(v[k], path+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(k))
			}
		}
	}
	walk(v, "")
	return out, nil
}

// Hit is a needle found in a decoded string.
type Hit struct {
	Needle string
	Str    Str
	At     int // byte offset of the needle in Str.S
}

// Survives reports the first needle (in needle order) that occurs in any of
// strs. Empty needles never match.
func Survives(strs []Str, needles []string) (Hit, bool) {
	for _, n := range needles {
		if n == "" {
			continue
		}
		for _, s := range strs {
			if i := strings.Index(s.S, n); i >= 0 {
				return Hit{Needle: n, Str: s, At: i}, true
			}
		}
	}
	return Hit{}, false
}

// Context returns up to n runes either side of the hit, with the needle
// replaced by «NEEDLE», quoted so invisible characters show.
func Context(h Hit, n int) string {
	before := h.Str.S[:h.At]
	after := h.Str.S[h.At+len(h.Needle):]
	for i := 0; i < n && before != ""; i++ {
		_, sz := utf8.DecodeLastRuneInString(before)
		before = before[:len(before)-sz]
	}
	b := h.Str.S[len(before):h.At]
	cut := 0
	for i := 0; i < n && cut < len(after); i++ {
		_, sz := utf8.DecodeRuneInString(after[cut:])
		cut += sz
	}
	return strconv.Quote(b) + " «NEEDLE» " + strconv.Quote(after[:cut])
}

// SeedRules are the seed's G001 patterns (seed_text_guard.mjs), in RE2.
var SeedRules = []struct {
	Name string
	Re   *regexp.Regexp
}{
	{"seed sk-", regexp.MustCompile(`sk-[A-Za-z0-9_-]{20,}`)},
	{"seed ghp_", regexp.MustCompile(`ghp_[A-Za-z0-9_]{20,}`)},
	{"seed BEGIN PRIVATE KEY", regexp.MustCompile(`(?s)-----BEGIN PRIVATE KEY-----.+?-----END PRIVATE KEY-----`)},
	{"seed PSEUDO_TAGS", regexp.MustCompile(`(?i)</?(system|developer|instructions|tool|assistant|user|important)[^>]*>`)},
	{"seed CONTROL_CHARS", regexp.MustCompile(`[\x{200B}-\x{200D}\x{FEFF}\x{202A}-\x{202E}\x{2066}-\x{2069}]`)},
}

// SeedRuleMatches counts the matches of each of SeedRules in the NFKC form
// of strs.
func SeedRuleMatches(strs []Str) []int {
	n := make([]int, len(SeedRules))
	for _, s := range strs {
		t := norm.NFKC.String(s.S)
		for i, r := range SeedRules {
			n[i] += len(r.Re.FindAllStringIndex(t, -1))
		}
	}
	return n
}

type key struct{ kind, name string }

type side struct {
	label, path string
	survived    map[key]int
	seedRules   []int
	records     int
	errors      int
	shown       int
}

func main() {
	manifest := flag.String("manifest", "", "corpus manifest `FILE` (required)")
	show := flag.Int("show", 0, "list up to `N` survivors per output with a masked context")
	ctxRunes := flag.Int("context", 40, "runes of context either side of a shown survivor")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: check -manifest FILE [-show N] LABEL=OUTPUT.jsonl...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *manifest == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var sides []*side
	for _, a := range flag.Args() {
		label, path, ok := strings.Cut(a, "=")
		if !ok || label == "" || path == "" {
			fmt.Fprintf(os.Stderr, "check: %q is not LABEL=FILE\n", a)
			os.Exit(2)
		}
		sides = append(sides, &side{label: label, path: path, survived: map[key]int{}, seedRules: make([]int, len(SeedRules))})
	}
	if err := run(*manifest, sides, *show, *ctxRunes, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "check:", err)
		os.Exit(1)
	}
}

func newScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	return sc
}

func run(manifest string, sides []*side, show, ctxRunes int, w io.Writer) error {
	mf, err := os.Open(manifest)
	if err != nil {
		return err
	}
	defer mf.Close()
	ms := newScanner(mf)
	var outs []*bufio.Scanner
	for _, s := range sides {
		f, err := os.Open(s.path)
		if err != nil {
			return err
		}
		defer f.Close()
		outs = append(outs, newScanner(f))
	}
	planted := map[key]int{}
	var order []key
	for n := 1; ms.Scan(); n++ {
		var m ManifestLine
		if err := json.Unmarshal(ms.Bytes(), &m); err != nil {
			return fmt.Errorf("%s:%d: %v", manifest, n, err)
		}
		for _, p := range m.Plants {
			k := key{p.Kind, p.Name}
			if planted[k] == 0 {
				order = append(order, k)
			}
			planted[k]++
		}
		for i, s := range sides {
			if !outs[i].Scan() {
				if err := outs[i].Err(); err != nil {
					return fmt.Errorf("%s: %v", s.path, err)
				}
				return fmt.Errorf("%s: %d lines, the manifest has more records", s.path, n-1)
			}
			line := outs[i].Bytes()
			strs, err := Strings(line)
			if err != nil {
				return fmt.Errorf("%s:%d: %v", s.path, n, err)
			}
			s.records++
			for j, c := range SeedRuleMatches(strs) {
				s.seedRules[j] += c
			}
			if isError(line) {
				s.errors++
			}
			for _, p := range m.Plants {
				h, ok := Survives(strs, p.Needles)
				if !ok {
					continue
				}
				s.survived[key{p.Kind, p.Name}]++
				if s.shown < show {
					s.shown++
					fmt.Fprintf(w, "survivor %s: record %d (%s) %s/%s planted at %s, found at %s: %s\n",
						s.label, m.Record, m.Tool, p.Kind, p.Name, p.Pointer, h.Str.Path, Context(h, ctxRunes))
				}
			}
		}
	}
	if err := ms.Err(); err != nil {
		return fmt.Errorf("%s: %v", manifest, err)
	}
	for i, s := range sides {
		if outs[i].Scan() {
			return fmt.Errorf("%s: more lines than the manifest has records", s.path)
		}
	}
	kindRank := map[string]int{"secret": 0, "tag": 1, "invisible": 2}
	sort.SliceStable(order, func(i, j int) bool {
		if kindRank[order[i].kind] != kindRank[order[j].kind] {
			return kindRank[order[i].kind] < kindRank[order[j].kind]
		}
		return order[i].name < order[j].name
	})
	// Markdown table: it reads as plain text too.
	fmt.Fprint(w, "| kind | name | planted |")
	for _, s := range sides {
		fmt.Fprintf(w, " survived %s |", s.label)
	}
	fmt.Fprint(w, "\n|---|---|---:|")
	for range sides {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	row := func(kind, name string, n int, surv func(*side) int) {
		fmt.Fprintf(w, "| %s | %s | %d |", kind, name, n)
		for _, s := range sides {
			fmt.Fprintf(w, " %d (%s) |", surv(s), pct(surv(s), n))
		}
		fmt.Fprintln(w)
	}
	for _, k := range order {
		row(k.kind, k.name, planted[k], func(s *side) int { return s.survived[k] })
	}
	total := 0
	byKind := map[string]int{}
	for _, k := range order {
		total += planted[k]
		byKind[k.kind] += planted[k]
	}
	for _, kind := range []string{"secret", "tag", "invisible"} {
		if byKind[kind] == 0 {
			continue
		}
		row("**"+kind+"**", "**all**", byKind[kind], func(s *side) int {
			n := 0
			for k, v := range s.survived {
				if k.kind == kind {
					n += v
				}
			}
			return n
		})
	}
	row("**total**", "", total, func(s *side) int {
		n := 0
		for _, v := range s.survived {
			n += v
		}
		return n
	})
	fmt.Fprintln(w)
	fmt.Fprint(w, "| seed G001 rule still matching in the output |")
	for _, s := range sides {
		fmt.Fprintf(w, " %s |", s.label)
	}
	fmt.Fprint(w, "\n|---|")
	for range sides {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for i, r := range SeedRules {
		fmt.Fprintf(w, "| %s |", r.Name)
		for _, s := range sides {
			fmt.Fprintf(w, " %d |", s.seedRules[i])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	for _, s := range sides {
		fmt.Fprintf(w, "%s: %d records, %d error results\n", s.label, s.records, s.errors)
	}
	return nil
}

func pct(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

// isError reports an error result on a line: ours
// ({"result":{"isError":true}}) or the seed's ({"isError":true} or an
// "error" member from its structured gate).
func isError(line []byte) bool {
	var v struct {
		IsError bool            `json:"isError"`
		Error   json.RawMessage `json:"error"`
		Result  *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &v) != nil {
		return false
	}
	return v.IsError || len(v.Error) > 0 || v.Result != nil && v.Result.IsError
}
