package scanners

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// This file is a deliberately simple second implementation of the rules:
// whole string at once, Go regexps instead of hand-written checks, no
// automaton, no streaming. The differential tests and FuzzRedactor demand
// that the Redactor produce exactly the same output and findings.
//
// Semantics shared by both (the contract): every case-insensitive occurrence
// of a form's keyword is a place where the form may match; candidates are
// ordered by start, then longer first, then plain before decoded (a secret
// found inside an encoded run, reference_decode_test.go), then lower RuleID;
// the first is taken and every candidate starting before the end of a taken
// one is dropped.

// refForm is one way a rule can match in the reference.
type refForm struct {
	keywords []string
	starts   string // if set instead of keywords: try every position holding one of these bytes
	// at reports a match starting near keyword occurrence p of s; atKw, if
	// set instead, also gets the keyword length.
	at   func(s string, p int) (start, end int, cs ChecksumResult, ok bool)
	atKw func(s string, p, kwLen int) (start, end int, cs ChecksumResult, ok bool)
}

// refToken: re (anchored) matched at the keyword; the byte before must not be
// in notBefore and the byte after must not be in notAfter (bracket classes).
func refToken(keywords []string, re, notBefore, notAfter string, post func(m string) (bool, ChecksumResult), noFiller ...bool) refForm {
	rx := regexp.MustCompile(`^(?:` + re + `)`)
	nb := regexp.MustCompile(`^[` + notBefore + `]$`)
	na := regexp.MustCompile(`^[` + notAfter + `]$`)
	return refForm{keywords: keywords, atKw: func(s string, p, k int) (int, int, ChecksumResult, bool) {
		m := rx.FindStringIndex(s[p:])
		if m == nil {
			return 0, 0, 0, false
		}
		e := p + m[1]
		if len(noFiller) == 0 && fillBody([]byte(s[p+k:e])) {
			return 0, 0, 0, false
		}
		glued := p > 0 && nb.MatchString(s[p-1:p]) && !refEscapeBefore(s, p)
		if glued && post == nil || e < len(s) && na.MatchString(s[e:e+1]) {
			return 0, 0, 0, false
		}
		cs := ChecksumNone
		if post != nil {
			var ok bool
			if ok, cs = post(s[p:e]); !ok {
				return 0, 0, 0, false
			}
		}
		if glued && cs != ChecksumValid {
			return 0, 0, 0, false // only a valid checksum overrides the word boundary
		}
		if cs != ChecksumValid && fileNamePart([]byte(s), p, e) {
			return 0, 0, 0, false // the hash part of a file name
		}
		return p, e, cs, true
	}}
}

var (
	refUpper     = regexp.MustCompile(`[A-Z]`)
	refLower     = regexp.MustCompile(`[a-z]`)
	refDigit     = regexp.MustCompile(`[0-9]`)
	refB64Pad    = regexp.MustCompile(`^[A-Za-z0-9+/=]$`)
	refBody36    = regexp.MustCompile(`^[A-Za-z0-9]{36}$`)
	refSegment   = regexp.MustCompile(`[A-Za-z0-9]{16,}`)
	refPEMBody   = regexp.MustCompile(`^[A-Za-z0-9+/=\t\n\f\r \\]*`)
	refFormsOnce sync.Once
	refFormsMap  map[string][]refForm
)

