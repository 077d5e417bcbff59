package scanners

import "bytes"

// A Kubernetes Secret manifest in YAML: the values under data: are the
// secret, base64-encoded, under key names of the user's choice. Neither the
// names nor the base64 say secret; the manifest's kind: Secret does, a few
// lines before data: or after it. The text may be the manifest itself or
// its JSON-escaped form (a file read: \n and \t for line breaks and tabs).

// Kubernetes Secret limits.
const (
	k8sLook     = 256  // bytes between kind: Secret and data: (either order) that are searched
	k8sMaxSpace = 100  // whitespace (and its JSON escapes) before a key or a block value
	k8sMaxKey   = 253  // longest data key (a DNS subdomain)
	k8sMinValue = 10   // shortest base64 value taken
	k8sMaxValue = 4096 // longest base64 value taken
)

// k8sKindLen is how many bytes kindSecretAt reads: kind:, spaces, an
// escaped quote, secret, the quote and the byte after it.
const k8sKindLen = len("kind:") + ctxMaxSpace + 2 + len("secret") + 2 + 1

// k8sValueLen is how many bytes from data: k8sValue reads at most.
const k8sValueLen = len("data:") + k8sMaxSpace + 2 + k8sMaxKey + 2 + ctxMaxSpace + 2 + k8sMaxSpace + 2 + 2 + k8sMaxValue + 4 + 2 + 1

var setK8sKey = makeSet("A-Za-z0-9_.-")

func kubernetesRules() []ruleDef {
	b64 := base62Alphabet + "+/"
	return []ruleDef{{
		id: "kubernetes-secret-data", provider: "Kubernetes", kind: KindSecret, confidence: "medium",
		desc: "the first base64 value under data: of a Kubernetes Secret manifest (kind: Secret before or after it, YAML, also JSON-escaped); the value is replaced",
		forms: []form{
			{keywords: []string{"kind:"}, back: 2, ahead: k8sKindLen + k8sLook + k8sValueLen + ctxMargin, check: k8sKindFirst},
			{keywords: []string{"data:"}, back: 2, ahead: k8sValueLen + k8sLook + k8sKindLen + ctxMargin, check: k8sDataFirst},
		},
		examples: func() (tp, fp []string) {
			tp = []string{
				"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: " + fakeChars(b64, 24, 1) + "=\n",
				"apiVersion: v1\ndata:\n  token: '" + fakeChars(b64, 40, 2) + "'\nkind: Secret\nmetadata:\n  name: api\n",
				`apiVersion: v1\nkind: \"Secret\"\ndata:\n  .dockerconfigjson: |\n    ` + fakeChars(b64, 64, 3) + `==\n`,
				"kind: secret\ndata:\n\tca.crt: >-\n\t\t" + fakeChars(b64, 120, 4) + "\n",
			}
			fp = []string{
				"apiVersion: v1\nkind: ConfigMap\ndata:\n  config: " + fakeChars(b64, 24, 5) + "\n",
				"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: plain\n",
				"kind: Secret\ndata:\n  password: c2hvcnQ=\n",
				"kind: Secret\ndata:\n  password: " + "xxxxxxxxxxxxxxxxxxxxxxxx" + "\n",
				"data: {\"kind\": \"Secret\"}",
			}
			return
		},
	}}
}

// k8sSpace returns the end of the whitespace at i (spaces, tabs, line
// breaks and their JSON escapes \n \t \r), reading at most max+2 bytes
// (so that a run longer than max ends past i+max), and whether it holds a
// line break.
func k8sSpace(c *scanCursor, i, max int) (int, bool) {
	s := i
	nl := false
	for i-s <= max {
		b := c.at(i)
		switch {
		case b == ' ' || b == '\t' || b == '\r' || b == '\n':
			nl = nl || b == '\n'
			i++
		case b == '\\':
			e := c.at(i + 1)
			if e != 'n' && e != 't' && e != 'r' {
				return i, nl
			}
			nl = nl || e == 'n'
			i += 2
		default:
			return i, nl
		}
	}
	return i, nl
}

// k8sLineStart reports whether the keyword at i starts a YAML key: at the
// start of the text, after whitespace or a JSON escape of it, or after '"'
// (the start of the JSON string the manifest is in).
func k8sLineStart(d []byte, i int, atStart bool) bool {
	if i == 0 {
		return atStart
	}
	switch d[i-1] {
	case ' ', '\t', '\n', '\r', '"':
		return true
	case 'n', 't', 'r':
		return i >= 2 && d[i-2] == '\\'
	}
	return false
}

