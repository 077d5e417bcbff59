package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// svgDoc is what the tests read back of a chart.
type svgDoc struct {
	Polylines []struct {
		Points string `xml:"points,attr"`
		Title  string `xml:"title"`
	} `xml:"polyline"`
	Texts []string `xml:"text"`
}

func TestChartSVG(t *testing.T) {
	c := chart{title: "t <&>", xlabel: "message size (bytes)", ylabel: "MB/s", logX: true, series: []series{
		{name: "a", pts: []point{{1024, 10}, {4096, 40}, {65536, 35}}},
		{name: "b & c", pts: []point{{1024, 5}, {1 << 20, 80}}},
	}}
	var d svgDoc
	if err := xml.Unmarshal([]byte(c.svg()), &d); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	if len(d.Polylines) != 2 || d.Polylines[0].Title != "a" || d.Polylines[1].Title != "b & c" {
		t.Fatalf("polylines %+v, want one per series with its name", d.Polylines)
	}
	// Every point lies inside the plot area (x 70..530, y 40..370), the
	// largest x at the right edge, y grows upwards.
	var xs, ys []float64
	for _, p := range strings.Fields(d.Polylines[1].Points) {
		x, _ := strconv.ParseFloat(strings.Split(p, ",")[0], 64)
		y, _ := strconv.ParseFloat(strings.Split(p, ",")[1], 64)
		if x < 70 || x > 530.01 || y < 40 || y > 370.01 {
			t.Errorf("point %s outside the plot area", p)
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	if xs[0] != 70 || xs[1] < 529.9 || ys[1] >= ys[0] {
		t.Errorf("points %v %v: want the first x at the left edge, the last at the right, the larger y higher", xs, ys)
	}
	joined := strings.Join(d.Texts, "|")
	for _, want := range []string{"t <&>", "1KiB", "1MiB", "MB/s", "b & c"} {
		if !strings.Contains(joined, want) {
			t.Errorf("chart text %q lacks %q", joined, want)
		}
	}
	var empty svgDoc
	if err := xml.Unmarshal([]byte(chart{title: "none"}.svg()), &empty); err != nil || !strings.Contains(strings.Join(empty.Texts, "|"), "no data") {
		t.Errorf("a chart without points: %v, texts %v", err, empty.Texts)
	}
}

func TestNiceCeil(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{{0, 1}, {0.3, 0.5}, {1, 1}, {7, 10}, {12, 20}, {480, 500}, {501, 1000}} {
		if got := niceCeil(c.in); got != c.want {
			t.Errorf("niceCeil(%g) = %g, want %g", c.in, got, c.want)
		}
	}
}

func TestReadCorpus(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(good, []byte(`{"tool":"a","outputSchema":null,"result":{"content":[]}}`+"\n\n"+
		`{"tool":"b","outputSchema":{"type":"object"},"result":{"content":[],"structuredContent":{}}}`+"\n"), 0o600)
	recs, n, err := readCorpus(good)
	if err != nil || len(recs) != 2 || recs[0].OutputSchema != nil || string(recs[1].OutputSchema) != `{"type":"object"}` ||
		n != int64(len(`{"content":[]}`)+len(`{"content":[],"structuredContent":{}}`)) {
		t.Fatalf("readCorpus: %d records, %d bytes, %v", len(recs), n, err)
	}
	for name, line := range map[string]string{"not JSON": "{", "no result": `{"tool":"a"}`} {
		p := filepath.Join(dir, "bad.jsonl")
		os.WriteFile(p, []byte(line+"\n"), 0o600)
		if _, _, err := readCorpus(p); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%s: err %v, want an error naming line 1", name, err)
		}
	}
}
