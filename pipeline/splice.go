package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Removing items from an array of a JSON document without writing the
// document anew: the bytes before, between and after the kept items are
// the document's own, so members keep their order, strings their escapes
// and numbers their spelling. The pinning guard removes held tools this
// way (guard_pins.go): a held list differs from the list the pass wrote
// only by the tools it holds back.

// errSplice is a document that is not the valid JSON the pass writes, or
// has no array at the path.
var errSplice = errors.New("pipeline: splice: no array at the path")

// spliceOut returns doc without the items of the array at path (member
// names from the top-level object) for which drop is true. A member name
// that occurs twice in one object is found at its first occurrence (the
// one the guards read). doc must be valid JSON.
func spliceOut(doc []byte, path []string, drop func(i int) bool) ([]byte, error) {
	i := skipWS(doc, 0)
	for _, name := range path {
		var ok bool
		if i, ok = findMember(doc, i, name); !ok {
			return nil, errSplice
		}
	}
	if i >= len(doc) || doc[i] != '[' {
		return nil, errSplice
	}
	out := make([]byte, 0, len(doc))
	out = append(out, doc[:i+1]...)
	j := skipWS(doc, i+1)
	kept := 0
	if j < len(doc) && doc[j] == ']' {
		return append(out, doc[i+1:]...), nil
	}
	for n := 0; ; n++ {
		start := j
		end, ok := skipValue(doc, j)
		if !ok {
			return nil, errSplice
		}
		if !drop(n) {
			if kept > 0 {
				out = append(out, ',')
			}
			out = append(out, doc[start:end]...)
			kept++
		}
		j = skipWS(doc, end)
		if j >= len(doc) {
			return nil, errSplice
		}
		if doc[j] == ']' {
			return append(out, doc[j:]...), nil
		}
		if doc[j] != ',' {
			return nil, errSplice
		}
		j = skipWS(doc, j+1)
	}
}

// findMember returns the index of the value of member name of the object
// at i.
func findMember(doc []byte, i int, name string) (int, bool) {
	if i >= len(doc) || doc[i] != '{' {
		return 0, false
	}
	i = skipWS(doc, i+1)
	if i < len(doc) && doc[i] == '}' {
		return 0, false
	}
	for {
		kend, ok := skipString(doc, i)
		if !ok {
			return 0, false
		}
		match := keyIs(doc[i:kend], name)
		i = skipWS(doc, kend)
		if i >= len(doc) || doc[i] != ':' {
			return 0, false
		}
		i = skipWS(doc, i+1)
		if match {
			return i, true
		}
		if i, ok = skipValue(doc, i); !ok {
			return 0, false
		}
		i = skipWS(doc, i)
		if i >= len(doc) || doc[i] != ',' {
			return 0, false
		}
		i = skipWS(doc, i+1)
	}
}

// keyIs reports whether the JSON string q (with its quotes) is name.
func keyIs(q []byte, name string) bool {
	if bytes.IndexByte(q, '\\') < 0 {
		return string(q[1:len(q)-1]) == name
	}
	var s string
	return json.Unmarshal(q, &s) == nil && s == name
}

func skipWS(doc []byte, i int) int {
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\n' || doc[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at i.
func skipString(doc []byte, i int) (int, bool) {
	if i >= len(doc) || doc[i] != '"' {
		return 0, false
	}
	for i++; i < len(doc); i++ {
		switch doc[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

// skipValue returns the index after the value that starts at i. Nesting
// is counted without recursion, so depth costs no stack.
func skipValue(doc []byte, i int) (int, bool) {
	if i >= len(doc) {
		return 0, false
	}
	switch doc[i] {
	case '"':
		return skipString(doc, i)
	case '{', '[':
		depth := 0
		for ; i < len(doc); i++ {
			switch doc[i] {
			case '"':
				end, ok := skipString(doc, i)
				if !ok {
					return 0, false
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
		}
		return 0, false
	}
	// A number or a literal: up to the next delimiter.
	j := i
loop:
	for ; j < len(doc); j++ {
		switch doc[j] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			break loop
		}
	}
	return j, j > i
}
