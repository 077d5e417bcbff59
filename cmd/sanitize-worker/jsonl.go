package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/valyala/fastjson"
)

// record is one input line and its place in the stream.
type record struct {
	seq     int
	line    []byte
	tooLong bool
}

// outcome is the sanitized line and evidence of one record.
type outcome struct {
	seq      int
	line     []byte
	evidence []byte
	err      error
}

// scanJSONL sanitizes a stream of records on all workers and writes the
// results in input order. At most 2*workers records are in flight, so
// memory is bounded by the record size limit, not the stream length.
func scanJSONL(ctx context.Context, eng *pipeline.Engine, kind pipeline.Kind, f scanFlags, in io.Reader, out, evw, stderr io.Writer) int {
	jobs := make(chan record, f.workers)
	results := make(chan outcome, f.workers)
	slots := make(chan struct{}, 2*f.workers)
	var readErr error
	go func() {
		defer close(jobs)
		readErr = readRecords(ctx, in, f.maxRecord, slots, jobs)
	}()
	var wg sync.WaitGroup
	for w := 0; w < f.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p fastjson.Parser
			for r := range jobs {
				results <- sanitizeRecord(ctx, eng, kind, f, &p, r)
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	bw := bufio.NewWriterSize(out, 256<<10)
	pending := map[int]outcome{}
	nextSeq := 0
	code := exitOK
	for o := range results {
		pending[o.seq] = o
		for {
			r, ok := pending[nextSeq]
			if !ok {
				break
			}
			delete(pending, nextSeq)
			nextSeq++
			<-slots
			if r.err != nil {
				if code == exitOK {
					fmt.Fprintf(stderr, "sanitize-worker scan: record %d: %v\n", r.seq+1, r.err)
				}
				code = exitFailure
				continue
			}
			bw.Write(r.line)
			bw.WriteByte('\n')
			if _, err := evw.Write(r.evidence); err != nil && code == exitOK {
				fmt.Fprintf(stderr, "sanitize-worker scan: writing evidence: %v\n", err)
				code = exitFailure
			}
		}
	}
	if err := bw.Flush(); err != nil {
		fmt.Fprintf(stderr, "sanitize-worker scan: writing output: %v\n", errors.Unwrap(err))
		return exitFailure
	}
	if readErr != nil {
		fmt.Fprintf(stderr, "sanitize-worker scan: reading input: %v\n", readErr)
		return exitFailure
	}
	return code
}

// readRecords splits the input into lines of at most max bytes. A longer
// line is not held: it becomes a tooLong record and is skipped to its end.
func readRecords(ctx context.Context, in io.Reader, max int, slots chan struct{}, jobs chan<- record) error {
	br := bufio.NewReaderSize(in, 64<<10)
	seq := 0
	for {
		var line []byte
		tooLong := false
		for {
			frag, err := br.ReadSlice('\n')
			if !tooLong {
				if len(line)+len(frag) > max+1 {
					tooLong = true
					line = nil
				} else {
					line = append(line, frag...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF {
				if len(frag) == 0 && len(line) == 0 && !tooLong {
					return nil
				}
				break
			}
			if err != nil {
				return err
			}
			break
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) == 0 && !tooLong {
			continue // blank lines are not records
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		jobs <- record{seq: seq, line: line, tooLong: tooLong}
		seq++
	}
}

// sanitizeRecord runs one record. A record that is not valid JSON, lacks a
// result or is too long gets a sanitized error result on its line.
func sanitizeRecord(ctx context.Context, eng *pipeline.Engine, kind pipeline.Kind, f scanFlags, p *fastjson.Parser, r record) outcome {
	info := pipeline.MessageInfo{Kind: kind}
	var buf pipeline.Buffer
	var ev *pipeline.Evidence
	var err error
	schema := []byte("null")
	switch v, perr := p.ParseBytes(r.line); {
	case r.tooLong:
		ev, err = eng.Reject(nil, &buf, info, pipeline.CodeBoundExceeded, "record-too-long")
	case perr != nil:
		ev, err = eng.Reject(bytes.NewReader(r.line), &buf, info, pipeline.CodeInvalidJSON, "bad-record")
	case v.Type() != fastjson.TypeObject || v.Get("result") == nil:
		ev, err = eng.Reject(bytes.NewReader(r.line), &buf, info, pipeline.CodeInvalidJSON, "record-without-result")
	default:
		if t := v.Get("tool"); t != nil && t.Type() == fastjson.TypeString {
			info.Tool = string(t.GetStringBytes())
		}
		if s := v.Get("outputSchema"); s != nil {
			schema = s.MarshalTo(nil)
		}
		res := v.Get("result").MarshalTo(nil)
		cctx, cancel := context.WithTimeout(ctx, f.timeout)
		ev, err = eng.Sanitize(cctx, bytes.NewReader(res), &buf, info)
		cancel()
	}
	if err != nil {
		return outcome{seq: r.seq, err: err}
	}
	var line bytes.Buffer
	line.WriteString(`{"tool":`)
	tool, _ := json.Marshal(ev.Tool)
	line.Write(tool)
	line.WriteString(`,"outputSchema":`)
	line.Write(schema)
	line.WriteString(`,"result":`)
	line.Write(buf.Bytes())
	line.WriteByte('}')
	evb, merr := json.Marshal(ev)
	if merr != nil {
		return outcome{seq: r.seq, err: merr}
	}
	return outcome{seq: r.seq, line: line.Bytes(), evidence: append(evb, '\n')}
}
