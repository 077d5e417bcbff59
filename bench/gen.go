package bench

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Shape is a kind of tool output.
type Shape uint8

const (
	// FileRead is a source file (Go, Python, TypeScript, Rust, SQL, YAML) in
	// one text block, sometimes with cat -n line numbers.
	FileRead Shape = iota
	// CodeSearch is a list of hits (path, line, column, snippet, score) in
	// structuredContent, mirrored as JSON in a text block.
	CodeSearch
	// LogTail is the last lines of a service log in one text block.
	LogTail
	// WebPage is a fetched page turned into markdown: prose in several
	// languages with accents, CJK and emoji.
	WebPage
	// APIResponse is a JSON API response pretty-printed into a text block,
	// so the wire form is full of \" and \n escapes.
	APIResponse
	// Image is a short caption and one or more image blocks with base64
	// PNG-like data.
	Image
	numShapes
)

var shapeNames = [numShapes]string{"file-read", "code-search", "log-tail", "web-page", "api-response", "image"}

// String returns the stable name of s, also used as the tool name.
func (s Shape) String() string {
	if s < numShapes {
		return shapeNames[s]
	}
	return "shape(" + strconv.Itoa(int(s)) + ")"
}

// Shapes lists every shape in a stable order.
func Shapes() []Shape {
	s := make([]Shape, numShapes)
	for i := range s {
		s[i] = Shape(i)
	}
	return s
}

// Escaping is how strings are escaped on the wire. JSON allows several
// spellings of the same string, and MCP servers written in different
// languages use different ones.
type Escaping uint8

const (
	// EscapeMixed lets each string pick one of the styles below (the default).
	EscapeMixed Escaping = iota
	// EscapeMinimal escapes only what JSON requires.
	EscapeMinimal
	// EscapeHTML also writes <, > and & as \u003c, \u003e, \u0026 (Go's
	// encoding/json).
	EscapeHTML
	// EscapeASCII also writes every non-ASCII rune as \uXXXX (surrogate pairs
	// above U+FFFF) and / as \/ (Python's json.dumps, PHP's json_encode).
	EscapeASCII
)

// Options select a document. The zero value is a 4 KiB file read with
// nothing planted.
type Options struct {
	Seed      uint64
	Shape     Shape
	Size      int // target size of the JSON in bytes (approximate); default 4096
	Secrets   int // fake credentials to plant
	Tags      int // pseudo-instruction tags to plant
	Invisible int // runs of invisible or control characters to plant
	Escaping  Escaping
}

// PlantKind says what was planted.
type PlantKind uint8

const (
	PlantSecret PlantKind = iota + 1
	PlantTag
	PlantInvisible
)

func (k PlantKind) String() string {
	switch k {
	case PlantSecret:
		return "secret"
	case PlantTag:
		return "tag"
	case PlantInvisible:
		return "invisible"
	}
	return "unknown"
}

// Plant is one planted item.
type Plant struct {
	Kind PlantKind
	// Name is the expected rule id for a secret (as the scanners catalog
	// names it, e.g. "github-pat"), the variant for a tag ("system",
	// "im-start", "inst", "full-width", "escaped", "close-system") and the
	// character class for invisibles ("zero-width", "bidi", "tag-char",
	// "control").
	Name string
	// Pointer is the JSON pointer of the string value that holds it.
	Pointer string
	// Text is what was inserted into the decoded string value.
	Text string
	// Needles are substrings that must not occur in any decoded string or
	// key of the sanitized output (nor in evidence): the credential itself,
	// the tag in its normalized form, the invisible runes.
	Needles []string
}

// Doc is one generated document.
type Doc struct {
	Shape   Shape
	Tool    string // tool name: the shape name
	JSON    []byte // the CallToolResult
	Planted []Plant
	// OutputSchema is the tool's outputSchema (CodeSearch only), or nil.
	OutputSchema []byte
}

