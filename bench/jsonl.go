package bench

import (
	"bytes"
	"encoding/json"
)

// Record is one input line of `sanitize-worker scan --jsonl`.
type Record struct {
	Tool         string
	OutputSchema []byte // JSON, or nil for none
	Result       []byte // the CallToolResult JSON
}

// Record returns the scan record of d.
func (d Doc) Record() Record {
	return Record{Tool: d.Tool, OutputSchema: d.OutputSchema, Result: d.JSON}
}

// JSONL writes records as {"tool","outputSchema","result"} lines. Results
// are compacted so each record is one line.
func JSONL(records []Record) []byte {
	var out bytes.Buffer
	for _, r := range records {
		tool, _ := json.Marshal(r.Tool)
		out.WriteString(`{"tool":`)
		out.Write(tool)
		out.WriteString(`,"outputSchema":`)
		if len(r.OutputSchema) == 0 {
			out.WriteString("null")
		} else if err := json.Compact(&out, r.OutputSchema); err != nil {
			out.WriteString("null")
		}
		out.WriteString(`,"result":`)
		if err := json.Compact(&out, r.Result); err != nil {
			// Not JSON: kept as it is so the scanner sees a bad record.
			out.Write(bytes.ReplaceAll(r.Result, []byte("\n"), []byte(" ")))
		}
		out.WriteString("}\n")
	}
	return out.Bytes()
}
