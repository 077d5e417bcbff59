package rescan

import (
	"bufio"
	"bytes"
	"io"
	"time"

	"github.com/valyala/fastjson"
)

// meta is what the report needs of a record besides its evidence: where it
// is, whose it is and when it was stored.
type meta struct {
	line   int64 // 1-based line of the input (0 for records given a Ref)
	ref    uint64
	tenant string
	at     time.Time // zero: the record has no time
}

// metaKeep is how much of a line is kept to read its tenant and time:
// those members are small and, in archived records, come first.
const metaKeep = 1 << 20

// readMeta splits in into records exactly as records.Run does (lines split
// at '\n', every line a record, a blank one included, a line longer than
// max a record of its own, no record after a final newline) and calls fn
// with each record's meta in order.
func readMeta(in io.Reader, max int, fn func(meta)) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var p fastjson.Parser
	var line []byte
	var n int64
	for {
		line = line[:0]
		total, tooLong := 0, false
		eof := false
		for {
			frag, err := br.ReadSlice('\n')
			if !tooLong {
				if total+len(frag) > max+1 {
					tooLong = true
				}
			}
			total += len(frag)
			if len(line) < metaKeep {
				line = append(line, frag[:min(len(frag), metaKeep-len(line))]...)
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF {
				eof = true
				if total == 0 {
					return nil
				}
				break
			}
			if err != nil {
				return err
			}
			break
		}
		n++
		m := meta{line: n}
		if !tooLong && (bytes.Contains(line, []byte(`"tenant"`)) || bytes.Contains(line, []byte(`"time"`))) {
			if v, err := p.ParseBytes(bytes.TrimRight(line, "\r\n")); err == nil && v.Type() == fastjson.TypeObject {
				if t := v.GetStringBytes("tenant"); t != nil {
					m.tenant = label(string(t))
				}
				if t := v.GetStringBytes("time"); t != nil {
					if at, err := time.Parse(time.RFC3339Nano, string(t)); err == nil {
						m.at = at
					}
				}
			}
		}
		fn(m)
		if eof {
			return nil
		}
	}
}

// label restricts a tenant to [A-Za-z0-9_.:/-] and 128 bytes, as evidence
// restricts identifiers.
func label(s string) string {
	if len(s) > 128 {
		s = s[:128]
	}
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' || c == '/' || c == ':') {
			b[i] = '_'
		}
	}
	return string(b)
}
