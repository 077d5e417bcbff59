// Command corpus writes a deterministic JSONL corpus of scan records
// ({"tool","outputSchema","result"} lines, the input of
// `sanitize-worker scan --jsonl` and of the seed's run.mjs) built by
// bench.Generate over every shape, with fake secrets, pseudo-instruction
// tags and invisible characters planted, and a manifest of what was planted
// in each record (one JSON line per record) for bench/corpus/check.
//
//	go run ./bench/corpus -seed 1 -records 2000 -size 8192 -out corpus.jsonl -manifest manifest.jsonl
//
// The same flags always give the same bytes. The credentials are fake: the
// generator builds them from the seed at run time.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
)

// ManifestPlant is one planted item as the manifest writes it.
type ManifestPlant struct {
	Kind    string   `json:"kind"`
	Name    string   `json:"name"`
	Pointer string   `json:"pointer"`
	Needles []string `json:"needles"`
}

// ManifestLine is the manifest line of one record.
type ManifestLine struct {
	Record int             `json:"record"`
	Tool   string          `json:"tool"`
	Plants []ManifestPlant `json:"plants"`
}

func main() {
	seed := flag.Uint64("seed", 1, "corpus seed")
	records := flag.Int("records", 2000, "number of records")
	size := flag.Int("size", 8<<10, "approximate size of one record's result in bytes")
	secrets := flag.Int("secrets", 3, "fake secrets planted per record")
	tags := flag.Int("tags", 2, "pseudo-instruction tags planted per record")
	invisible := flag.Int("invisible", 2, "runs of invisible or control characters planted per record")
	out := flag.String("out", "", "corpus `FILE` (standard output without it)")
	manifest := flag.String("manifest", "", "manifest `FILE` (none without it)")
	flag.Parse()
	if flag.NArg() > 0 || *records < 0 || *size <= 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*seed, *records, *size, *secrets, *tags, *invisible, *out, *manifest); err != nil {
		fmt.Fprintln(os.Stderr, "corpus:", err)
		os.Exit(1)
	}
}

func create(path string, std io.Writer) (io.Writer, func() error, error) {
	if path == "" {
		if std == nil {
			return io.Discard, func() error { return nil }, nil
		}
		return std, func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

func run(seed uint64, records, size, secrets, tags, invisible int, outPath, manPath string) error {
	ow, closeOut, err := create(outPath, os.Stdout)
	if err != nil {
		return err
	}
	mw, closeMan, err := create(manPath, nil)
	if err != nil {
		return err
	}
	cw := bufio.NewWriterSize(ow, 1<<20)
	bw := bufio.NewWriterSize(mw, 1<<20)
	shapes := bench.Shapes()
	var total int64
	for i := range records {
		d := bench.Generate(bench.Options{
			Seed:      seed*1_000_003 + uint64(i),
			Shape:     shapes[i%len(shapes)],
			Size:      size,
			Secrets:   secrets,
			Tags:      tags,
			Invisible: invisible,
			Escaping:  bench.EscapeMixed,
		})
		line := bench.JSONL([]bench.Record{d.Record()})
		total += int64(len(line))
		if _, err := cw.Write(line); err != nil {
			return err
		}
		m := ManifestLine{Record: i, Tool: d.Tool, Plants: []ManifestPlant{}}
		for _, p := range d.Planted {
			m.Plants = append(m.Plants, ManifestPlant{Kind: p.Kind.String(), Name: p.Name, Pointer: p.Pointer, Needles: p.Needles})
		}
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		bw.Write(b)
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
	}
	if err := cw.Flush(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := closeOut(); err != nil {
		return err
	}
	if err := closeMan(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "corpus: %d records, %d bytes, seed %d, size %d\n", records, total, seed, size)
	return nil
}
