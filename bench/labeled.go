package bench

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// A labeled corpus: realistic MCP tool results, each with the exact place
// of every planted secret, decoy, tag and invisible character, so a
// detector can be scored against it (see Scorer). Generation is
// deterministic: record i of seed s is always the same bytes, whatever the
// number of records asked for.

// LabelKind says what a label marks.
type LabelKind string

const (
	// LabelSecret must be redacted: none of its needles may survive and a
	// finding must cover it.
	LabelSecret LabelKind = "secret"
	// LabelDecoy must survive intact.
	LabelDecoy LabelKind = "decoy"
	// LabelTag is a pseudo-instruction tag or chat-template marker: none of
	// its needles may survive.
	LabelTag LabelKind = "tag"
	// LabelInvisible is a run of invisible or control characters: none may
	// survive.
	LabelInvisible LabelKind = "invisible"
)

// Label is one planted item. Offset and Exact are in the decoded string
// value at Pointer: Exact == value[Offset:Offset+len(Exact)].
type Label struct {
	Record   int       `json:"record"`
	Kind     LabelKind `json:"kind"`
	Family   string    `json:"family"`             // ai, vcs-ci, cloud, ... (secrets); decoy; tag; invisible
	Provider string    `json:"provider,omitempty"` // github, aws, ... (secrets)
	Type     string    `json:"type"`               // corpus type, e.g. github-classic-pat (not a rule id)
	Context  string    `json:"context"`            // the record shape it was written in, e.g. env-file, code-search/structured
	Pointer  string    `json:"pointer"`            // JSON pointer of the string value
	Offset   int       `json:"offset"`             // byte offset of Exact in the decoded value
	Exact    string    `json:"exact"`              // the planted span, as written in the value
	// Needles must all vanish from the value (secrets, tags, invisibles);
	// they default to Exact.
	Needles []string `json:"needles,omitempty"`
	// Inner is the credential inside an encoded run.
	Inner string `json:"inner,omitempty"`
	// Raw is Exact as it is escaped in the record's JSON bytes.
	Raw string `json:"raw"`
}

// needles returns what must vanish.
func (l *Label) needleList() []string {
	if len(l.Needles) > 0 {
		return l.Needles
	}
	return []string{l.Exact}
}

// LabeledRecord is one tool result of the corpus and its labels.
type LabeledRecord struct {
	Index        int
	Tool         string
	Shape        string // env-file, yaml-config, ..., see CorpusShapes
	Envelope     bool   // wrapped in a JSON-RPC response
	OutputSchema []byte // JSON or nil
	Result       []byte // the CallToolResult (or the JSON-RPC envelope)
	Labels       []Label
}

// Record returns the scan record of r.
func (r *LabeledRecord) Record() Record {
	return Record{Tool: r.Tool, OutputSchema: r.OutputSchema, Result: r.Result}
}

// CorpusOptions select a labeled corpus.
type CorpusOptions struct {
	Seed    uint64
	Records int // default DefaultCorpusRecords
}

// DefaultCorpusRecords gives about 29 MB of tool results.
const DefaultCorpusRecords = 6000

// GenerateCorpus builds the labeled corpus selected by o.
func GenerateCorpus(o CorpusOptions) []LabeledRecord {
	n := o.Records
	if n <= 0 {
		n = DefaultCorpusRecords
	}
	out := make([]LabeledRecord, n)
	for i := range out {
		out[i] = GenerateLabeled(o.Seed, i)
	}
	return out
}

// corpus shapes and their tools.
var corpusShapes = []struct {
	name, tool string
	weight     int
}{
	{"env-file", "read_file", 10},
	{"yaml-config", "read_file", 10},
	{"json-config", "read_file", 8},
	{"source-go", "read_file", 6},
	{"source-python", "read_file", 6},
	{"source-typescript", "read_file", 6},
	{"code-search", "search_code", 12},
	{"log-tail", "tail_logs", 14},
	{"web-page", "fetch_url", 12},
	{"api-response", "http_request", 10},
	{"api-structured", "get_config", 8},
	{"image", "screenshot", 2},
	{"service-account-json", "read_file", 0}, // chosen when a service-account key is planted
}

// CorpusShapes lists the record shapes.
func CorpusShapes() []string {
	s := make([]string, len(corpusShapes))
	for i, c := range corpusShapes {
		s[i] = c.name
	}
	return s
}

