package rescan

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/records"
)

func engines(t testing.TB) (*pipeline.Engine, *pipeline.Engine) {
	t.Helper()
	p, err := pipeline.ParsePolicy([]byte("version: p1\nrules:\n  custom:\n    - {id: acme-key, keywords: [acme_], pattern: \"acme_[0-9a-f]{8}\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	pe, err := pipeline.NewEngine(p)
	if err != nil {
		t.Fatal(err)
	}
	be, err := pipeline.NewEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	return pe, be
}

func record(tenant string, at time.Time, text string) string {
	ts := ""
	if !at.IsZero() {
		ts = fmt.Sprintf(`"time":%q,`, at.Format(time.RFC3339))
	}
	return fmt.Sprintf(`{"tenant":%q,%s"tool":"t","result":{"content":[{"type":"text","text":%q}]}}`+"\n", tenant, ts, text)
}

func TestRunTimeline(t *testing.T) {
	pe, be := engines(t)
	var in strings.Builder
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 500; i++ {
		text := "nothing here"
		if i >= 400 && i%2 == 0 {
			text = "key acme_0123abcd leaked"
		}
		in.WriteString(record(fmt.Sprintf("t%d", i%3), t0.Add(time.Duration(i)*time.Hour), text))
	}
	var prog Progress
	rep, err := Run(context.Background(), strings.NewReader(in.String()), pe, be, Options{Workers: 2, Progress: &prog, MaxTenants: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records != 500 || prog.Records.Load() != 500 || rep.TimeAxis != "time" || len(rep.Timeline) == 0 || len(rep.Timeline) > timelineBuckets {
		t.Fatalf("report %+v", rep)
	}
	var recs, added int64
	for i, b := range rep.Timeline {
		recs += b.Records
		added += b.Added
		if b.Added > 0 && i < len(rep.Timeline)*3/4 {
			t.Errorf("findings in bucket %d (%s), planted only in the last fifth", i, b.From)
		}
	}
	if recs != 500 || added != 50 {
		t.Fatalf("timeline: %d records, %d added", recs, added)
	}
	if rep.Timeline[0].From != "2026-12-01T00:00:00Z" {
		t.Errorf("first bucket %s", rep.Timeline[0].From)
	}
	tenants := map[string]int64{}
	for _, tc := range rep.Tenants {
		tenants[tc.Tenant] = tc.Records
	}
	if len(tenants) != 3 || tenants[OtherTenants] == 0 {
		t.Fatalf("tenants beyond MaxTenants not pooled: %v", tenants)
	}
	if len(rep.Rules) != 1 || rep.Rules[0].Rule != "acme-key" || rep.Rules[0].Added != 50 || rep.Rules[0].Refs[0].Line != 401 {
		t.Fatalf("rules %+v", rep.Rules)
	}
}

// TestRunRefs: records from a stream are named by their sequence.
func TestRunRefs(t *testing.T) {
	pe, be := engines(t)
	in := record("a", time.Time{}, "x") + record("a", time.Time{}, "acme_00000000")
	rep, err := Run(context.Background(), strings.NewReader(in), pe, be, Options{Refs: func(i int64) uint64 { return uint64(1000 + i) }})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Rules[0].Refs[0]; r.Seq != 1001 || r.Line != 0 || r.String() != "seq 1001" {
		t.Fatalf("ref %+v", r)
	}
}

// FuzzSplitAlike checks that the reader of tenants and times splits any
// input into the records records.Run answers, one for one: the report's
// references depend on it.
func FuzzSplitAlike(f *testing.F) {
	for _, s := range []string{
		"", "\n", "\r\n\r\n", "{}\n{\"result\":{}}", " \t\n{\"result\":1}\r\n\n", strings.Repeat("x", 1100) + "\n{}",
		record("t", time.Unix(0, 0), "a"), "\n\n   \n" + strings.Repeat(" ", 2000) + "\n{",
	} {
		f.Add([]byte(s))
	}
	eng, err := pipeline.NewEngine(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 1024
		var metas int64
		if err := readMeta(bytes.NewReader(in), max, func(meta) { metas++ }); err != nil {
			t.Fatal(err)
		}
		var ev bytes.Buffer
		if err := records.Run(context.Background(), eng, bytes.NewReader(in), io.Discard, records.Options{Workers: 1, MaxRecordBytes: max, Evidence: &ev}); err != nil {
			t.Fatal(err)
		}
		if n := int64(bytes.Count(ev.Bytes(), []byte("\n"))); n != metas {
			t.Fatalf("%d records, %d metas", n, metas)
		}
	})
}
