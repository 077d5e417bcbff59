package records

import (
	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

// maxMemoSchemas bounds the outputSchema texts one worker remembers; when
// it is reached the memo starts again empty.
const maxMemoSchemas = 64

// maxMemoSchemaBytes is the longest outputSchema text a worker remembers
// (a longer one is compiled through the cache and echoed each time).
const maxMemoSchemaBytes = 64 << 10

// memoSchema is what a worker keeps of one outputSchema text that compiled
// and echoed without a key collision: a record of a run repeats its tool's
// schema text, and digesting, looking up and sanitizing it again for every
// record would cost more than many a result's pass.
type memoSchema struct {
	s    *schema.Schema
	echo []byte
}

// schemaMemo maps the exact text of an outputSchema (as the record holds
// it, re-serialized by fastjson) to what it compiled and echoed to. The
// echo depends only on the text and the worker's redactor, which the
// worker keeps for the whole run, so a remembered echo is the one the
// worker would produce again.
type schemaMemo map[string]memoSchema

func (m *schemaMemo) get(text []byte) (memoSchema, bool) {
	e, ok := (*m)[string(text)]
	return e, ok
}

func (m *schemaMemo) put(text []byte, s *schema.Schema, echo []byte) {
	if len(text) > maxMemoSchemaBytes {
		return
	}
	if *m == nil || len(*m) >= maxMemoSchemas {
		*m = schemaMemo{}
	}
	(*m)[string(text)] = memoSchema{s: s, echo: append([]byte(nil), echo...)}
}