// ctxKind is the syntax a planted item is written in.
type ctxKind uint8

const (
	ctxEnv ctxKind = iota
	ctxYAML
	ctxJSON // inside JSON text (a config file, a pretty-printed response)
	ctxGo
	ctxPy
	ctxTS
	ctxLog
	ctxMarkdown
	ctxSnippet    // one line of a code search hit
	ctxStructured // a member value of structuredContent
)

// seg is a piece of a string value with labels relative to its start.
type seg struct {
	s      string
	labels []Label
}

// item is something to plant: a fake (secret or decoy), a tag or an
// invisible run.
type item struct {
	kind LabelKind
	f    fake
	tag  tagKind
	inv  invisibleKind
}

// GenerateLabeled builds record i of the corpus of seed.
func GenerateLabeled(seed uint64, i int) LabeledRecord {
	g := &gen{rng: rand.New(rand.NewPCG(seed^0x6a09e667f3bcc908, uint64(i)*0x9e3779b97f4a7c15+0xbb67ae8584caa73b))}
	total := 0
	for _, c := range corpusShapes {
		total += c.weight
	}
	pick := g.rng.IntN(total)
	shape := 0
	for j, c := range corpusShapes {
		if pick < c.weight {
			shape = j
			break
		}
		pick -= c.weight
	}
	name := corpusShapes[shape].name

	// What to plant. Secrets cycle through the types by record index so
	// every type is planted about equally often (secret j of record i is
	// type i + j*(1+N/4): each j walks all N types, and the types of one
	// record differ).
	var items []item
	nSecrets := []int{0, 1, 1, 1, 2, 2, 2, 3, 3, 4}[g.rng.IntN(10)]
	if name == "image" {
		nSecrets = 0
	}
	for j := range nSecrets {
		k := fakeKinds[(i+j*(1+len(fakeKinds)/4))%len(fakeKinds)]
		f := k.gen(g)
		if f.jsonText && name != "json-config" && name != "api-response" {
			name = "service-account-json"
		}
		items = append(items, item{kind: LabelSecret, f: f})
	}
	for range 2 + g.rng.IntN(5) {
		items = append(items, item{kind: LabelDecoy, f: decoyKinds[g.rng.IntN(len(decoyKinds))].gen(g)})
	}
	if g.rng.IntN(3) == 0 {
		items = append(items, item{kind: LabelTag, tag: tagKinds[g.rng.IntN(len(tagKinds))]})
	}
	if g.rng.IntN(3) == 0 {
		items = append(items, item{kind: LabelInvisible, inv: invisibleKinds[g.rng.IntN(len(invisibleKinds))]})
	}
	g.rng.Shuffle(len(items), func(a, b int) { items[a], items[b] = items[b], items[a] })

	rec := LabeledRecord{Index: i, Shape: name}
	for _, c := range corpusShapes {
		if c.name == name {
			rec.Tool = c.tool
		}
	}
	budget := 1500 + g.rng.IntN(7500)
	var root obj
	var labels []Label
	switch name {
	case "code-search":
		root, labels = g.labeledSearch(items, budget)
		rec.OutputSchema = []byte(codeSearchSchema)
	case "api-structured":
		root, labels = g.labeledStructured(items, budget)
	case "image":
		root, labels = g.labeledImage(items, budget)
	default:
		root, labels = g.labeledText(name, items, budget)
	}
	prefix := ""
	if g.rng.IntN(4) == 0 {
		rec.Envelope = true
		prefix = "/result"
		root = obj{{"jsonrpc", "2.0"}, {"id", 1 + g.rng.IntN(100000)}, {"result", root}}
	}
	var w writer
	w.value(root, EscapeMinimal)
	rec.Result = w.b
	for _, l := range labels {
		l.Record = i
		l.Context = name
		switch {
		case strings.HasPrefix(l.Pointer, "/structuredContent/"):
			l.Context = name + "/structured"
		case name == "code-search" || name == "api-structured":
			l.Context = name + "/text" // the JSON of structuredContent in a text block
		}
		l.Pointer = prefix + l.Pointer
		rec.Labels = append(rec.Labels, l)
	}
	return rec
}

// ---- rendering ----

// jsonEsc escapes s as the inside of a JSON string (only what JSON
// requires), as a JSON file or a pretty-printed response holds it.
func jsonEsc(s string) string { return escStyle(s, EscapeMinimal) }