// Generate builds the document selected by o.
func Generate(o Options) Doc {
	if o.Size <= 0 {
		o.Size = 4096
	}
	g := &gen{
		rng: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)),
		esc: o.Escaping,
	}
	if o.Shape >= numShapes {
		o.Shape = FileRead
	}
	budget := max(o.Size-200, 64)
	var root obj
	switch o.Shape {
	case FileRead:
		root = g.fileRead(budget)
	case CodeSearch:
		root = g.codeSearch(budget)
	case LogTail:
		root = g.logTail(budget)
	case WebPage:
		root = g.webPage(budget)
	case APIResponse:
		root = g.apiResponse(budget)
	case Image:
		root = g.image(budget)
	}
	d := Doc{Shape: o.Shape, Tool: o.Shape.String()}
	for range o.Secrets {
		d.Planted = append(d.Planted, g.plant(g.secret()))
	}
	for range o.Tags {
		d.Planted = append(d.Planted, g.plant(g.tag()))
	}
	for range o.Invisible {
		d.Planted = append(d.Planted, g.plant(g.invisible()))
	}
	var w writer
	w.value(root, EscapeMinimal)
	d.JSON = w.b
	if o.Shape == CodeSearch {
		d.OutputSchema = []byte(codeSearchSchema)
	}
	return d
}

// ---- value model and writer ----

// obj is an object with ordered members.
type obj []member

type member struct {
	k string
	v any
}

// text is a string value that plants may go into.
type text struct {
	s      string
	esc    Escaping
	ptr    string
	plants [][2]int // byte ranges of plants already in s
}

// mirror is a string value holding the compact JSON of another value,
// written when the document is serialized (after planting).
type mirror struct{ of any }

// b64 is base64 data, written verbatim.
type b64 string

type writer struct{ b []byte }

func (w *writer) value(v any, esc Escaping) {
	switch v := v.(type) {
	case nil:
		w.b = append(w.b, "null"...)
	case bool:
		w.b = strconv.AppendBool(w.b, v)
	case int:
		w.b = strconv.AppendInt(w.b, int64(v), 10)
	case float64:
		w.b = strconv.AppendFloat(w.b, v, 'f', -1, 64)
	case string:
		w.str(v, esc)
	case b64:
		w.b = append(w.b, '"')
		w.b = append(w.b, v...)
		w.b = append(w.b, '"')
	case *text:
		e := v.esc
		if e == EscapeMixed {
			e = esc
		}
		w.str(v.s, e)
	case mirror:
		var inner writer
		inner.value(v.of, EscapeMinimal)
		w.str(string(inner.b), esc)
	case obj:
		w.b = append(w.b, '{')
		for i, m := range v {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.str(m.k, esc)
			w.b = append(w.b, ':')
			w.value(m.v, esc)
		}
		w.b = append(w.b, '}')
	case []any:
		w.b = append(w.b, '[')
		for i, x := range v {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.value(x, esc)
		}
		w.b = append(w.b, ']')
	default:
		panic(fmt.Sprintf("bench: cannot write %T", v))
	}
}

const hexDigits = "0123456789abcdef"

func (w *writer) u4(r rune) {
	w.b = append(w.b, '\\', 'u', hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
}

// str writes s as a JSON string in the given style.
func (w *writer) str(s string, esc Escaping) {
	w.b = append(w.b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				w.b = append(w.b, '\\', '"')
			case c == '\\':
				w.b = append(w.b, '\\', '\\')
			case c == '\n':
				w.b = append(w.b, '\\', 'n')
			case c == '\r':
				w.b = append(w.b, '\\', 'r')
			case c == '\t':
				w.b = append(w.b, '\\', 't')
			case c < 0x20:
				w.u4(rune(c))
			case esc >= EscapeHTML && (c == '<' || c == '>' || c == '&'):
				w.u4(rune(c))
			case esc == EscapeASCII && c == '/':
				w.b = append(w.b, '\\', '/')
			default:
				w.b = append(w.b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case esc == EscapeASCII && r > 0xFFFF:
			r -= 0x10000
			w.u4(0xD800 + r>>10)
			w.u4(0xDC00 + r&0x3FF)
		case esc == EscapeASCII || esc == EscapeHTML && (r == 0x2028 || r == 0x2029):
			w.u4(r)
		default:
			w.b = append(w.b, s[i:i+size]...)
		}
		i += size
	}
	w.b = append(w.b, '"')
}

// ---- generator ----

type gen struct {
	rng       *rand.Rand
	esc       Escaping
	plantable []*text
}

// newText makes a plantable string value at ptr.
func (g *gen) newText(s, ptr string) *text {
	t := &text{s: s, esc: g.style(), ptr: ptr}
	g.plantable = append(g.plantable, t)
	return t
}

func (g *gen) style() Escaping {
	if g.esc != EscapeMixed {
		return g.esc
	}
	switch g.rng.IntN(4) {
	case 0:
		return EscapeHTML
	case 1:
		return EscapeASCII
	}
	return EscapeMinimal
}

func (g *gen) pick(list []string) string { return list[g.rng.IntN(len(list))] }

func (g *gen) chars(set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.rng.IntN(len(set))]
	}
	return string(b)
}

