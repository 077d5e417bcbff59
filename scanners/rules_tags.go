package scanners

// Pseudo-instruction tags and chat-template markers. Their keywords are the
// opening bracket plus what must follow it (see triggers), so that ordinary
// "<" and "[" in code (a < b, <div>, </span>, x[i], cout << x) do not even
// reach a check.

// pseudoTagNames are the element names the seed guard neutralizes.
var pseudoTagNames = []string{"system", "developer", "instructions", "tool", "assistant", "user", "important"}

// junitSuffixes complete "system" to JUnit XML's <system-out> and
// <system-err>, which pseudo-tag leaves alone.
var junitSuffixes = []string{"-out", "-err"}

const (
	tagMaxSpace = 256 // longest whitespace run accepted inside a tag's opening
	tagMaxAttrs = 512 // how far after the name a closing '>' is looked for
	tmplMaxName = 40  // longest name in <|name|>
	tmplMaxWS   = 16  // longest whitespace run inside a chat-template marker
)

func tagRules() []ruleDef {
	return []ruleDef{
		{
			id: "pseudo-tag", provider: "prompt-injection", kind: KindTag, confidence: "high",
			desc:  "pseudo-instruction tag: < ws* (/ ws*)? (system|developer|instructions|tool|assistant|user|important)(_|\\b) [^>]* >, any case (so <tool_call> and <system_prompt> too), except JUnit's <system-out> and <system-err>; also HTML-escaped, &lt; (&#60;, &#x3c;) /? name ... to &gt; (&#62;, &#x3e;) or >; without '>' in 512 bytes the opening part alone",
			forms: []form{pseudoTagForm(), entityTagForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"<system>", "</SYSTEM>", "< / user >", "<assistant role=\"x\">", "<Important\n>",
					"<tool_x <developer name='a'>", "<instructions", "<user data-x=1/>", "<  system\tfoo",
					"<tool_call>", "</tool_response>", "<system_prompt>", "<user_query>", "<system-reminder>",
					"<system-output>", "<system-out-of-band>", "<system-err_x>",
					"&lt;system&gt;", "&lt;/Instructions&gt;", "&#60;system&#62;", "&#x3C;tool_call&#x3E;", "&lt;user>", "&lt;important",
					`\u003csystem\u003e`, `\u003C/system\u003E`,
				}
				fp = []string{"user", "system prompt", "a < b", "<users>", "curl -u <user:password> https://host", "<tool:name>", "<systemd>", "<toolbox>", "<tooltip>", "<div>", "<-ch",
					"<system-out>ok</system-out>", "<SYSTEM-ERR/>", "</system-err >",
					"&lt;systemd&gt;", "&lt;div&gt;", "&amp;lt;b&amp;gt;", "&lt;system-out&gt;", "&lt; users", `\u003cdiv\u003e`, `\u003cusers\u003e`}
				return
			},
		},
		{
			id: "chat-template", provider: "prompt-injection", kind: KindTag, confidence: "high",
			desc:  "chat-template control markers: <|name|> (1-40 of [A-Za-z0-9_]), [INST], [/INST], <<SYS>>, <</SYS>>, Gemma <start_of_turn> and <end_of_turn>, Mistral [SYSTEM_PROMPT], [AVAILABLE_TOOLS], [TOOL_CALLS], [TOOL_RESULTS] (and their closing forms); any case, whitespace inside tolerated",
			forms: append([]form{chatPipeForm(), escPipeForm(), instForm(), sysForm()}, namedMarkerForms()...),
			examples: func() (tp, fp []string) {
				tp = []string{
					"<|im_start|>", "<|im_end|>", "<|system|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>",
					"<|endoftext|>", "<| im_start |>", "[INST]", "[/INST]", "[ inst ]", "[ / INST]", "<<SYS>>", "<</SYS>>", "<< sys >>",
					"<start_of_turn>", "<end_of_turn>", "<start_of_turn>user", "< End_Of_Turn >", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]",
					"[AVAILABLE_TOOLS]", "[TOOL_CALLS]", "[/TOOL_RESULTS]",
					`\u003c|im_start|\u003e`, `\u003C|eot_id|\u003E`, "&lt;|im_end|&gt;", "&#60;|system|>",
					// The detection view reads references as their characters
					// (view.go): this is "<|x| >", a marker like any other.
					"&lt;|x| &gt;",
				}
				fp = []string{"a || b", "<||>", "arr[i]", "[instance]", "<<SYSTEM>>", "<|" + "a b|>", "[INST", "a << b",
					"start_of_turn", "<start_of_turns>", "<start_of_turn", "[SYSTEM_PROMPTS]", "tool_calls[0]", "[TOOL_CALL]",
					`\u003c|a b|\u003e`, "&lt;||&gt;", `\u003c|im_start|`}
				return
			},
		},
	}
}

