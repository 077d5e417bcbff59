package rescan

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/records"
	"github.com/valyala/fastjson"
)

// Defaults of Options.
const (
	// DefaultMaxRefs is how many record references a rule lists.
	DefaultMaxRefs = 1000
	// DefaultMaxTenants is how many tenants are counted one by one; the
	// rest are counted together as OtherTenants.
	DefaultMaxTenants = 10000
	// maxFingerprints is how many fingerprints one reference lists.
	maxFingerprints = 8
)

// OtherTenants is the tenant of the records past Options.MaxTenants.
const OtherTenants = "(other)"

// Options configures Run.
type Options struct {
	// Workers is the number of passes of each policy (0: GOMAXPROCS);
	// the two run at once.
	Workers int
	// Kind, Framing and MaxRecordBytes are those of records.Options.
	Kind           pipeline.Kind
	Framing        pipeline.Framing
	MaxRecordBytes int
	// Guard is records.Options.Guard, the same for both policies: the
	// hooks, and the request context of records without a "context"
	// member.
	Guard *pipeline.GuardInput
	// MaxRefs caps the references listed per rule (default
	// DefaultMaxRefs); counts stay exact.
	MaxRefs int
	// MaxTenants caps the tenants counted one by one (default
	// DefaultMaxTenants).
	MaxTenants int
	// Progress, if set, is kept up to date while Run runs.
	Progress *Progress
	// Refs, if set, gives each record its reference (a stream sequence)
	// in input order instead of its line number.
	Refs func(record int64) uint64
}

// Progress counts the records and input bytes compared so far; read it
// from another goroutine for a progress display.
type Progress struct {
	Records atomic.Int64
	Bytes   atomic.Int64
}

// Run reads records (the format of `scan --jsonl`, with optional "tenant"
// and "time" members) from in once, runs them through policy and baseline
// on parallel passes, and compares the two evidence records of each.
func Run(ctx context.Context, in io.Reader, policy, baseline *pipeline.Engine, o Options) (*Report, error) {
	if policy == nil || baseline == nil {
		return nil, errors.New("rescan: a policy and a baseline are required")
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.MaxRecordBytes == 0 {
		o.MaxRecordBytes = records.DefaultMaxRecordBytes
	}
	if o.MaxRefs == 0 {
		o.MaxRefs = DefaultMaxRefs
	}
	if o.MaxTenants == 0 {
		o.MaxTenants = DefaultMaxTenants
	}
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := newComparer(o)
	c.rep.Policy = PolicyRef{Version: policy.Policy().Version}
	c.rep.Baseline = PolicyRef{Version: baseline.Policy().Version}

	// One read of the input feeds three readers: the two record engines
	// and the reader of each record's tenant and time. Each pipe takes a
	// chunk only when its reader wants it, so the input in flight is
	// bounded by the engines' windows.
	pr := make([]*io.PipeReader, 3)
	pw := make([]*io.PipeWriter, 3)
	for i := range pr {
		pr[i], pw[i] = io.Pipe()
	}
	var wg sync.WaitGroup
	var readErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]byte, 256<<10)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				c.prog.Bytes.Add(int64(n))
				for _, w := range pw {
					w.Write(buf[:n]) // a closed reader returns at once
				}
			}
			if err != nil {
				if err != io.EOF {
					readErr = err
				}
				for _, w := range pw {
					w.CloseWithError(err)
				}
				return
			}
		}
	}()
	runErr := make([]error, 2)
	for i, eng := range []*pipeline.Engine{policy, baseline} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			side := &evWriter{c: c, side: i}
			err := records.Run(ctx, eng, pr[i], io.Discard, records.Options{
				Kind: o.Kind, Framing: o.Framing, Workers: o.Workers, MaxRecordBytes: o.MaxRecordBytes, Guard: o.Guard,
				Evidence: side,
				Report: func(err error) {
					var re *records.RecordError
					if errors.As(err, &re) {
						side.failed(int64(re.Record - 1))
					}
				},
			})
			var re *records.RecordError
			if err != nil && !errors.As(err, &re) {
				runErr[i] = err
				cancel()
			}
			pr[i].CloseWithError(io.ErrClosedPipe)
		}()
	}
	wg.Add(1)
	var metaErr error
	go func() {
		defer wg.Done()
		metaErr = readMeta(pr[2], o.MaxRecordBytes, c.addMeta)
		pr[2].CloseWithError(io.ErrClosedPipe)
	}()
	wg.Wait()
	for _, err := range append(runErr, readErr, metaErr) {
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rep := c.finish()
	rep.Bytes = c.prog.Bytes.Load()
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// evWriter takes the evidence lines of one side (records.Run writes one
// line per record, in order).
type evWriter struct {
	c    *comparer
	side int
	next int64
	part []byte
}

func (w *evWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.part = append(w.part, p...)
			break
		}
		line := p[:i]
		if len(w.part) > 0 {
			line = append(w.part, line...)
			w.part = w.part[:0]
		}
		w.c.addEvidence(w.side, w.next, line)
		w.next++
		p = p[i+1:]
	}
	return n, nil
}