func (g *gen) ident() string {
	a, b := g.pick(words), g.pick(words)
	switch g.rng.IntN(3) {
	case 0:
		return a + strings.ToUpper(b[:1]) + b[1:]
	case 1:
		return a + "_" + b
	}
	return a
}

func (g *gen) typeName() string {
	a, b := g.pick(words), g.pick(words)
	return strings.ToUpper(a[:1]) + a[1:] + strings.ToUpper(b[:1]) + b[1:]
}

func (g *gen) path() string {
	dirs := []string{"src", "internal", "pkg", "lib", "cmd", "app", "services", "web", "api", "tests"}
	exts := []string{".go", ".py", ".ts", ".rs", ".sql", ".yaml", ".tsx", ".md"}
	var b strings.Builder
	for range 1 + g.rng.IntN(3) {
		b.WriteString(g.pick(dirs))
		b.WriteByte('/')
	}
	b.WriteString(g.ident())
	b.WriteString(g.pick(exts))
	return b.String()
}

func (g *gen) timestamp() string {
	return fmt.Sprintf("2025-%02d-%02dT%02d:%02d:%02d.%03dZ", 1+g.rng.IntN(12), 1+g.rng.IntN(28),
		g.rng.IntN(24), g.rng.IntN(60), g.rng.IntN(60), g.rng.IntN(1000))
}

func textBlock(t *text) obj { return obj{{"type", "text"}, {"text", t}} }

func result(content []any, extra ...member) obj {
	o := obj{{"content", content}}
	o = append(o, extra...)
	return append(o, member{"isError", false})
}

// fileRead: one source file.
func (g *gen) fileRead(budget int) obj {
	langs := []func(*strings.Builder, int){g.goCode, g.pyCode, g.tsCode, g.rustCode, g.sqlCode, g.yamlCode}
	var b strings.Builder
	langs[g.rng.IntN(len(langs))](&b, budget)
	src := b.String()
	if g.rng.IntN(2) == 0 { // cat -n style
		var n strings.Builder
		for i, line := range strings.SplitAfter(src, "\n") {
			if line == "" {
				continue
			}
			fmt.Fprintf(&n, "%6d\t%s", i+1, line)
		}
		src = n.String()
	}
	return result([]any{textBlock(g.newText(src, "/content/0/text"))})
}