func isWordByte(c byte) bool { return setWord[c] }

// tagSpace is RE2's \s, the whitespace tolerated inside markers.
var tagSpace = []string{" ", "\t", "\n", "\r", "\f"}

// afterSpaceSet is form.afterSpace for a marker of the shape triggers
// covers: after the opener's whitespace, a '/' or the first letter of one
// of the words, in either case.
func afterSpaceSet(words ...string) *byteSet {
	var s byteSet
	s['/'] = true
	for _, w := range words {
		s[lowerASCII(w[0])] = true
		if c := w[0]; c >= 'a' && c <= 'z' {
			s[c-'a'+'A'] = true
		}
	}
	return &s
}

// triggers returns keywords that cover every way a marker of the shape
// open ws* ("/" ws*)? word can begin: open+word, open+"/"+word,
// open+"/"+ws, open+ws+word, open+ws+"/", open+ws+ws. A long run of
// whitespace costs a check; ordinary text such as "a < b" costs nothing.
func triggers(open string, words ...string) []string {
	var kws []string
	for _, w := range words {
		kws = append(kws, open+w, open+"/"+w)
	}
	for _, ws := range tagSpace {
		kws = append(kws, open+"/"+ws, open+ws+"/")
		for _, w := range words {
			kws = append(kws, open+ws+w)
		}
		for _, ws2 := range tagSpace {
			kws = append(kws, open+ws+ws2)
		}
	}
	return kws
}

// skipSpace advances over at most max whitespace bytes; ok is false if the
// run is longer.
func skipSpace(d []byte, i, max int) (int, bool) {
	s := i
	for i < len(d) && setSpace[d[i]] {
		if i-s >= max {
			return i, false
		}
		i++
	}
	return i, true
}

// matchFold reports whether d[i:] starts with lower-case ASCII word w, in any
// case; more is true when d ends before it can tell.
func matchFold(d []byte, i int, w string) (ok, short bool) {
	for j := 0; j < len(w); j++ {
		if i+j >= len(d) {
			return false, true
		}
		if lowerASCII(d[i+j]) != w[j] {
			return false, false
		}
	}
	return true, false
}