// escStyle is s as escaped inside a JSON string in style e.
func escStyle(s string, e Escaping) string {
	var w writer
	w.str(s, e)
	return string(w.b[1 : len(w.b)-1])
}

// camel turns a variable name into a camelCase identifier
// (GITHUB_TOKEN: githubToken).
func camel(name string) string {
	parts := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == '/' || r == ':' })
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	if len(parts) == 0 {
		return "value"
	}
	return strings.Join(parts, "")
}

// envName turns a name into an environment variable name (client-secret:
// CLIENT_SECRET); an .npmrc key stays as it is.
func envName(name string) string {
	if name == "" {
		return "VALUE"
	}
	if strings.ContainsAny(name, "/:") {
		return name
	}
	return strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(name))
}

// render writes item it in syntax c. The text ends with a newline except
// for snippets and structured values.
func (g *gen) render(it item, c ctxKind) seg {
	switch it.kind {
	case LabelTag:
		return g.renderTag(it.tag, c)
	case LabelInvisible:
		panic("bench: invisible runs are inserted, not rendered")
	}
	f := it.f
	kind := it.kind
	header := strings.HasPrefix(f.lead, "Authorization: ")
	var pre, val, post string // the written line is pre + val + post, val the labeled span
	var needles []string
	esc := func(s string) string { return s }
	if c == ctxJSON && !f.jsonText {
		esc = jsonEsc
	}
	written := func(lead, tail string) {
		pre, val, post = pre+esc(lead), esc(f.value), esc(tail)+post
	}
	ts := g.timestamp()
	svc := g.pick([]string{"api-gateway", "worker", "billing", "auth", "deployer", "sync"})
	switch {
	case f.prose:
		some := func(n int) string {
			var b []string
			for range n {
				b = append(b, g.pick(words))
			}
			return strings.Join(b, " ")
		}
		before, after := some(1+g.rng.IntN(5))+" ", " "+some(1+g.rng.IntN(5))
		switch c {
		case ctxEnv, ctxYAML:
			pre, post = "# "+before, after+"\n"
		case ctxJSON:
			pre, post = `    "description": "`+esc(before), esc(after)+"\",\n"
		case ctxGo, ctxTS, ctxSnippet:
			pre, post = "// "+before, after
		case ctxPy:
			pre, post = "# "+before, after
		case ctxLog:
			pre, post = ts+" INFO  ["+svc+"] "+before, after
		case ctxMarkdown:
			pre, post = strings.ToUpper(before[:1])+before[1:], after+"."
		case ctxStructured:
			pre, post = before, after
		}
		val = esc(f.value)
		if c != ctxSnippet && c != ctxStructured && !strings.HasSuffix(post, "\n") {
			post += "\n"
		}
	case header:
		scheme := strings.TrimPrefix(f.lead, "Authorization: ")
		switch c {
		case ctxEnv:
			pre = "HTTP_AUTHORIZATION=" + scheme
		case ctxYAML:
			pre = "    Authorization: " + scheme
		case ctxJSON:
			pre, post = `    "Authorization": "`+scheme, `",`
		case ctxGo:
			pre, post = `	req.Header.Set("Authorization", "`+scheme, `")`
		case ctxPy:
			pre, post = `    headers = {"Authorization": "`+scheme, `"}`
		case ctxTS:
			pre, post = `  headers: { Authorization: "`+scheme, `" },`
		case ctxLog:
			pre = ts + " DEBUG [" + svc + "] > Authorization: " + scheme
		case ctxMarkdown:
			pre, post = "```bash\ncurl -H \"Authorization: "+scheme, "\" https://api.example.com/v1/"+g.pick(words)+"\n```"
		case ctxSnippet:
			pre, post = `req.Header.Set("Authorization", "`+scheme, `")`
		case ctxStructured:
			pre = scheme
		}
		val = f.value
		if c != ctxSnippet && c != ctxStructured {
			post += "\n"
		}
	default:
		name := f.name
		if name == "" {
			name = "value"
		}
		lead, tail := f.lead, f.tail
		multi := f.multiline
		switch c {
		case ctxEnv:
			n := envName(name)
			if multi {
				pre, post = n+"=\"", "\""
			} else {
				pre = n + "="
			}
		case ctxYAML:
			k := strings.ToLower(strings.NewReplacer("-", "_").Replace(name))
			if strings.ContainsAny(k, "/:") {
				k = `"` + k + `"`
			}
			switch {
			case multi:
				pre = "  " + k + ": |\n    "
			case g.rng.IntN(3) == 0:
				pre, post = "  "+k+": \"", "\""
			default:
				pre = "  " + k + ": "
			}
		case ctxJSON:
			pre, post = `    "`+jsonEsc(name)+`": "`, `",`
		case ctxGo:
			switch {
			case multi:
				pre, post = "var "+camel(name)+" = `", "`"
			case g.rng.IntN(2) == 0:
				pre, post = "\tconst "+camel(name)+" = \"", "\""
			default:
				pre, post = "\tos.Setenv(\""+envName(name)+"\", \"", "\")"
			}
		case ctxPy:
			switch {
			case multi:
				pre, post = envName(name)+" = \"\"\"", "\"\"\""
			case g.rng.IntN(2) == 0:
				pre, post = envName(name)+" = \"", "\""
			default:
				pre, post = "    client = Client("+strings.ToLower(strings.NewReplacer("-", "_", ".", "_", "/", "_", ":", "_").Replace(name))+"=\"", "\")"
			}
		case ctxTS:
			if multi {
				pre, post = "export const "+envName(name)+" = `", "`;"
			} else {
				pre, post = "export const "+camel(name)+" = \"", "\";"
			}
		case ctxLog:
			switch {
			case multi:
				pre = ts + " DEBUG [" + svc + "] loaded " + name + ":\n"
			case g.rng.IntN(2) == 0:
				pre = ts + " DEBUG [" + svc + "] env " + envName(name) + "="
			default:
				pre, post = ts+" INFO  ["+svc+"] config loaded "+name+"=\"", "\""
			}
		case ctxMarkdown:
			if multi {
				pre, post = "```\n", "\n```"
			} else if g.rng.IntN(2) == 0 {
				pre, post = "```bash\nexport "+envName(name)+"=", "\n```"
			} else {
				pre, post = "Set `"+envName(name)+"=", "` in your environment."
			}
		case ctxSnippet:
			switch g.rng.IntN(3) {
			case 0:
				pre, post = "const "+camel(name)+" = \"", "\";"
			case 1:
				pre = envName(name) + "="
			default:
				pre = strings.ToLower(name) + ": "
			}
		case ctxStructured:
		}
		written(lead, tail)
		if multi && c == ctxYAML {
			val = strings.ReplaceAll(val, "\n", "\n    ")
		}
		if c != ctxSnippet && c != ctxStructured {
			post += "\n"
		}
	}
	for _, n := range f.needles {
		if c == ctxJSON && !f.jsonText {
			n = jsonEsc(n)
		}
		needles = append(needles, n)
	}
	l := Label{Kind: kind, Family: f.family, Provider: f.provider, Type: f.typ, Offset: len(pre), Exact: val, Needles: needles, Inner: f.inner}
	if kind == LabelDecoy {
		l.Provider, l.Needles = "", nil
	}
	return seg{s: pre + val + post, labels: []Label{l}}
}