func (g *gen) goCode(b *strings.Builder, budget int) {
	fmt.Fprintf(b, "package %s\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n)\n\n", g.pick(words))
	for b.Len() < budget {
		t, f, v := g.typeName(), g.typeName(), g.ident()
		switch g.rng.IntN(3) {
		case 0:
			fmt.Fprintf(b, "// %s holds the %s of a %s.\ntype %s struct {\n\t%s string\n\t%s int64\n\tmu sync.Mutex\n}\n\n",
				t, g.pick(words), g.pick(words), t, g.typeName(), g.typeName())
		case 1:
			fmt.Fprintf(b, "func (s *%s) %s(ctx context.Context, %s []byte) (int, error) {\n", t, f, v)
			fmt.Fprintf(b, "\tif len(%s) == 0 {\n\t\treturn 0, errors.New(\"%s: empty %s\")\n\t}\n", v, strings.ToLower(f), g.pick(words))
			fmt.Fprintf(b, "\tfor i := 0; i < len(%s) && i < %d; i++ {\n\t\ts.%s += int64(%s[i])\n\t}\n", v, g.rng.IntN(4096), g.typeName(), v)
			fmt.Fprintf(b, "\treturn fmt.Printf(\"%%s=%%d\\n\", %q, len(%s))\n}\n\n", g.ident(), v)
		default:
			fmt.Fprintf(b, "var %s = map[string]int{\"%s\": %d, \"%s\": %d}\n\n", v, g.pick(words), g.rng.IntN(100), g.pick(words), g.rng.IntN(100))
		}
	}
}

func (g *gen) pyCode(b *strings.Builder, budget int) {
	b.WriteString("import json\nimport logging\nfrom dataclasses import dataclass\n\nlog = logging.getLogger(__name__)\n\n")
	for b.Len() < budget {
		t, f, v := g.typeName(), g.ident(), g.ident()
		switch g.rng.IntN(3) {
		case 0:
			fmt.Fprintf(b, "@dataclass\nclass %s:\n    \"\"\"A %s of %s.\"\"\"\n    %s: str = \"%s\"\n    %s: int = %d\n\n\n",
				t, g.pick(words), g.pick(words), g.ident(), g.pick(words), g.ident(), g.rng.IntN(1000))
		case 1:
			fmt.Fprintf(b, "def %s(%s, *, limit=%d):\n    if not %s:\n        raise ValueError(f\"empty {%s!r}\")\n", f, v, g.rng.IntN(500), v, v)
			fmt.Fprintf(b, "    out = [x for x in %s if x.get('%s') != None][:limit]\n    log.debug(\"%s: %%d items\", len(out))\n    return json.dumps(out, indent=2)\n\n\n", v, g.pick(words), f)
		default:
			fmt.Fprintf(b, "%s = {'%s': %d, '%s': [%d, %d]}  # %s %s\n\n", strings.ToUpper(v), g.pick(words), g.rng.IntN(9), g.pick(words), g.rng.IntN(9), g.rng.IntN(99), g.pick(words), g.pick(words))
		}
	}
}

func (g *gen) tsCode(b *strings.Builder, budget int) {
	b.WriteString("import { z } from \"zod\";\nimport type { Request, Response } from \"express\";\n\n")
	for b.Len() < budget {
		t, f, v := g.typeName(), g.ident(), g.ident()
		switch g.rng.IntN(3) {
		case 0:
			fmt.Fprintf(b, "export interface %s {\n  %s: string;\n  %s?: number;\n  tags: Array<'%s' | '%s'>;\n}\n\n", t, g.ident(), g.ident(), g.pick(words), g.pick(words))
		case 1:
			fmt.Fprintf(b, "export async function %s(req: Request, res: Response): Promise<void> {\n  const %s = await fetch(`/api/%s/${req.params.id}`);\n", f, v, g.pick(words))
			fmt.Fprintf(b, "  if (!%s.ok && %s.status >= %d) {\n    res.status(502).json({ error: \"%s failed\" });\n    return;\n  }\n  res.json(await %s.json());\n}\n\n", v, v, 400+g.rng.IntN(100), f, v)
		default:
			fmt.Fprintf(b, "const %s = z.object({ %s: z.string().min(%d), %s: z.number() });\n\n", v, g.ident(), g.rng.IntN(10), g.ident())
		}
	}
}

