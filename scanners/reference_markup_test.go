package scanners

import (
	"regexp"
	"strings"
)

// The reference forms of the tool-call and turn markup rules
// (rules_markup.go), as regular expressions and plain string tests.

func init() { refFormsMore = append(refFormsMore, refMarkup) }

const refWS = `[\t\n\f\r ]`

// refLineStart: s[:p] ends at the start of a line after at most 3 spaces
// or tabs.
func refLineStart(s string, p int) bool {
	t := strings.TrimRight(s[:p], " \t")
	if p-len(t) > 3 {
		return false
	}
	return t == "" || strings.HasSuffix(t, "\n")
}

// refTagEnd: after the name at e, a boundary; bare: whitespace and '>';
// otherwise up to the first '>' within 512 bytes, or the name's end.
func refTagEnd(s string, p, e int, bare bool) (int, int, ChecksumResult, bool) {
	if e < len(s) && !strings.ContainsRune("\t\n\f\r >/", rune(s[e])) {
		return 0, 0, 0, false
	}
	if bare {
		m := regexp.MustCompile(`^` + refWS + `{0,16}>`).FindStringIndex(s[e:])
		if m == nil {
			return 0, 0, 0, false
		}
		return p, e + m[1], ChecksumNone, true
	}
	if j := strings.IndexByte(s[e:min(len(s), e+512)], '>'); j >= 0 {
		return p, e + j + 1, ChecksumNone, true
	}
	return p, e, ChecksumNone, true
}

func refMarkup() map[string][]refForm {
	open := regexp.MustCompile(`^<` + refWS + `{0,16}(?:/` + refWS + `{0,16})?`)
	names := regexp.MustCompile(`^(?:((?i:function_results|function_calls|function_call))|(invoke)|((?i:thinking|think|tools)))`)
	nsOpen := regexp.MustCompile(`^</?[A-Za-z][A-Za-z0-9_.-]{0,31}:`)
	roles := regexp.MustCompile(`^(?i:system|developer|instructions|assistant|important)`)
	toolName := regexp.MustCompile(`^(?i:tool_)[A-Za-z0-9_]+`)
	nameAt := func(s string, p, i int) (int, int, ChecksumResult, bool) {
		m := names.FindStringSubmatchIndex(s[i:])
		if m == nil {
			return 0, 0, 0, false
		}
		return refTagEnd(s, p, i+m[1], m[6] >= 0)
	}
	fence := regexp.MustCompile(`^(?:` + "```" + `|~~~)(?i:tool_calls|tool_call|tool_code|tool_use|tool_outputs|tool_output|tool_result|tool_response|function_calls|function_call)`)
	fenceEnd := regexp.MustCompile(`^[ \t]{0,16}(?:\r|\n|$)`)
	header := regexp.MustCompile(`^#{1,6}[ \t]{1,16}(?i:system|instructions|instruction|input|response|human|assistant|user):(?:` + refWS + `|$)`)
	return map[string][]refForm{
		"tool-call-markup": {
			{starts: "<", at: func(s string, p int) (int, int, ChecksumResult, bool) {
				m := open.FindStringIndex(s[p:])
				if m == nil {
					return 0, 0, 0, false
				}
				return nameAt(s, p, p+m[1])
			}},
			{starts: "<", at: func(s string, p int) (int, int, ChecksumResult, bool) {
				m := nsOpen.FindStringIndex(s[p:])
				if m == nil {
					return 0, 0, 0, false
				}
				i := p + m[1]
				if names.MatchString(s[i:]) {
					return nameAt(s, p, i)
				}
				if r := roles.FindStringIndex(s[i:]); r != nil {
					return refTagEnd(s, p, i+r[1], false)
				}
				if r := toolName.FindStringIndex(s[i:]); r != nil {
					return refTagEnd(s, p, i+r[1], false)
				}
				return 0, 0, 0, false
			}},
			refRegexp("<", `<(?i:function=)[A-Za-z0-9_.-]{1,64}>`),
			{starts: "`~", at: func(s string, p int) (int, int, ChecksumResult, bool) {
				m := fence.FindStringIndex(s[p:])
				if m == nil || !refLineStart(s, p) || !fenceEnd.MatchString(s[p+m[1]:]) {
					return 0, 0, 0, false
				}
				return p, p + m[1], ChecksumNone, true
			}},
		},
		"turn-marker": {
			{starts: "HA", at: func(s string, p int) (int, int, ChecksumResult, bool) {
				for _, w := range []string{"Human:", "Assistant:"} {
					if !strings.HasPrefix(s[p:], w) {
						continue
					}
					if p > 0 && !strings.HasSuffix(s[:p], "\n\n") && !strings.HasSuffix(s[:p], "\n\r\n") {
						return 0, 0, 0, false
					}
					e := p + len(w)
					if e < len(s) && !strings.ContainsRune("\t\n\f\r ", rune(s[e])) {
						return 0, 0, 0, false
					}
					return p, e, ChecksumNone, true
				}
				return 0, 0, 0, false
			}},
			{starts: "#", at: func(s string, p int) (int, int, ChecksumResult, bool) {
				if p > 0 && s[p-1] == '#' || !refLineStart(s, p) {
					return 0, 0, 0, false
				}
				m := header.FindStringIndex(s[p:])
				if m == nil {
					return 0, 0, 0, false
				}
				e := p + m[1]
				if e > p && strings.ContainsRune("\t\n\f\r ", rune(s[e-1])) {
					e-- // the whitespace after the ':' is not part of the match
				}
				return p, e, ChecksumNone, true
			}},
		},
	}
}