// kindSecretAt reports "kind:", spaces or tabs, and secret (any case;
// quoted, escaped-quoted or bare) followed by a byte that ends a word, at
// i.
func kindSecretAt(c *scanCursor, i int) bool {
	for k := 0; k < 5; k++ {
		if b := c.at(i + k); b < 0 || lowerASCII(byte(b)) != "kind:"[k] {
			return false
		}
	}
	j := c.run(i+5, setSpaceTab, ctxMaxSpace)
	if j-(i+5) > ctxMaxSpace {
		return false
	}
	q := 0
	switch b := c.at(j); {
	case b == '"' || b == '\'':
		q = 1
	case b == '\\' && (c.at(j+1) == '"' || c.at(j+1) == '\''):
		q = 2
	}
	open := j
	j += q
	for k := 0; k < 6; k++ {
		if b := c.at(j + k); b < 0 || lowerASCII(byte(b)) != "secret"[k] {
			return false
		}
	}
	j += 6
	for k := 0; k < q; k++ {
		if c.at(j+k) != c.at(open+k) {
			return false
		}
	}
	j += q
	b := c.at(j)
	return b < 0 || !setWord[b]
}

var setEquals = makeSet("=")

// k8sValue parses, from i (just after "data:"), whitespace holding a line
// break, a key, ':', spaces, an optional block indicator (| or >, then -
// or +, then whitespace holding a line break), an optional quote, and a
// base64 value (k8sMinValue..k8sMaxValue letters, digits, + and /, then
// at most three '='), the closing quote, or else the end, whitespace, a
// backslash (a JSON escape) or '"' (the end of the JSON string it is in).
// It returns the value's bounds.
func k8sValue(c *scanCursor, i int) (start, end int, ok bool) {
	j, nl := k8sSpace(c, i, k8sMaxSpace)
	if j-i > k8sMaxSpace || !nl {
		return 0, 0, false
	}
	k := c.run(j, setK8sKey, k8sMaxKey)
	if k == j || k-j > k8sMaxKey || c.at(k) != ':' {
		return 0, 0, false
	}
	j = k + 1
	k = c.run(j, setSpaceTab, ctxMaxSpace)
	if k == j || k-j > ctxMaxSpace {
		return 0, 0, false
	}
	j = k
	if b := c.at(j); b == '|' || b == '>' {
		j++
		if b := c.at(j); b == '-' || b == '+' {
			j++
		}
		k, nl = k8sSpace(c, j, k8sMaxSpace)
		if k-j > k8sMaxSpace || !nl {
			return 0, 0, false
		}
		j = k
	}
	q := 0
	switch b := c.at(j); {
	case b == '"' || b == '\'':
		q = 1
	case b == '\\' && (c.at(j+1) == '"' || c.at(j+1) == '\''):
		q = 2
	}
	open := j
	start = j + q
	e := c.run(start, setBase64, k8sMaxValue)
	if e-start < k8sMinValue || e-start > k8sMaxValue || placeholderBody(c.d[start:min(e, len(c.d))]) {
		return 0, 0, false
	}
	p := c.run(e, setEquals, 3)
	if p-e > 3 {
		return 0, 0, false
	}
	end = p
	for k := 0; k < q; k++ {
		if c.at(end+k) != c.at(open+k) {
			return 0, 0, false
		}
	}
	if q == 0 {
		switch b := c.at(end); {
		case b < 0, b == ' ', b == '\t', b == '\n', b == '\r', b == '\\', b == '"':
		default:
			return 0, 0, false
		}
	}
	return start, end, true
}

// k8sKindFirst: kind: Secret, then the first "data:" that starts a key
// within k8sLook bytes, and its first value.
func k8sKindFirst(v *view, ks, ke int) result {
	d := v.data
	c := &scanCursor{d: d}
	if !k8sLineStart(d, ks, v.base == 0) || !kindSecretAt(c, ks) {
		return c.done(v, noMatch)
	}
	for i := ke; i <= ke+k8sLook; i++ {
		if c.at(i+4) < 0 {
			break
		}
		if lowerASCII(d[i]) == 'd' && bytes.EqualFold(d[i:i+5], dataColon) && k8sLineStart(d, i, false) {
			if s, e, ok := k8sValue(c, i+5); ok {
				return c.done(v, result{status: resMatch, start: s, end: e})
			}
			return c.done(v, noMatch)
		}
	}
	return c.done(v, noMatch)
}

// k8sDataFirst: "data:" starting a key, its first value, then kind: Secret
// starting a key within k8sLook bytes after the value.
func k8sDataFirst(v *view, ks, ke int) result {
	d := v.data
	c := &scanCursor{d: d}
	if !k8sLineStart(d, ks, v.base == 0) {
		return noMatch
	}
	s, e, ok := k8sValue(c, ke)
	if !ok {
		return c.done(v, noMatch)
	}
	for i := e; i <= e+k8sLook; i++ {
		if c.at(i) < 0 {
			break
		}
		if lowerASCII(d[i]) == 'k' && k8sLineStart(d, i, false) && kindSecretAt(c, i) {
			return c.done(v, result{status: resMatch, start: s, end: e})
		}
	}
	return c.done(v, noMatch)
}

var dataColon = []byte("data:")