func pseudoTagForm() form {
	kws := triggers("<", pseudoTagNames...)
	longest := 0
	for _, n := range pseudoTagNames {
		longest = max(longest, len(n))
	}
	return form{
		keywords:   kws,
		afterSpace: afterSpaceSet(pseudoTagNames...),
		back:       1,
		ahead:      1 + tagMaxSpace + 1 + tagMaxSpace + longest + 1 + tagMaxAttrs,
		check: func(v *view, ks, ke int) result {
			d := v.data
			i, ok := skipSpace(d, ks+1, tagMaxSpace)
			if !ok {
				return noMatch
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if i < len(d) && d[i] == '/' {
				if i, ok = skipSpace(d, i+1, tagMaxSpace); !ok {
					return noMatch
				}
				if v.more(i) {
					return result{status: resMore}
				}
			}
			return pseudoTagRest(v, ks, i, false)
		},
	}
}

// entityOpeners are escaped forms of '<' taken as a tag opening: HTML
// character references (a page or an API that HTML-escapes its text still
// hands the model "&lt;system&gt;", which it reads as a tag) and the JSON
// escape "\u003c" that Go's encoding/json writes for '<' by default, so
// JSON serialized into a text block carries "\u003csystem\u003e".
var entityOpeners = []string{"&lt;", "&#60;", "&#x3c;", `\u003c`}

// entityClosers are the escaped forms of '>' that end an escaped tag (a
// plain '>' ends it too).
var entityClosers = []string{"&gt;", "&#62;", "&#x3e;", `\u003e`}

// entityTagForm: an escaped pseudo-instruction tag, &lt; (or &#60;, &#x3c;,
// \u003c), an optional '/', a name as in pseudoTagForm, then up to
// tagMaxAttrs bytes to the first &gt; (&#62;, &#x3e;, \u003e) or '>'. No whitespace
// is accepted before the name: escaped text keeps the tag as written.
func entityTagForm() form {
	var kws []string
	for _, o := range entityOpeners {
		for _, n := range pseudoTagNames {
			kws = append(kws, o+n, o+"/"+n)
		}
	}
	longest := 0
	for _, n := range pseudoTagNames {
		longest = max(longest, len(n))
	}
	return form{
		keywords: kws,
		back:     1,
		ahead:    len(`\u003c`) + 1 + longest + 1 + tagMaxAttrs + len(`\u003e`),
		check: func(v *view, ks, ke int) result {
			d := v.data
			i := ks
			for _, o := range entityOpeners {
				if ok, _ := matchFold(d, ks, o); ok {
					i = ks + len(o)
					break
				}
			}
			if i < len(d) && d[i] == '/' {
				i++
			}
			return pseudoTagRest(v, ks, i, true)
		},
	}
}

// pseudoTagRest finishes a pseudo-tag whose opening starts at ks and whose
// name should start at i: the name, what may follow it, and the end of the
// tag ('>' within tagMaxAttrs bytes, or an escaped '>' when entities is
// set); without an end the match is the opening and the name.
func pseudoTagRest(v *view, ks, i int, entities bool) result {
	d := v.data
	if i >= len(d) {
		return noMatch
	}
	name := -1
	for n, w := range pseudoTagNames {
		ok, short := matchFold(d, i, w)
		if short && !v.atEnd {
			return result{status: resMore}
		}
		if ok {
			name = n
			break
		}
	}
	if name < 0 {
		return noMatch
	}
	e := i + len(pseudoTagNames[name])
	if v.more(e) {
		return result{status: resMore}
	}
	// "<tool_call>", "<system_prompt>", "<user_query>": a name that goes on
	// after an underscore is one of these markers too (Hermes and Qwen
	// use <tool_call> for function calls), as in the seed's pattern.
	// "<systemd>", "<users>", "<toolbox>" go on with a letter: not ours.
	if e < len(d) && isWordByte(d[e]) && d[e] != '_' {
		return noMatch
	}
	// "<user:password>", "<tool:name>": a name with a namespace-like colon
	// and a letter after it is a placeholder of a credential or a qualified
	// XML name, not a role marker; <system:…> and <instructions:…> stay tags.
	if e < len(d) && d[e] == ':' && name != 0 && pseudoTagNames[name] != "instructions" {
		if v.more(e + 1) {
			return result{status: resMore}
		}
		if e+1 < len(d) && setLetters[d[e+1]] {
			return noMatch
		}
	}
	// JUnit XML's <system-out> and <system-err> hold a test's
	// captured output: element names of a well-known format, not
	// instructions (a test report is common tool output).
	if name == 0 && e < len(d) && d[e] == '-' {
		for _, suffix := range junitSuffixes {
			ok, short := matchFold(d, e, suffix)
			if short && !v.atEnd {
				return result{status: resMore}
			}
			if !ok {
				continue
			}
			f := e + len(suffix)
			if v.more(f) {
				return result{status: resMore}
			}
			if f == len(d) || !isWordByte(d[f]) && d[f] != '-' {
				return noMatch
			}
		}
	}
	for j := e; j < e+tagMaxAttrs; j++ {
		if j >= len(d) {
			if !v.atEnd {
				return result{status: resMore}
			}
			break
		}
		if d[j] == '>' {
			return result{status: resMatch, start: ks, end: j + 1}
		}
		if entities && (d[j] == '&' || d[j] == '\\') {
			for _, c := range entityClosers {
				ok, short := matchFold(d, j, c)
				if short && !v.atEnd {
					return result{status: resMore}
				}
				if ok {
					return result{status: resMatch, start: ks, end: j + len(c)}
				}
			}
		}
	}
	return result{status: resMatch, start: ks, end: e}
}

// escPipeForm: an escaped chat-template marker, an entityOpeners form of
// '<', then |name| and an entityClosers form of '>' or '>' itself, without
// whitespace ("\u003c|im_start|\u003e" in JSON written by Go, "&lt;|im_end|&gt;"
// in escaped HTML).
func escPipeForm() form {
	var kws []string
	for _, o := range entityOpeners {
		kws = append(kws, o+"|")
	}
	return form{
		keywords: kws,
		back:     1,
		ahead:    len(`\u003c`) + 2 + tmplMaxName + len(`\u003e`),
		check: func(v *view, ks, ke int) result {
			d := v.data
			i := ke // after the '|'
			s := i
			for i < len(d) && i-s <= tmplMaxName && isWordByte(d[i]) {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if n := i - s; n == 0 || n > tmplMaxName || i >= len(d) || d[i] != '|' {
				return noMatch
			}
			i++
			if v.more(i) {
				return result{status: resMore}
			}
			if i < len(d) && d[i] == '>' {
				return result{status: resMatch, start: ks, end: i + 1}
			}
			for _, c := range entityClosers {
				ok, short := matchFold(d, i, c)
				if short && !v.atEnd {
					return result{status: resMore}
				}
				if ok {
					return result{status: resMatch, start: ks, end: i + len(c)}
				}
			}
			return noMatch
		},
	}
}

// chatPipeForm: < ws* | ws* name ws* | ws* >, name 1..40 of [A-Za-z0-9_].
func chatPipeForm() form {
	return form{
		keywords:   triggers("<", "|"),
		afterSpace: afterSpaceSet("|"),
		back:       1,
		ahead:      1 + 4*tmplMaxWS + tmplMaxName + 4,
		check: func(v *view, ks, ke int) result {
			d := v.data
			steps := [...]byte{'|', 0, '|', '>'}
			i := ks + 1
			for _, want := range steps {
				var ok bool
				if i, ok = skipSpace(d, i, tmplMaxWS); !ok {
					return noMatch
				}
				if v.more(i) {
					return result{status: resMore}
				}
				if i >= len(d) {
					return noMatch
				}
				if want != 0 {
					if d[i] != want {
						return noMatch
					}
					i++
					continue
				}
				s := i
				for i < len(d) && i-s <= tmplMaxName && isWordByte(d[i]) {
					i++
				}
				if n := i - s; n == 0 || n > tmplMaxName {
					return noMatch
				}
			}
			return result{status: resMatch, start: ks, end: i}
		},
	}
}

// bracketForm: open ws* (/ ws*)? word ws* close, word in any case.
func bracketForm(open, word, close string, kws []string) form {
	return form{
		keywords:   kws,
		afterSpace: afterSpaceSet(word),
		back:       1,
		ahead:      len(open) + 3*tmplMaxWS + 1 + len(word) + len(close) + 1,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if string(d[ks:ks+len(open)]) != open {
				return noMatch
			}
			i, ok := skipSpace(d, ks+len(open), tmplMaxWS)
			if !ok {
				return noMatch
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if i < len(d) && d[i] == '/' {
				if i, ok = skipSpace(d, i+1, tmplMaxWS); !ok {
					return noMatch
				}
			}
			m, short := matchFold(d, i, word)
			if short && !v.atEnd {
				return result{status: resMore}
			}
			if !m {
				return noMatch
			}
			if i, ok = skipSpace(d, i+len(word), tmplMaxWS); !ok {
				return noMatch
			}
			m, short = matchFold(d, i, close)
			if short && !v.atEnd {
				return result{status: resMore}
			}
			if !m {
				return noMatch
			}
			return result{status: resMatch, start: ks, end: i + len(close)}
		},
	}
}

func instForm() form {
	return bracketForm("[", "inst", "]", triggers("[", "inst"))
}

func sysForm() form {
	return bracketForm("<<", "sys", ">>", triggers("<<", "sys"))
}

// namedMarkers are chat-template control tokens spelled as a bracketed word:
// Gemma's turn markers and Mistral's v3+ control tokens.
var namedMarkers = []struct{ open, word, close string }{
	{"<", "start_of_turn", ">"},
	{"<", "end_of_turn", ">"},
	{"[", "system_prompt", "]"},
	{"[", "available_tools", "]"},
	{"[", "tool_calls", "]"},
	{"[", "tool_results", "]"},
}

func namedMarkerForms() []form {
	fs := make([]form, 0, len(namedMarkers))
	for _, m := range namedMarkers {
		fs = append(fs, bracketForm(m.open, m.word, m.close, triggers(m.open, m.word)))
	}
	return fs
}