// failed takes the place of the evidence line of a record the engine
// failed on (records.Run writes none for it).
func (w *evWriter) failed(record int64) {
	if record == w.next {
		w.c.addEvidence(w.side, w.next, nil)
		w.next++
	}
}

// evSummary is what is compared of one evidence record.
type evSummary struct {
	ok       bool // false: the engine failed on the record
	outcome  string
	rules    map[string]int64
	findings []finding
}

type finding struct{ rule, fp string }

// parsers decode evidence records: fastjson reads the three members the
// comparison needs without decoding the rest.
var parsers fastjson.ParserPool

func summarize(line []byte) evSummary {
	if line == nil {
		return evSummary{}
	}
	p := parsers.Get()
	defer parsers.Put(p)
	v, err := p.ParseBytes(line)
	if err != nil || v.Type() != fastjson.TypeObject {
		return evSummary{}
	}
	s := evSummary{ok: true, outcome: string(v.GetStringBytes("outcome"))}
	if o := v.GetObject("rules"); o != nil {
		s.rules = make(map[string]int64, o.Len())
		o.Visit(func(k []byte, n *fastjson.Value) {
			s.rules[string(k)] = n.GetInt64()
		})
	}
	for _, f := range v.GetArray("findings") {
		if fp := f.GetStringBytes("fingerprint"); len(fp) > 0 {
			s.findings = append(s.findings, finding{string(f.GetStringBytes("rule")), string(fp)})
		}
	}
	return s
}

// slot is one record while its parts arrive.
type slot struct {
	have int // bit 0, 1: evidence of policy, baseline; bit 2: meta
	ev   [2]evSummary
	m    meta
}

// comparer joins the two evidence records and the meta of each record by
// its index and counts; records are counted in input order.
type comparer struct {
	o    Options
	mu   sync.Mutex
	pend map[int64]*slot
	next int64
	nm   int64 // metas seen
	prog *Progress
	agg  *aggregate
	rep  Report
}

func newComparer(o Options) *comparer {
	p := o.Progress
	if p == nil {
		p = &Progress{}
	}
	return &comparer{o: o, pend: map[int64]*slot{}, prog: p, agg: newAggregate(o)}
}

func (c *comparer) slot(i int64) *slot {
	s := c.pend[i]
	if s == nil {
		s = &slot{}
		c.pend[i] = s
	}
	return s
}

func (c *comparer) addEvidence(side int, i int64, line []byte) {
	sum := summarize(line) // outside the lock: the JSON decode is the cost
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.slot(i)
	s.ev[side] = sum
	s.have |= 1 << side
	c.flush()
}

func (c *comparer) addMeta(m meta) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.nm
	c.nm++
	if c.o.Refs != nil {
		m.ref, m.line = c.o.Refs(i), 0
	}
	s := c.slot(i)
	s.m = m
	s.have |= 4
	c.flush()
}

func (c *comparer) flush() {
	for {
		s := c.pend[c.next]
		if s == nil || s.have != 7 {
			return
		}
		delete(c.pend, c.next)
		c.agg.add(c.next, s)
		c.next++
		c.prog.Records.Add(1)
	}
}

func (c *comparer) finish() *Report {
	r := c.agg.report()
	r.Policy, r.Baseline = c.rep.Policy, c.rep.Baseline
	if len(c.pend) > 0 {
		// Parts of records that never completed: the input and the
		// engines disagree on the records, which cannot happen.
		r.Unmatched = int64(len(c.pend))
	}
	return r
}
