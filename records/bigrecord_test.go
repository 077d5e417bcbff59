package records

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// bigDiffers are the lines of envelopeLines a big record answers with
// another reason: a NaN or Inf inside the result, which fastjson reads
// and the big record's scan does not (both are INVALID_JSON).
var bigDiffers = map[string]bool{"nan": true, "nan-lower": true, "inf": true}

// answerBig answers line as a big record (in a file) on w.
func answerBig(t testing.TB, w *recordWorker, line []byte) ([]byte, []byte, error) {
	t.Helper()
	b, err := newBigLine("", line) // unlinked at once: nothing to clean up
	if err != nil {
		t.Fatal(err)
	}
	if err := b.trimEnd(); err != nil {
		t.Fatal(err)
	}
	o := w.sanitize(context.Background(), record{big: b})
	if o.err != nil {
		return nil, nil, o.err
	}
	var out bytes.Buffer
	out.Write(o.head)
	if o.spool == nil {
		t.Fatal("a big record's result is not in a spool")
	}
	if err := o.spool.Commit(&out); err != nil {
		t.Fatal(err)
	}
	o.spool.Close()
	out.Write(o.line)
	return out.Bytes(), durationNanos.ReplaceAll(o.evidence, nil), nil
}

// compareBig answers line as a big record and the general way; strict
// demands the same line and evidence, else both must be INVALID_JSON
// error results when they differ.
func compareBig(t *testing.T, big, general *recordWorker, line []byte, strict bool) {
	t.Helper()
	got, gotEv, err := answerBig(t, big, line)
	o := general.sanitize(context.Background(), record{line: line, blank: len(bytes.TrimSpace(line)) == 0})
	if (err == nil) != (o.err == nil) {
		t.Fatalf("big err %v, general err %v", err, o.err)
	}
	if err != nil {
		return
	}
	want := append(append([]byte{}, o.head...), o.line...)
	wantEv := durationNanos.ReplaceAll(o.evidence, nil)
	if bytes.Equal(got, want) && bytes.Equal(gotEv, wantEv) {
		return
	}
	const invalid = `"dev.mcp-sanitize/code":"INVALID_JSON"`
	if strict || !bytes.Contains(got, []byte(invalid)) || !bytes.Contains(want, []byte(invalid)) {
		t.Fatalf("%q:\nbig     %s\n        %s\ngeneral %s\n        %s", line, got, gotEv, want, wantEv)
	}
}

// TestBigRecordAgrees: a record read from a file (longer than
// MemRecordBytes) is answered as the same record in memory.
func TestBigRecordAgrees(t *testing.T) {
	big, general := differentialWorkers(t)
	extra := []struct{ name, line string }{
		{"blank", "   \t"},
		{"crlf", `{"tool":"t","result":{"content":[]}}` + "\r\r\n"},
		{"escaped-quote-runs", `{"tool":"t","result":{"content":[{"type":"text","text":"a\\\"b\\\\\"c\\\\"}]}}`},
		{"schema-ws", `{"tool":"t","outputSchema": { "type" : "object" } ,"result":{"content":[],"structuredContent":{}}}`},
		{"top-string", `"just a string"`},
		{"top-number", `42`},
		{"trailing-comma-top", `{"result":{},}`},
		{"framing-escaped-bad", `{"framing":"\q","result":{"content":[]}}`},
		{"tool-unknown-escape", `{"tool":"\1","result":{}}`}, // fastjson keeps it: tool "_1" once sanitized
		{"name-unknown-escape", `{"res\ult":{},"result":{}}`},
		{"long-text", `{"tool":"t","result":{"content":[{"type":"text","text":"` + strings.Repeat(`ab\"\\ `, 40000) + `"}]}}`},
	}
	for _, tc := range envelopeLines {
		t.Run(tc.name, func(t *testing.T) {
			compareBig(t, big, general, []byte(tc.line), !bigDiffers[tc.name])
		})
	}
	for _, tc := range extra {
		t.Run(tc.name, func(t *testing.T) {
			compareBig(t, big, general, bytes.TrimRight([]byte(tc.line), "\r\n"), true)
		})
	}
}

// FuzzBigRecord: any line is answered as a big record as it is in memory,
// or both answers are INVALID_JSON error results.
func FuzzBigRecord(f *testing.F) {
	for _, tc := range envelopeLines {
		f.Add([]byte(tc.line))
	}
	big, general := differentialWorkers(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		if len(line) > 1<<16 || bytes.ContainsAny(line, "\r\n") {
			return
		}
		compareBig(t, big, general, line, false)
	})
}

// TestBigRecordFailureKeepsItsLine: a record whose answer fails (here its
// output spool cannot spill: no such directory) gets an INTERNAL error
// result on its line, and the run reports it.
func TestBigRecordFailureKeepsItsLine(t *testing.T) {
	eng := testEngine(t)
	text := strings.Repeat("some text ", 2000)
	in := `{"tool":"a","result":{"content":[]}}` + "\n" +
		`{"tool":"b","result":{"content":[{"type":"text","text":"` + text + `"}]}}` + "\n" +
		`{"tool":"c","result":{"content":[]}}` + "\n"
	var out bytes.Buffer
	var reports []string
	err := Run(context.Background(), eng, strings.NewReader(in), &out, Options{Kind: "tool-result", Workers: 2,
		MemRecordBytes: 4096, SpoolDir: t.TempDir() + "/missing",
		Report: func(err error) { reports = append(reports, err.Error()) }})
	if err == nil || len(reports) == 0 {
		t.Fatalf("no failure reported: %v %v", err, reports)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"tool":"a"`) || !strings.Contains(lines[2], `"tool":"c"`) ||
		!strings.Contains(lines[1], `"dev.mcp-sanitize/code":"INTERNAL"`) || strings.Contains(lines[1], "some text") {
		t.Fatalf("lines: %q", lines)
	}
}

// TestBigRecordOutputFailure: a big record whose output spool fails (it
// cannot spill) is answered INTERNAL on its line, with the failure kept
// for the run to report.
func TestBigRecordOutputFailure(t *testing.T) {
	_, w := differentialWorkers(t)
	w.generalOnly = false
	w.memRecord, w.spoolDir = 1024, t.TempDir()+"/missing"
	line := []byte(`{"tool":"b","result":{"content":[{"type":"text","text":"` + strings.Repeat("some text ", 2000) + `"}]}}`)
	b, err := newBigLine("", line)
	if err != nil {
		t.Fatal(err)
	}
	o := w.sanitize(context.Background(), record{big: b})
	if o.err == nil || o.spool != nil {
		t.Fatalf("err %v, spool %v", o.err, o.spool)
	}
	got := string(o.head) + string(o.line)
	if !strings.Contains(got, `"dev.mcp-sanitize/code":"INTERNAL"`) || strings.Contains(got, "some text") {
		t.Fatalf("line %s", got)
	}
}
