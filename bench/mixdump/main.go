// Command mixdump writes the harness's generated mix (bench.Mix) as scan
// records, one JSON line each, to standard output: the input of
// `sanitize-worker scan --jsonl` that bench/harness and
// scripts/scancompare.sh run, for any seed and record count, and
// optionally only the records with an outputSchema (a listing-dominated
// mix) or only those without one.
//
//	go run ./bench/mixdump -seed 2 -records 3000 -part schema > /tmp/listings.jsonl
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
)

func main() {
	seed := flag.Uint64("seed", 1, "generator seed (the harness uses 1)")
	n := flag.Int("records", 3000, "records generated (before -part filters them)")
	part := flag.String("part", "all", "all, schema (only records with an outputSchema) or plain (only those without)")
	flag.Parse()
	var recs []bench.Record
	for _, d := range bench.Mix(bench.MixOptions{Seed: *seed, Records: *n}) {
		r := d.Record()
		switch *part {
		case "all":
		case "schema":
			if r.OutputSchema == nil {
				continue
			}
		case "plain":
			if r.OutputSchema != nil {
				continue
			}
		default:
			fmt.Fprintf(os.Stderr, "mixdump: bad -part %q: want all, schema or plain\n", *part)
			os.Exit(2)
		}
		recs = append(recs, r)
	}
	if _, err := os.Stdout.Write(bench.JSONL(recs)); err != nil {
		fmt.Fprintln(os.Stderr, "mixdump:", err)
		os.Exit(1)
	}
}