func (g *gen) rustCode(b *strings.Builder, budget int) {
	b.WriteString("use std::collections::HashMap;\nuse serde::{Deserialize, Serialize};\n\n")
	for b.Len() < budget {
		t, f, v := g.typeName(), g.ident(), g.ident()
		switch g.rng.IntN(2) {
		case 0:
			fmt.Fprintf(b, "#[derive(Debug, Serialize, Deserialize)]\npub struct %s {\n    pub %s: String,\n    pub %s: Option<u64>,\n}\n\n", t, g.ident(), g.ident())
		default:
			fmt.Fprintf(b, "pub fn %s(%s: &[u8]) -> Result<HashMap<String, usize>, String> {\n    let mut m = HashMap::new();\n", f, v)
			fmt.Fprintf(b, "    for (i, w) in %s.split(|c| *c == b' ').enumerate() {\n        if i > %d { break; }\n        *m.entry(String::from_utf8_lossy(w).into_owned()).or_insert(0) += 1;\n    }\n    Ok(m)\n}\n\n", v, g.rng.IntN(1000))
		}
	}
}

func (g *gen) sqlCode(b *strings.Builder, budget int) {
	for b.Len() < budget {
		t := g.ident()
		switch g.rng.IntN(2) {
		case 0:
			fmt.Fprintf(b, "CREATE TABLE IF NOT EXISTS %s (\n    id BIGSERIAL PRIMARY KEY,\n    %s TEXT NOT NULL,\n    %s TIMESTAMPTZ DEFAULT now(),\n    %s INTEGER CHECK (%s >= 0)\n);\n\n",
				t, g.ident(), g.ident(), g.ident(), g.ident())
		default:
			fmt.Fprintf(b, "SELECT a.id, a.%s, count(*) AS n\nFROM %s a\nJOIN %s b ON b.%s_id = a.id\nWHERE a.%s > %d AND b.%s <> 'it''s'\nGROUP BY 1, 2\nORDER BY n DESC\nLIMIT %d;\n\n",
				g.ident(), t, g.ident(), t, g.ident(), g.rng.IntN(1000), g.ident(), 10+g.rng.IntN(90))
		}
	}
}

