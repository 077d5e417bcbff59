package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Corpus file layout under a directory, as WriteCorpus writes it:
//
//	corpus.jsonl       one {"tool","outputSchema","result"} record a line
//	                   (the input of `sanitize-worker scan --jsonl`)
//	labels.jsonl       one Label a line, records in order
//	raw/text/NNNNNN.txt  the decoded string values of record NNNNNN, one
//	                   after another, each followed by a newline: the
//	                   text as the tool wrote it
//	raw/json/NNNNNN.json the record's JSON bytes as sent
//
// The files hold fake credentials only; write them to a scratch directory.
const (
	CorpusFile    = "corpus.jsonl"
	LabelsFile    = "labels.jsonl"
	RawTextDir    = "raw/text"
	RawJSONDir    = "raw/json"
	rawNameFormat = "%06d"
)

func rawName(i int) string { return fmt.Sprintf(rawNameFormat, i) }

// RawFileRecord returns the record index of a raw file name, or -1.
func RawFileRecord(name string) int {
	base := filepath.Base(name)
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".txt"), ".json")
	var n int
	if _, err := fmt.Sscanf(base, "%d", &n); err != nil || fmt.Sprintf(rawNameFormat, n) != base {
		return -1
	}
	return n
}

// DecodedText is the text variant of a record: its string values in
// document order, each followed by a newline.
func DecodedText(result []byte) ([]byte, error) {
	var b strings.Builder
	err := walkStrings(result, func(_, v string) {
		b.WriteString(v)
		b.WriteByte('\n')
	})
	if err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// WriteCorpus writes corpus.jsonl and labels.jsonl of recs under dir
// (created if needed) and returns the byte size of corpus.jsonl.
func WriteCorpus(dir string, recs []LabeledRecord) (int64, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	cf, err := os.Create(filepath.Join(dir, CorpusFile))
	if err != nil {
		return 0, err
	}
	defer cf.Close()
	lf, err := os.Create(filepath.Join(dir, LabelsFile))
	if err != nil {
		return 0, err
	}
	defer lf.Close()
	cw, lw := bufio.NewWriter(cf), bufio.NewWriter(lf)
	var size int64
	for i := range recs {
		r := &recs[i]
		line := JSONL([]Record{r.Record()})
		size += int64(len(line))
		if _, err := cw.Write(line); err != nil {
			return 0, err
		}
		for _, l := range r.Labels {
			b, err := json.Marshal(l)
			if err != nil {
				return 0, err
			}
			lw.Write(b)
			lw.WriteByte('\n')
		}
	}
	if err := cw.Flush(); err != nil {
		return 0, err
	}
	if err := lw.Flush(); err != nil {
		return 0, err
	}
	if err := cf.Close(); err != nil {
		return 0, err
	}
	return size, lf.Close()
}

// WriteRaw writes the raw/text and raw/json files of recs under dir, for
// scanners that read files (gitleaks), and returns the bytes of each
// variant.
func WriteRaw(dir string, recs []LabeledRecord) (textBytes, jsonBytes int64, err error) {
	for _, d := range []string{filepath.Join(dir, RawTextDir), filepath.Join(dir, RawJSONDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return 0, 0, err
		}
	}
	for i := range recs {
		r := &recs[i]
		name := rawName(r.Index)
		txt, err := DecodedText(r.Result)
		if err != nil {
			return 0, 0, fmt.Errorf("bench: record %d: %w", r.Index, err)
		}
		if err := os.WriteFile(filepath.Join(dir, RawTextDir, name+".txt"), txt, 0o644); err != nil {
			return 0, 0, err
		}
		if err := os.WriteFile(filepath.Join(dir, RawJSONDir, name+".json"), r.Result, 0o644); err != nil {
			return 0, 0, err
		}
		textBytes += int64(len(txt))
		jsonBytes += int64(len(r.Result))
	}
	return textBytes, jsonBytes, nil
}