func refCRC(tok string) (bool, ChecksumResult) {
	body := tok[strings.IndexByte(tok, '_')+1:]
	if !refBody36.MatchString(body) {
		return true, ChecksumNone
	}
	v := crc32.ChecksumIEEE([]byte(body[:30]))
	enc := ""
	for i := 0; i < 6; i++ {
		enc = string("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[v%62]) + enc
		v /= 62
	}
	if enc == body[30:] {
		return true, ChecksumValid
	}
	return true, ChecksumInvalid
}

func refMixed(m string) bool {
	n := 0
	for _, re := range []*regexp.Regexp{refUpper, refLower, refDigit} {
		if re.MatchString(m) {
			n++
		}
	}
	return n >= 2
}

// refFormsMore holds the reference forms of rule families kept in files of
// their own (reference_<family>_test.go), each added by an init func.
var refFormsMore []func() map[string][]refForm

// refForms maps rule ids to reference forms.
func refForms() map[string][]refForm {
	const ws = `[\t\n\f\r ]`
	gh := func(p string) refForm {
		return refToken([]string{p}, p+`[A-Za-z0-9_]{20,255}`, `A-Za-z0-9_`, `A-Za-z0-9_`, func(m string) (bool, ChecksumResult) { return refCRC(m) })
	}
	return map[string][]refForm{
		"openai": {
			refToken([]string{"sk-proj-", "sk-svcacct-", "sk-admin-"}, `sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,255}`, `A-Za-z0-9_-`, `A-Za-z0-9_-`, nil),
			refToken([]string{"sk-"}, `sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}`, `A-Za-z0-9_`, `A-Za-z0-9_-`, nil),
		},
		"anthropic": {refToken([]string{"sk-ant-api03-", "sk-ant-admin01-"}, `sk-ant-(?:api03|admin01)-[A-Za-z0-9_-]{32,255}`, `A-Za-z0-9_-`, `A-Za-z0-9_-`, nil)},
		"huggingface": {refToken([]string{"hf_"}, `hf_[A-Za-z]{34,64}`, `A-Za-z0-9_`, `A-Za-z0-9_-`, func(m string) (bool, ChecksumResult) {
			return refUpper.MatchString(m[3:]) && refLower.MatchString(m[3:]) && !refCamel.MatchString(m[3:]), ChecksumNone
		})},
		"github-pat":          {refFloor("ghp_", `A-Za-z0-9_`, func(m string) ChecksumResult { _, cs := refCRC(m); return cs })},
		"github-oauth":        {gh("gho_")},
		"github-app":          {gh("ghu_"), gh("ghs_")},
		"github-refresh":      {gh("ghr_")},
		"github-fine-grained": {refToken([]string{"github_pat_"}, `github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}`, `A-Za-z0-9_`, `A-Za-z0-9_`, nil)},
		"npm": {refToken([]string{"npm_"}, `npm_[A-Za-z0-9]{36}`, `A-Za-z0-9_`, `A-Za-z0-9_`, func(m string) (bool, ChecksumResult) {
			return refCRC(m)
		})},
		"aws-access-key-id": {refToken([]string{"akia", "asia", "abia", "acca"}, `(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}`, `A-Za-z0-9_+/`, `A-Za-z0-9_+/=`, nil)},
		"aws-secret-access-key": {{
			keywords: []string{"secret_access_key", "secretaccesskey", "secret-access-key", "aws_secret_key"},
			at: func() func(string, int) (int, int, ChecksumResult, bool) {
				rx := regexp.MustCompile("^(?i:secret_access_key|secretaccesskey|secret-access-key|aws_secret_key)[\\t\\n\\f\\r \"'`:=>,\\\\(]{1,24}([A-Za-z0-9+/]{40})")
				return func(s string, p int) (int, int, ChecksumResult, bool) {
					m := rx.FindStringSubmatchIndex(s[p:])
					if m == nil {
						return 0, 0, 0, false
					}
					a, e := p+m[2], p+m[3]
					if e < len(s) && refB64Pad.MatchString(s[e:e+1]) {
						return 0, 0, 0, false
					}
					if !refUpper.MatchString(s[a:e]) || !refLower.MatchString(s[a:e]) {
						return 0, 0, 0, false
					}
					return a, e, ChecksumNone, true
				}
			}(),
		}},
		"google-api-key": {refToken([]string{"aiza"}, `AIza[A-Za-z0-9_-]{35}`, `A-Za-z0-9_-`, `A-Za-z0-9_-`, nil)},
		"stripe": {
			refToken([]string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "sk_prod_", "rk_prod_"}, `[sr]k_(?:live|test|prod)_[A-Za-z0-9]{16,255}`, `A-Za-z0-9_`, `A-Za-z0-9_`, nil),
			refToken([]string{"whsec_"}, `whsec_[A-Za-z0-9]{32,255}`, `A-Za-z0-9_`, `A-Za-z0-9_`, nil),
		},
		"sendgrid": {refToken([]string{"sg."}, `SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}`, `A-Za-z0-9_.-`, `A-Za-z0-9_.-`, nil)},
		"slack": {
			refToken([]string{"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxe-", "xoxs-", "xapp-"}, `(?:xox[bpares]|xapp)-[A-Za-z0-9-]{10,255}`, `A-Za-z0-9_-`, `A-Za-z0-9_-`,
				func(m string) (bool, ChecksumResult) {
					return refDigit.MatchString(m[5:]) && refSlackIDs(m[5:]), ChecksumNone
				}),
			refToken([]string{"hooks.slack.com/services/", "hooks.slack.com/workflows/", "hooks.slack.com/triggers/"}, `(?i:hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9/_-]{20,255}`, `A-Za-z0-9_.-`, `A-Za-z0-9/_-`, nil),
			refEscapedSlashes(`hooks\.slack\.com\\/(?:services|workflows|triggers)\\/`, `A-Za-z0-9_-`, 20, 255, `A-Za-z0-9_.-`, `A-Za-z0-9/_-`, nil),
		},
		"pypi":         {refToken([]string{"pypi-ageichlwas5vcmc", "pypi-agendgvzdc5wexbplm9yzw"}, `pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,1000}`, `A-Za-z0-9_-`, `A-Za-z0-9_-`, nil)},
		"digitalocean": {refToken([]string{"dop_v1_", "doo_v1_", "dor_v1_"}, `do[por]_v1_[a-f0-9]{64}`, `a-f0-9A-Za-z_`, `a-f0-9A-Za-z_`, nil)},
		"shopify":      {refToken([]string{"shpat_", "shpca_", "shppa_", "shpss_"}, `shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`, `A-Za-z0-9_`, `A-Za-z0-9_`, nil)},
		"jwt": {refToken([]string{"eyj"}, `eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*`, `A-Za-z0-9_.-`, `A-Za-z0-9_-`, func(m string) (bool, ChecksumResult) {
			if len(m) > 8192 || strings.IndexByte(m, '.') > 1024 {
				return false, ChecksumNone
			}
			obj := func(seg string, alg bool) bool {
				h, err := base64.RawURLEncoding.DecodeString(seg)
				hs := strings.TrimSpace(string(h))
				return err == nil && len(h) <= jwtMaxObject && strings.HasPrefix(hs, "{") && (!alg || strings.Contains(hs, `"alg"`)) && json.Valid([]byte(hs))
			}
			parts := strings.SplitN(m, ".", 3)
			return obj(parts[0], true) || obj(parts[0], false) && obj(parts[1], false), ChecksumNone
		}, true)},
		"private-key": {{keywords: []string{"-----begin"}, at: refPEM}},
		"generic-sk":  {refFloor("sk-", `A-Za-z0-9_-`, nil)},
		"pseudo-tag": {{
			starts: "<",
			at: func() func(string, int) (int, int, ChecksumResult, bool) {
				rx := regexp.MustCompile(`^<` + ws + `{0,256}(?:/` + ws + `{0,256})?(?i:system|developer|instructions|tool|assistant|user|important)(?:_|\b)`)
				junit := regexp.MustCompile(`(?i)system$`)
				junitEnd := regexp.MustCompile(`^(?i:-out|-err)(?:[^A-Za-z0-9_-]|$)`)
				qualified := regexp.MustCompile(`^:[A-Za-z]`)
				keepQualified := regexp.MustCompile(`(?i)(?:system|instructions)$`)
				return func(s string, p int) (int, int, ChecksumResult, bool) {
					m := rx.FindStringIndex(s[p:])
					if m == nil {
						return 0, 0, 0, false
					}
					if junit.MatchString(s[p:p+m[1]]) && junitEnd.MatchString(s[p+m[1]:]) {
						return 0, 0, 0, false
					}
					e := p + m[1]
					if s[e-1] != '_' && qualified.MatchString(s[e:]) && !keepQualified.MatchString(s[p:e]) {
						return 0, 0, 0, false
					}
					if j := strings.IndexByte(s[e:min(len(s), e+512)], '>'); j >= 0 {
						return p, e + j + 1, ChecksumNone, true
					}
					return p, len(strings.TrimSuffix(s[:e], "_")), ChecksumNone, true // an unclosed tag ends with its name
				}
			}(),
		}, {
			starts: "&\\",
			at: func() func(string, int) (int, int, ChecksumResult, bool) {
				rx := regexp.MustCompile(`^(?i:&lt;|&#60;|&#x3c;|\\u003c)/?(?i:system|developer|instructions|tool|assistant|user|important)(?:_|\b)`)
				junit := regexp.MustCompile(`(?i)system$`)
				junitEnd := regexp.MustCompile(`^(?i:-out|-err)(?:[^A-Za-z0-9_-]|$)`)
				end := regexp.MustCompile(`(?i)>|&gt;|&#62;|&#x3e;|\\u003e`)
				return func(s string, p int) (int, int, ChecksumResult, bool) {
					m := rx.FindStringIndex(s[p:])
					if m == nil {
						return 0, 0, 0, false
					}
					if junit.MatchString(s[p:p+m[1]]) && junitEnd.MatchString(s[p+m[1]:]) {
						return 0, 0, 0, false
					}
					e := p + m[1]
					// The end must start within 512 bytes of the name's end.
					if k := end.FindStringIndex(s[e:min(len(s), e+512+5)]); k != nil && k[0] < 512 {
						return p, e + k[1], ChecksumNone, true
					}
					return p, len(strings.TrimSuffix(s[:e], "_")), ChecksumNone, true // an unclosed tag ends with its name
				}
			}(),
		}},
		"chat-template": {
			refRegexp("<", `<`+ws+`{0,16}\|`+ws+`{0,16}[A-Za-z0-9_]{1,40}`+ws+`{0,16}\|`+ws+`{0,16}>`),
			refRegexp("&", `(?i:&lt;|&#60;|&#x3c;)\|[A-Za-z0-9_]{1,40}\|(?:>|(?i:&gt;|&#62;|&#x3e;|\\u003e))`),
			refRegexp(`\`, `(?i:\\u003c)\|[A-Za-z0-9_]{1,40}\|(?:>|(?i:&gt;|&#62;|&#x3e;|\\u003e))`),
			refRegexp("[", `\[`+ws+`{0,16}(?:/`+ws+`{0,16})?(?i:inst)`+ws+`{0,16}\]`),
			refRegexp("<", `<<`+ws+`{0,16}(?:/`+ws+`{0,16})?(?i:sys)`+ws+`{0,16}>>`),
			refRegexp("<", `<`+ws+`{0,16}(?:/`+ws+`{0,16})?(?i:start_of_turn|end_of_turn)`+ws+`{0,16}>`),
			refRegexp("[", `\[`+ws+`{0,16}(?:/`+ws+`{0,16})?(?i:system_prompt|available_tools|tool_calls|tool_results)`+ws+`{0,16}\]`),
		},
	}
}

func refRegexp(starts string, re string) refForm {
	rx := regexp.MustCompile(`^(?:` + re + `)`)
	return refForm{starts: starts, at: func(s string, p int) (int, int, ChecksumResult, bool) {
		m := rx.FindStringIndex(s[p:])
		if m == nil {
			return 0, 0, 0, false
		}
		return p, p + m[1], ChecksumNone, true
	}}
}

var refPEMKeyByte = regexp.MustCompile(`[A-Za-z0-9+/]`)

// refCamel: camel-case words, not a random mix of cases.
var refCamel = regexp.MustCompile(`^(?:[a-z]{2,})?(?:[A-Z][a-z]{2,}){2,}$`)

// refSlackIDs: a Slack body does not end in '-', and its all-digit
// segments of two or more digits are not all shorter than 8.
func refSlackIDs(b string) bool {
	if strings.HasSuffix(b, "-") {
		return false
	}
	short, long := false, false
	for _, seg := range strings.Split(b, "-") {
		if regexp.MustCompile(`^[0-9]{8,}$`).MatchString(seg) {
			long = true
		} else if regexp.MustCompile(`^[0-9]{2,7}$`).MatchString(seg) {
			short = true
		}
	}
	return long || !short
}

var refPEMHeader = regexp.MustCompile(`^-----BEGIN ([A-Z0-9 ]{0,48})-----`)

// refPEM: whole-block private key, failing closed (see pemForm, pemContinue).
func refPEM(s string, p int) (int, int, ChecksumResult, bool) {
	m := refPEMHeader.FindStringSubmatchIndex(s[p:])
	if m == nil {
		return 0, 0, 0, false
	}
	label := strings.TrimRight(s[p+m[2]:p+m[3]], " ")
	if !strings.HasSuffix(label, "PRIVATE KEY") && !strings.HasSuffix(label, "PRIVATE KEY BLOCK") {
		return 0, 0, 0, false
	}
	hdrEnd, win := p+m[1], p+pemWindow
	closeAt := func(e int) int {
		if c := strings.Index(s[e:min(len(s), e+85)], "-----"); c >= 0 {
			return e + c + 5
		}
		return e
	}
	to := min(len(s), win)
	// A key inside a JSON string (its line ends written as \n escapes)
	// ends with the string, END or not (keyStringEnd, shared).
	strEnd := false
	if q := keyStringEnd([]byte(s), p, hdrEnd, to); q >= 0 {
		to, strEnd = q, true
	}
	if hdrEnd < to {
		if j := strings.Index(s[hdrEnd:to], "-----END"); j >= 0 {
			if len(refPEMKeyByte.FindAllString(s[hdrEnd:hdrEnd+j], -1)) < 32 && label != "PRIVATE KEY" {
				return 0, 0, 0, false
			}
			return p, closeAt(hdrEnd + j + 8), ChecksumNone, true
		}
	}
	if strEnd {
		return p, to, ChecksumNone, true
	}
	if len(s) <= win {
		return p, len(s), ChecksumNone, true
	}
	i := win + len(refPEMBody.FindString(s[win:]))
	if strings.HasPrefix(s[i:], "-----END") {
		return p, closeAt(i + 8), ChecksumNone, true
	}
	return p, i, ChecksumNone, true
}

// refCustom mirrors CustomRule's documented semantics.
func refCustom(cr CustomRule) refForm {
	rx := regexp.MustCompile(cr.Pattern)
	return refForm{keywords: cr.Keywords, atKw: func(s string, p int, kwLen int) (int, int, ChecksumResult, bool) {
		lo, hi := max(0, p-CustomWindow), min(len(s), p+kwLen+CustomWindow)
		for _, m := range rx.FindAllStringIndex(s[lo:hi], -1) {
			if lo+m[0] <= p && lo+m[1] >= p+kwLen {
				return lo + m[0], lo + m[1], ChecksumNone, true
			}
		}
		return 0, 0, 0, false
	}}
}

// refCand is a reference candidate; enc and fp are set for a secret found
// inside an encoded run (reference_decode_test.go).
type refCand struct {
	start, end int
	rule       RuleID
	cs         ChecksumResult
	enc        Encoding
	fp         [16]byte
}

// refRedact redacts s at once under the catalog built from opts.
func refRedact(cat *Catalog, opts CatalogOptions, key []byte, s string) (string, []Finding) {
	return refRedactDepth(cat, opts, key, s, 0)
}

// refRedactDepth redacts s found depth decodings deep.
func refRedactDepth(cat *Catalog, opts CatalogOptions, key []byte, s string, depth int) (string, []Finding) {
	return refRedactSpan(cat, opts, key, s, depth, 0, len(s))
}

// refRedactSpan redacts s but outputs and reports only s[lo:hi]: matches are
// taken on all of s, then clipped to the span (a member-name context,
// context_value_test.go); offsets are from lo.
//
// The rules see the detection view of s (refView), and the output and the
// offsets are those of s again.
func refRedactSpan(cat *Catalog, opts CatalogOptions, key []byte, s string, depth, lo, hi int) (string, []Finding) {
	tv := refView(s)
	return refRedactView(cat, opts, key, tv, depth, tv.viewOff(lo), tv.viewOff(hi))
}

// refRedactView is refRedactSpan on the view tv.v with lo and hi in it.
func refRedactView(cat *Catalog, opts CatalogOptions, key []byte, tv *refTextView, depth, lo, hi int) (string, []Finding) {
	s := tv.v
	refFormsOnce.Do(func() {
		refFormsMap = refForms()
		for _, more := range refFormsMore {
			for id, f := range more() {
				if refFormsMap[id] != nil {
					panic("two references for rule " + id)
				}
				refFormsMap[id] = f
			}
		}
	})
	forms := refFormsMap
	customs := map[string]CustomRule{}
	for _, cr := range opts.Custom {
		customs[cr.ID] = cr
	}
	allow := opts.Allowlist
	if allow == nil {
		allow = DefaultAllowlist()
	}
	lb := []byte(s)
	for i, c := range lb {
		lb[i] = lowerASCII(c) // ASCII only, byte for byte, like the automaton
	}
	lower := string(lb)
	var cands []refCand
	for id, info := range cat.Rules() {
		fl := forms[info.ID]
		if cr, ok := customs[info.ID]; ok {
			fl = []refForm{refCustom(cr)}
		}
		if fl == nil {
			panic("no reference for rule " + info.ID)
		}
		for _, f := range fl {
			if f.starts != "" {
				for p := 0; p < len(s); p++ {
					if strings.IndexByte(f.starts, s[p]) < 0 {
						continue
					}
					if a, e, cs, ok := f.at(s, p); ok && !containsString(allow, s[a:e]) {
						cands = append(cands, refCand{start: a, end: e, rule: RuleID(id), cs: cs})
					}
				}
				continue
			}
			for _, kw := range f.keywords {
				kw = strings.ToLower(kw)
				for p := 0; p+len(kw) <= len(s); p++ {
					if lower[p:p+len(kw)] != kw {
						continue
					}
					var a, e int
					var cs ChecksumResult
					var ok bool
					if f.atKw != nil {
						a, e, cs, ok = f.atKw(s, p, len(kw))
					} else {
						a, e, cs, ok = f.at(s, p)
					}
					if !ok || containsString(allow, s[a:e]) {
						continue
					}
					cands = append(cands, refCand{start: a, end: e, rule: RuleID(id), cs: cs})
				}
			}
		}
	}
	cands = append(cands, refEncoded(cat, opts, key, s, depth)...)
	if opts.KeepInvalidChecksum {
		kept := cands[:0]
		for _, c := range cands {
			if c.cs != ChecksumInvalid {
				kept = append(kept, c)
			}
		}
		cands = kept
	}
	sortCands := func(cands []refCand) {
		sort.SliceStable(cands, func(i, j int) bool {
			a, b := cands[i], cands[j]
			if a.start != b.start {
				return a.start < b.start
			}
			if a.end != b.end {
				return a.end > b.end
			}
			if a.enc != b.enc {
				return a.enc < b.enc
			}
			return a.rule < b.rule
		})
	}
	sortCands(cands)
	secretMarker := opts.SecretMarker
	if secretMarker == "" {
		secretMarker = DefaultSecretMarker
	}
	tagMarker := opts.TagMarker
	if tagMarker == "" {
		tagMarker = DefaultTagMarker
	}
	infos := cat.Rules()
	var out strings.Builder
	var fs []Finding
	pos := 0
	clip := func(a, b int) (int, int) {
		a, b = min(max(a, lo), hi), min(max(b, lo), hi)
		return a, max(a, b)
	}
	// Every occurrence: a committed secret of repMinLen..repMaxLen bytes
	// (at most repMax different ones whose line has not ended) makes each
	// later occurrence of its bytes before the next line feed a match of
	// the same rule.
	type refRep struct {
		b   string
		end int // where its line ends (a '\n' or len(s))
	}
	var reps []refRep
	for ci := 0; ci < len(cands); ci++ {
		c := cands[ci]
		if c.start < pos {
			continue
		}
		a, b := clip(pos, c.start)
		out.WriteString(tv.text(a, b))
		vs, ve := clip(c.start, c.end)
		if ve <= vs {
			pos = c.end
			continue
		}
		info := infos[c.rule]
		f := Finding{Rule: c.rule, Kind: info.Kind, Offset: int64(tv.at[vs] - tv.at[lo]), Length: tv.at[ve] - tv.at[vs]}
		if info.Kind == KindTag {
			out.WriteString(tagMarker)
		} else if c.enc != EncodingNone {
			out.WriteString(fmt.Sprintf(secretMarker, info.ID))
			f.Checksum, f.Encoding, f.Fingerprint = c.cs, c.enc, c.fp
		} else {
			out.WriteString(fmt.Sprintf(secretMarker, info.ID))
			f.Checksum = c.cs
			mac := hmac.New(sha256.New, key)
			mac.Write([]byte(info.ID + "\x00" + s[vs:ve]))
			copy(f.Fingerprint[:], mac.Sum(nil))
			live := reps[:0]
			for _, rp := range reps {
				if rp.end > c.start {
					live = append(live, rp)
				}
			}
			reps = live
			dup := false
			for _, rp := range reps {
				dup = dup || rp.b == s[c.start:c.end]
			}
			if b := s[c.start:c.end]; len(reps) < repMax && len(b) >= repMinLen && len(b) <= repMaxLen && !dup {
				lineEnd := len(s)
				if j := strings.IndexByte(s[c.end:], '\n'); j >= 0 {
					lineEnd = c.end + j
				}
				reps = append(reps, refRep{b: b, end: lineEnd})
				for q := c.end; ; {
					j := strings.Index(s[q:lineEnd], b)
					if j < 0 {
						break
					}
					cands = append(cands, refCand{start: q + j, end: q + j + len(b), rule: c.rule, cs: c.cs})
					q += j + 1
				}
				sortCands(cands[ci+1:])
			}
		}
		fs = append(fs, f)
		pos = c.end
	}
	a, b := clip(pos, len(s))
	out.WriteString(tv.text(a, b))
	return out.String(), fs
}

// refEscapedSlashes is the reference of tokenSpec.escapedSlashes: the
// prefix with "\/" for '/', then the longest run of body bytes other than
// '/' and of "\/" pairs; the run unescaped must be min..max bytes, the byte
// after it must not be in notAfter (a backslash never is), and post sees
// the whole match unescaped.
func refEscapedSlashes(prefixRE, bodyNoSlash string, min, max int, notBefore, notAfter string, post func(m string) (bool, ChecksumResult)) refForm {
	pre := regexp.MustCompile(`^(?i:` + prefixRE + `)`)
	body := regexp.MustCompile(`^(?:[` + bodyNoSlash + `]|\\/)*`)
	nb := regexp.MustCompile(`^[` + notBefore + `]$`)
	na := regexp.MustCompile(`^[` + notAfter + `]$`)
	return refForm{starts: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", at: func(s string, p int) (int, int, ChecksumResult, bool) {
		m := pre.FindStringIndex(s[p:])
		if m == nil {
			return 0, 0, 0, false
		}
		b := body.FindStringIndex(s[p+m[1]:])
		e := p + m[1] + b[1]
		u := strings.ReplaceAll(s[p+m[1]:e], `\/`, "/")
		if len(u) < min || len(u) > max || p > 0 && nb.MatchString(s[p-1:p]) {
			return 0, 0, 0, false
		}
		if !strings.Contains(s[p:e], `\/`) {
			return 0, 0, 0, false // no escaped slash: the plain form's
		}
		if e < len(s) && s[e] != '\\' && na.MatchString(s[e:e+1]) {
			return 0, 0, 0, false
		}
		cs := ChecksumNone
		if post != nil {
			var ok bool
			if ok, cs = post(strings.ReplaceAll(s[p:m[1]+p], `\/`, "/") + u); !ok {
				return 0, 0, 0, false
			}
		}
		return p, e, cs, true
	}}
}