func (g *gen) yamlCode(b *strings.Builder, budget int) {
	b.WriteString("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + g.ident() + "\nspec:\n  template:\n    spec:\n      containers:\n")
	for b.Len() < budget {
		fmt.Fprintf(b, "        - name: %s\n          image: registry.example.com/%s:%d.%d.%d\n          env:\n            - name: %s\n              value: \"%s\"\n          resources: {limits: {cpu: \"%dm\", memory: %dMi}}\n",
			g.ident(), g.pick(words), g.rng.IntN(3), g.rng.IntN(20), g.rng.IntN(50), strings.ToUpper(g.ident()), g.pick(words), 100*(1+g.rng.IntN(9)), 64*(1+g.rng.IntN(16)))
	}
}

const codeSearchSchema = `{"type":"object","properties":{"query":{"type":"string"},"total":{"type":"integer"},` +
	`"matches":{"type":"array","items":{"type":"object","properties":{"path":{"type":"string"},"line":{"type":"integer"},` +
	`"column":{"type":"integer"},"snippet":{"type":"string"},"score":{"type":"number"}},"required":["path","line","snippet"]}},` +
	`"truncated":{"type":"boolean"}},"required":["query","matches"]}`

// codeSearch: hits in structuredContent and the same JSON in a text block.
func (g *gen) codeSearch(budget int) obj {
	var snippet strings.Builder
	query := g.ident()
	var matches []any
	size := 0
	for size < budget/2 || len(matches) == 0 {
		snippet.Reset()
		switch g.rng.IntN(3) {
		case 0:
			fmt.Fprintf(&snippet, "func %s(ctx context.Context) error { return %s(ctx, %q) }", g.typeName(), query, g.pick(words))
		case 1:
			fmt.Fprintf(&snippet, "    %s = self.%s.get(\"%s\", %d)", query, g.ident(), g.pick(words), g.rng.IntN(100))
		default:
			fmt.Fprintf(&snippet, "const %s = await %s({ %s: '%s' }); // %s", g.ident(), query, g.ident(), g.pick(words), g.pick(words))
		}
		i := len(matches)
		m := obj{
			{"path", g.path()},
			{"line", 1 + g.rng.IntN(5000)},
			{"column", 1 + g.rng.IntN(80)},
			{"snippet", g.newText(snippet.String(), fmt.Sprintf("/structuredContent/matches/%d/snippet", i))},
			{"score", float64(g.rng.IntN(1000)) / 1000},
		}
		matches = append(matches, m)
		size += 2 * (snippet.Len() + 80)
	}
	sc := obj{{"query", query}, {"total", len(matches) + g.rng.IntN(100)}, {"matches", matches}, {"truncated", false}}
	return result([]any{obj{{"type", "text"}, {"text", mirror{sc}}}}, member{"structuredContent", sc})
}

// logTail: service log lines.
func (g *gen) logTail(budget int) obj {
	levels := []string{"INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"}
	svcs := []string{"api-gateway", "worker", "scheduler", "billing", "auth", "search-indexer"}
	var b strings.Builder
	for b.Len() < budget {
		lvl := g.pick(levels)
		fmt.Fprintf(&b, "%s %-5s [%s-%d] req=%s %s", g.timestamp(), lvl, g.pick(svcs), g.rng.IntN(8), g.chars(hexDigits, 16), g.pick(logMsgs))
		switch g.rng.IntN(4) {
		case 0:
			fmt.Fprintf(&b, " path=/v1/%s/%d status=%d latency_ms=%d", g.pick(words), g.rng.IntN(100000), []int{200, 200, 201, 204, 404, 500}[g.rng.IntN(6)], g.rng.IntN(2000))
		case 1:
			fmt.Fprintf(&b, " err=\"%s: %s %s\"", g.pick(words), g.pick(words), g.pick(words))
		case 2:
			fmt.Fprintf(&b, " user_id=%d attempt=%d", g.rng.IntN(1<<20), g.rng.IntN(5))
		}
		b.WriteByte('\n')
		if lvl == "ERROR" && g.rng.IntN(2) == 0 {
			fmt.Fprintf(&b, "Traceback (most recent call last):\n  File \"/app/%s.py\", line %d, in %s\n    %s()\n%sError: %s %s\n",
				g.ident(), g.rng.IntN(900), g.ident(), g.ident(), g.typeName(), g.pick(words), g.pick(words))
		}
	}
	return result([]any{textBlock(g.newText(b.String(), "/content/0/text"))})
}

// webPage: markdown prose in several languages.
func (g *gen) webPage(budget int) obj {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s %s\n\nSource: https://www.example.org/%s/%s\n\n", g.pick(titles), g.pick(emoji), g.pick(words), g.ident())
	for b.Len() < budget {
		switch g.rng.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "## %s\n\n", g.pick(titles))
		case 1:
			b.WriteString(g.pick(foreign))
			b.WriteString("\n\n")
		case 2:
			fmt.Fprintf(&b, "- %s [%s](https://example.com/%s) %s\n", g.sentence(), g.pick(words), g.ident(), g.pick(emoji))
		default:
			for range 3 + g.rng.IntN(4) {
				b.WriteString(g.sentence())
				b.WriteByte(' ')
			}
			if g.rng.IntN(3) == 0 {
				b.WriteString(g.pick(foreign))
			}
			b.WriteString("\n\n")
		}
	}
	return result([]any{textBlock(g.newText(b.String(), "/content/0/text"))})
}

func (g *gen) sentence() string {
	n := 5 + g.rng.IntN(12)
	var b strings.Builder
	for i := range n {
		w := g.pick(words)
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		if i > 0 && i < n-1 && g.rng.IntN(10) == 0 {
			b.WriteByte(',')
		}
	}
	if g.rng.IntN(8) == 0 {
		b.WriteString(" — “" + g.pick(words) + "”")
	}
	b.WriteByte('.')
	return b.String()
}