func (g *gen) renderTag(t tagKind, c ctxKind) seg {
	text := t.text
	var pre, post string
	switch c {
	case ctxEnv, ctxYAML, ctxPy:
		pre = "# "
	case ctxJSON:
		pre, post = `    "note": "`, `",`
		text = jsonEsc(text)
	case ctxGo, ctxTS:
		pre = "// "
	case ctxSnippet:
		pre = "// "
		text = strings.ReplaceAll(text, "\n", " ")
	case ctxLog:
		pre = g.timestamp() + " WARN  [proxy] upstream said: "
	}
	if c != ctxSnippet && c != ctxStructured {
		post += "\n"
	}
	needles := t.needles
	if c == ctxJSON {
		needles = nil
		for _, n := range t.needles {
			needles = append(needles, jsonEsc(n))
		}
	}
	return seg{s: pre + text + post, labels: []Label{{Kind: LabelTag, Family: "tag", Type: t.typ, Offset: len(pre), Exact: text, Needles: needles}}}
}

// insertInvisible puts an invisible run at a random character boundary of
// an unlabeled segment, or appends a segment holding it when there is none.
func (g *gen) insertInvisible(segs []seg, inv invisibleKind) []seg {
	var cands []int
	for i, s := range segs {
		if len(s.labels) == 0 && len(s.s) > 2 {
			cands = append(cands, i)
		}
	}
	var needles []string
	for _, r := range inv.text {
		if r < 0x20 || r > 0x7e {
			if n := string(r); !containsString(needles, n) {
				needles = append(needles, n)
			}
		}
	}
	l := Label{Kind: LabelInvisible, Family: "invisible", Type: inv.typ, Exact: inv.text, Needles: needles}
	if len(cands) == 0 {
		return append(segs, seg{s: inv.text, labels: []Label{l}})
	}
	k := cands[g.rng.IntN(len(cands))]
	s := segs[k].s
	at := 1 + g.rng.IntN(len(s)-1)
	for at < len(s) && !utf8.RuneStart(s[at]) {
		at++
	}
	l.Offset = at
	segs[k] = seg{s: s[:at] + inv.text + s[at:], labels: []Label{l}}
	return segs
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// join assembles segments into one value; labels get absolute offsets and
// the pointer.
func join(segs []seg, ptr string, esc Escaping) (string, []Label) {
	var b strings.Builder
	var labels []Label
	for _, s := range segs {
		for _, l := range s.labels {
			l.Offset += b.Len()
			l.Pointer = ptr
			l.Raw = escStyle(l.Exact, esc)
			labels = append(labels, l)
		}
		b.WriteString(s.s)
	}
	return b.String(), labels
}

// place inserts rendered items between filler lines [lo, hi] at random,
// then the invisible runs.
func (g *gen) place(filler []string, lo, hi int, items []item, c ctxKind) []seg {
	type ins struct {
		at int
		s  seg
	}
	var plants []ins
	var invs []invisibleKind
	for _, it := range items {
		if it.kind == LabelInvisible {
			invs = append(invs, it.inv)
			continue
		}
		plants = append(plants, ins{lo + g.rng.IntN(hi-lo+1), g.render(it, c)})
	}
	var segs []seg
	for i := 0; i <= len(filler); i++ {
		for _, p := range plants {
			if p.at == i {
				segs = append(segs, p.s)
			}
		}
		if i < len(filler) {
			segs = append(segs, seg{s: filler[i]})
		}
	}
	for _, inv := range invs {
		segs = g.insertInvisible(segs, inv)
	}
	return segs
}

// ---- record shapes ----

func lines(s string) []string { return strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n") }

// labeledText builds a result with one text block of the named shape.
func (g *gen) labeledText(name string, items []item, budget int) (obj, []Label) {
	// Keep the text block under the default text bound (12000
	// characters) so nothing planted is cut rather than found.
	for _, it := range items {
		budget -= len(it.f.lead) + len(it.f.value) + len(it.f.tail) + len(it.tag.text) + 120
	}
	budget = max(budget, 300)
	var filler []string
	var c ctxKind
	lo, hi := 0, -1
	var b strings.Builder
	switch name {
	case "env-file":
		c = ctxEnv
		for b.Len() < budget {
			switch g.rng.IntN(5) {
			case 0:
				fmt.Fprintf(&b, "\n# ---- %s ----\n", g.pick(words))
			case 1:
				fmt.Fprintf(&b, "%s_URL=https://%s.internal.example.com:%d/%s\n", envName(g.ident()), g.pick(words), 1024+g.rng.IntN(60000), g.pick(words))
			case 2:
				fmt.Fprintf(&b, "%s_ENABLED=%v\n", envName(g.ident()), g.rng.IntN(2) == 0)
			default:
				fmt.Fprintf(&b, "%s=%s\n", envName(g.ident()), g.pick([]string{"info", "debug", "8080", "production", "us-east-1", "3", "30s", g.pick(words)}))
			}
		}
		filler = lines(b.String())
	case "yaml-config":
		c = ctxYAML
		for b.Len() < budget {
			fmt.Fprintf(&b, "%s:\n", g.ident())
			for range 2 + g.rng.IntN(5) {
				fmt.Fprintf(&b, "  %s: %s\n", g.ident(), g.pick([]string{"true", "false", "\"" + g.pick(words) + "\"", fmt.Sprint(g.rng.IntN(10000)), g.pick(words) + ".example.com"}))
			}
		}
		filler = lines(b.String())
		lo = 1
	case "json-config", "api-response", "service-account-json":
		c = ctxJSON
		if name == "service-account-json" {
			// A service-account key file: the planted key goes after
			// "private_key_id", other items after it.
			pid := g.chars(lowerHex, 40)
			proj := g.pick(words) + "-" + g.pick(words) + "-" + fmt.Sprint(100000+g.rng.IntN(900000))
			filler = []string{"{\n", "    \"type\": \"service_account\",\n", "    \"project_id\": \"" + proj + "\",\n",
				"    \"private_key_id\": \"" + pid + "\",\n",
				"    \"client_email\": \"" + g.pick(words) + "@" + proj + ".iam.gserviceaccount.com\",\n",
				"    \"client_id\": \"1" + g.chars(digits, 20) + "\",\n",
				"    \"auth_uri\": \"https://accounts.google.com/o/oauth2/auth\",\n",
				"    \"token_uri\": \"https://oauth2.googleapis.com/token\",\n",
				"    \"universe_domain\": \"googleapis.com\"\n", "}\n"}
			lo, hi = 4, 8
			break
		}
		b.WriteString("{\n")
		if name == "api-response" {
			fmt.Fprintf(&b, "  \"request_id\": \"%s\",\n  \"data\": {\n", g.uuid())
		} else {
			b.WriteString("  \"settings\": {\n")
		}
		for b.Len() < budget {
			fmt.Fprintf(&b, "    \"%s\": %s,\n", g.ident(), g.pick([]string{"true", "null", fmt.Sprint(g.rng.IntN(100000)), "\"" + g.pick(words) + "\"",
				"\"" + g.timestamp() + "\"", "[\"" + g.pick(words) + "\", \"" + g.pick(words) + "\"]", "\"https://" + g.pick(words) + ".example.com/" + g.ident() + "\""}))
		}
		b.WriteString("    \"updated_at\": \"" + g.timestamp() + "\"\n  }\n}\n")
		filler = lines(b.String())
		lo, hi = 3, len(filler)-3
		if name == "json-config" {
			lo = 2
		}
	case "source-go", "source-python", "source-typescript":
		switch name {
		case "source-go":
			c = ctxGo
			g.goCode(&b, budget)
		case "source-python":
			c = ctxPy
			g.pyCode(&b, budget)
		default:
			c = ctxTS
			g.tsCode(&b, budget)
		}
		filler = lines(b.String())
		lo = 3
	case "log-tail":
		c = ctxLog
		levels := []string{"INFO ", "INFO ", "DEBUG", "WARN ", "ERROR"}
		for b.Len() < budget {
			fmt.Fprintf(&b, "%s %s [%s-%d] req=%s %s", g.timestamp(), g.pick(levels), g.pick(words), g.rng.IntN(8), g.chars(hexDigits, 16), g.pick(logMsgs))
			switch g.rng.IntN(3) {
			case 0:
				fmt.Fprintf(&b, " path=/v1/%s/%d status=%d latency_ms=%d", g.pick(words), g.rng.IntN(100000), []int{200, 201, 204, 404, 500}[g.rng.IntN(5)], g.rng.IntN(2000))
			case 1:
				fmt.Fprintf(&b, " user_id=%d attempt=%d", g.rng.IntN(1<<20), g.rng.IntN(5))
			}
			b.WriteByte('\n')
		}
		filler = lines(b.String())
	case "web-page":
		c = ctxMarkdown
		fmt.Fprintf(&b, "# %s\n\nSource: https://docs.example.org/%s/%s\n\n", g.pick(titles), g.pick(words), g.ident())
		for b.Len() < budget {
			switch g.rng.IntN(5) {
			case 0:
				fmt.Fprintf(&b, "## %s\n\n", g.pick(titles))
			case 1:
				b.WriteString(g.pick(foreign) + "\n\n")
			case 2:
				fmt.Fprintf(&b, "- %s [%s](https://example.com/%s) %s\n", g.sentence(), g.pick(words), g.ident(), g.pick(emoji))
			default:
				for range 2 + g.rng.IntN(4) {
					b.WriteString(g.sentence() + " ")
				}
				b.WriteString("\n\n")
			}
		}
		filler = lines(b.String())
		lo = 2
	}
	if hi < 0 {
		hi = len(filler)
	}
	segs := g.place(filler, lo, hi, items, c)
	t := &text{esc: g.style(), ptr: "/content/0/text"}
	var labels []Label
	t.s, labels = join(segs, t.ptr, t.esc)
	return result([]any{textBlock(t)}), labels
}

// labeledSearch builds code search hits in structuredContent with the same
// JSON in a text block; planted items are snippets of their own.
func (g *gen) labeledSearch(items []item, budget int) (obj, []Label) {
	budget = min(budget, 4000) // the mirror must stay under the text bound
	query := g.ident()
	var snippets []seg
	size := 0
	for size < budget/2 || len(snippets) == 0 {
		var s string
		switch g.rng.IntN(3) {
		case 0:
			s = fmt.Sprintf("func %s(ctx context.Context) error { return %s(ctx, %q) }", g.typeName(), query, g.pick(words))
		case 1:
			s = fmt.Sprintf("    %s = self.%s.get(\"%s\", %d)", query, g.ident(), g.pick(words), g.rng.IntN(100))
		default:
			s = fmt.Sprintf("const %s = await %s({ %s: '%s' }); // %s", g.ident(), query, g.ident(), g.pick(words), g.pick(words))
		}
		snippets = append(snippets, seg{s: s})
		size += 2 * (len(s) + 80)
	}
	var invs []invisibleKind
	for _, it := range items {
		switch {
		case it.kind == LabelInvisible:
			invs = append(invs, it.inv)
		case it.f.multiline || it.f.jsonText:
			// A hit is one line: a key block is represented by its header
			// line only, which is not a secret; leave it out.
		default:
			at := g.rng.IntN(len(snippets) + 1)
			snippets = append(snippets[:at], append([]seg{g.render(it, ctxSnippet)}, snippets[at:]...)...)
		}
	}
	for _, inv := range invs {
		snippets = g.insertInvisible(snippets, inv)
	}
	var matches []any
	var labels []Label
	for i, s := range snippets {
		t := &text{esc: g.style(), ptr: fmt.Sprintf("/structuredContent/matches/%d/snippet", i)}
		var ls []Label
		t.s, ls = join([]seg{s}, t.ptr, t.esc)
		labels = append(labels, ls...)
		matches = append(matches, obj{
			{"path", g.path()},
			{"line", 1 + g.rng.IntN(5000)},
			{"column", 1 + g.rng.IntN(80)},
			{"snippet", t},
			{"score", float64(g.rng.IntN(1000)) / 1000},
		})
	}
	sc := obj{{"query", query}, {"total", len(matches) + g.rng.IntN(100)}, {"matches", matches}, {"truncated", false}}
	mt, ml := g.mirrorText(sc, labels)
	return result([]any{textBlock(mt)}, member{"structuredContent", sc}), append(labels, ml...)
}

// mirrorText returns the text block holding the compact JSON of sc (every
// string in one escaping style, as one serializer writes it), and the
// labels of sc relocated into it (labels must be in document order).
func (g *gen) mirrorText(sc obj, labels []Label) (*text, []Label) {
	inner := g.style()
	var w writer
	w.value(oneStyle(sc), inner)
	t := &text{s: string(w.b), esc: g.style(), ptr: "/content/0/text"}
	var out []Label
	from := 0
	for _, l := range labels {
		m := l
		m.Exact = escStyle(l.Exact, inner)
		m.Needles = nil
		for _, n := range l.Needles {
			e := escStyle(n, inner)
			if e != n && (l.Kind == LabelTag || l.Kind == LabelInvisible) {
				// Escaped, a control character or a marker is printable
				// text (\u001b, \u003csystem\u003e, [\/INST]): not a
				// marker any more, nothing to remove.
				continue
			}
			m.Needles = append(m.Needles, e)
		}
		if (l.Kind == LabelTag || l.Kind == LabelInvisible) && len(m.Needles) == 0 {
			continue
		}
		k := strings.Index(t.s[from:], m.Exact)
		if k < 0 {
			panic("bench: mirrored label not found")
		}
		m.Offset = from + k
		m.Pointer = t.ptr
		m.Raw = escStyle(m.Exact, t.esc)
		from = m.Offset + len(m.Exact)
		out = append(out, m)
	}
	return t, out
}

// oneStyle copies v with every text in the style passed to the writer.
func oneStyle(v any) any {
	switch v := v.(type) {
	case *text:
		c := *v
		c.esc = EscapeMixed
		return &c
	case obj:
		c := make(obj, len(v))
		for i, m := range v {
			c[i] = member{m.k, oneStyle(m.v)}
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, x := range v {
			c[i] = oneStyle(x)
		}
		return c
	}
	return v
}

// labeledStructured builds an API result whose structuredContent holds a
// configuration map, mirrored as JSON text.
func (g *gen) labeledStructured(items []item, budget int) (obj, []Label) {
	budget = min(budget, 4000)
	cfg := obj{}
	used := map[string]bool{}
	size := 0
	var labels []Label
	var invs []invisibleKind
	key := func(k string) string {
		for used[k] {
			k += "_2"
		}
		used[k] = true
		return k
	}
	for size < budget/2 {
		k := key(g.ident())
		v := g.pick([]string{g.pick(words), fmt.Sprint(g.rng.IntN(10000)), "https://" + g.pick(words) + ".example.com", g.timestamp()})
		cfg = append(cfg, member{k, g.newTextNoPlant(v)})
		size += 2 * (len(k) + len(v) + 6)
	}
	for _, it := range items {
		if it.kind == LabelInvisible {
			invs = append(invs, it.inv)
			continue
		}
		if it.f.jsonText {
			continue
		}
		s := g.render(it, ctxStructured)
		var k string
		switch {
		case it.kind == LabelTag:
			k = "note"
		case it.f.prose:
			k = "description"
		case strings.HasPrefix(it.f.lead, "Authorization: "):
			k = "Authorization"
		default:
			k = it.f.name
			if k == "" {
				k = "value"
			}
		}
		k = key(k)
		at := g.rng.IntN(len(cfg) + 1)
		t := &text{s: s.s, esc: g.style(), ptr: "/structuredContent/config/" + ptrEsc(k)}
		for _, l := range s.labels {
			l.Pointer = t.ptr
			l.Raw = escStyle(l.Exact, t.esc)
			labels = append(labels, l)
		}
		cfg = append(cfg[:at], append(obj{{k, t}}, cfg[at:]...)...)
	}
	for _, inv := range invs {
		// Into a random plain value.
		var plain []int
		for i, m := range cfg {
			if t, ok := m.v.(*text); ok && t.ptr == "" && len(t.s) > 2 {
				plain = append(plain, i)
			}
		}
		if len(plain) == 0 {
			continue
		}
		i := plain[g.rng.IntN(len(plain))]
		t := cfg[i].v.(*text)
		segs := g.insertInvisible([]seg{{s: t.s}}, inv)
		t.ptr = "/structuredContent/config/" + ptrEsc(cfg[i].k)
		var ls []Label
		t.s, ls = join(segs, t.ptr, t.esc)
		labels = append(labels, ls...)
	}
	// Labels in document order, for the mirror.
	var ordered []Label
	for _, m := range cfg {
		p := "/structuredContent/config/" + ptrEsc(m.k)
		for _, l := range labels {
			if l.Pointer == p {
				ordered = append(ordered, l)
			}
		}
	}
	sc := obj{{"service", g.pick(words) + "-" + g.pick(words)}, {"environment", g.pick([]string{"production", "staging", "dev"})},
		{"config", cfg}, {"revision", g.rng.IntN(500)}}
	mt, ml := g.mirrorText(sc, ordered)
	return result([]any{textBlock(mt)}, member{"structuredContent", sc}), append(ordered, ml...)
}

// newTextNoPlant is a string value that nothing is planted into (yet).
func (g *gen) newTextNoPlant(s string) *text { return &text{s: s, esc: g.style()} }

func ptrEsc(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

// labeledImage builds a screenshot result: a caption (decoys, tags and
// invisibles go there) and image blocks.
func (g *gen) labeledImage(items []item, budget int) (obj, []Label) {
	filler := []string{"Screenshot of " + g.sentence() + "\n"}
	segs := g.place(filler, 0, 1, items, ctxMarkdown)
	t := &text{esc: g.style(), ptr: "/content/0/text"}
	var labels []Label
	t.s, labels = join(segs, t.ptr, t.esc)
	content := []any{textBlock(t)}
	raw := make([]byte, max(budget/2, 256))
	copy(raw, "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for i := 16; i < len(raw); i++ {
		raw[i] = byte(g.rng.Uint32())
	}
	content = append(content, obj{{"type", "image"}, {"data", b64(base64.StdEncoding.EncodeToString(raw))}, {"mimeType", "image/png"}})
	return result(content), labels
}