// apiResponse: pretty-printed JSON inside a text block.
func (g *gen) apiResponse(budget int) obj {
	var items []any
	size := 0
	for size < budget || len(items) == 0 {
		body := g.sentence() + "\n\n```\n" + g.pick(logMsgs) + "\n```\n\"" + g.sentence() + "\""
		it := map[string]any{
			"id":         g.rng.IntN(1 << 30),
			"number":     g.rng.IntN(10000),
			"title":      g.sentence(),
			"state":      []string{"open", "closed"}[g.rng.IntN(2)],
			"user":       map[string]any{"login": g.ident(), "id": g.rng.IntN(1 << 24), "site_admin": false},
			"labels":     []string{g.pick(words), g.pick(words)},
			"body":       body,
			"created_at": g.timestamp(),
			"html_url":   "https://github.example.com/" + g.ident() + "/" + g.ident() + "/issues/" + strconv.Itoa(g.rng.IntN(10000)),
			"comments":   g.rng.IntN(50),
			"score":      float64(g.rng.IntN(100000)) / 100,
		}
		items = append(items, it)
		size += len(body) + 340
	}
	js, err := json.MarshalIndent(map[string]any{"total_count": len(items), "incomplete_results": false, "items": items}, "", "  ")
	if err != nil {
		panic(err)
	}
	return result([]any{textBlock(g.newText(string(js), "/content/0/text"))})
}

// image: a caption and PNG-like base64 blocks.
func (g *gen) image(budget int) obj {
	content := []any{textBlock(g.newText("Screenshot of "+g.sentence(), "/content/0/text"))}
	n := 1 + g.rng.IntN(3)
	per := max(budget*3/4/n, 64)
	for range n {
		raw := make([]byte, per)
		copy(raw, "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
		for i := 16; i < len(raw); i++ {
			raw[i] = byte(g.rng.Uint32())
		}
		content = append(content, obj{{"type", "image"}, {"data", b64(base64.StdEncoding.EncodeToString(raw))}, {"mimeType", "image/png"}})
	}
	return result(content)
}

// ---- word lists ----

var words = strings.Fields(`account action address agent alpha amount anchor answer archive array
	backend batch binary block bridge buffer bucket cache channel chunk client cluster column commit
	config context cursor daemon data delta deploy digest domain driver engine entry event export
	factor feature field filter format frame gateway graph handler header health index input
	ingest item job journal kernel key label layer ledger limit listener loader metric mirror
	model module monitor node offset order output packet page parser patch payload peer pipeline
	policy pool port prefix process profile proxy queue quota range reader record region registry
	release replica report request resource result retry route runner sample scanner schema scope
	segment server service session shard signal snapshot socket source span stage state status
	storage stream subject table target task tenant thread ticket token topic trace tracker
	update upload user value vector version worker writer zone`)

var logMsgs = []string{
	"request completed", "cache miss for key", "retrying after transient error", "connection reset by peer",
	"worker started", "flushed batch to storage", "slow query detected", "rate limit reached, backing off",
	"health check ok", "config reloaded", "job finished with warnings", "unexpected EOF while reading body",
}

var titles = []string{
	"Getting started", "Release notes", "Frequently asked questions", "Architecture overview",
	"Configuration reference", "Migrating from v1", "Troubleshooting", "Performance tuning",
}

var foreign = []string{
	"Les résultats sont présentés ci-dessous ; voir également la section « Références » à la fin du document.",
	"Die Größe des Puffers wird beim Start überprüft, und zu große Nachrichten werden abgewiesen.",
	"La configuración se recarga automáticamente cuando el archivo cambia; no es necesario reiniciar.",
	"Çalışma zamanı, her mesaj için sınırlı bellek kullanır ve büyük dizeleri parça parça işler.",
	"本ドキュメントでは、設定ファイルの書き方と各項目の意味を説明します。詳細は次の章を参照してください。",
	"该服务在每个请求结束后记录一条审计日志，并将其保存三十天。",
	"이 문서는 설치 방법과 기본 설정을 설명합니다.",
	"Поток обрабатывается по частям, поэтому память не зависит от размера сообщения.",
	"Η διαμόρφωση φορτώνεται ξανά χωρίς επανεκκίνηση της υπηρεσίας.",
	"Ceci est un café crème à 3,50 € — naïve façade, déjà-vu, coöperate.",
}

var emoji = []string{"🚀", "✅", "⚠️", "📦", "🔧", "🎉", "👍🏽", "🇫🇷", "❤️", "🧪", "📈", "🐛"}
