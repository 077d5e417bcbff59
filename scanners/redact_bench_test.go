package scanners

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/cloudflare/ahocorasick"
)

// benchCorpora builds deterministic, mostly-ASCII corpora of about size
// bytes resembling what tools return.
func benchCorpora(size int) []struct {
	name string
	data []byte
} {
	rng := rand.New(rand.NewPCG(7, 7))
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	fill := func(line func() string) []byte {
		var b strings.Builder
		for b.Len() < size {
			b.WriteString(line())
		}
		return []byte(b.String()[:size])
	}
	idents := []string{"ctx", "err", "buf", "req", "resp", "user", "items", "cfg", "n", "i", "tool", "result", "state", "data"}
	words := []string{"the", "system", "user", "tool", "assistant", "of", "and", "a", "to", "in", "is", "that", "for", "it", "with",
		"as", "was", "on", "model", "output", "request", "server", "context", "message", "instructions", "important", "task"}
	code := func() string {
		switch rng.IntN(8) {
		case 0:
			return fmt.Sprintf("func (s *%s) Handle(ctx context.Context, req *Request) (*Response, error) {\n", pick(idents))
		case 1:
			return fmt.Sprintf("\tif %s < len(%s) && %s[%s] != nil {\n", pick(idents), pick(idents), pick(idents), pick(idents))
		case 2:
			return fmt.Sprintf("\t\treturn nil, fmt.Errorf(\"%s: %%w\", err)\n\t}\n", pick(words))
		case 3:
			return fmt.Sprintf("\tfor i := 0; i < n; i++ { %s = append(%s, x[i]) } // %s %s\n", pick(idents), pick(idents), pick(words), pick(words))
		case 4:
			return "\tm := map[string][]int{\"a\": {1, 2}, \"b\": nil}\n"
		case 5:
			return fmt.Sprintf("\tch <- %s; v := <-done; var g Set[%s]\n", pick(idents), pick(idents))
		case 6:
			return "#include <stdio.h>\nstd::vector<int> v; std::cout << v.size() << std::endl;\n"
		default:
			return fmt.Sprintf("<div class=\"%s\"><span>%s</span></div>\n", pick(words), pick(words))
		}
	}
	logs := func() string {
		return fmt.Sprintf("2025-11-30T03:%02d:%02d.%03dZ %s [%s] task-runner-%d user=%s req_id=%08x msg=\"%s %s %s\" latency_ms=%d\n",
			rng.IntN(60), rng.IntN(60), rng.IntN(1000), pick([]string{"INFO", "WARN", "DEBUG", "ERROR"}), pick(idents),
			rng.IntN(100), pick(idents), rng.Uint32(), pick(words), pick(words), pick(words), rng.IntN(5000))
	}
	prose := func() string {
		var b strings.Builder
		for i := 0; i < 12+rng.IntN(10); i++ {
			b.WriteString(pick(words))
			b.WriteByte(' ')
		}
		b.WriteString(pick([]string{". ", ", ", ".\n", "; "}))
		return b.String()
	}
	jsonish := func() string {
		return fmt.Sprintf("{\"id\": %d, \"name\": \"%s %s\", \"tags\": [\"%s\", \"%s\"], \"user\": {\"login\": \"%s\", \"role\": \"%s\"}, \"score\": %d.%d, \"url\": \"https://api.example.com/v1/%s/%d\"},\n",
			rng.IntN(1e6), pick(words), pick(words), pick(words), pick(words), pick(idents), pick(words), rng.IntN(100), rng.IntN(100), pick(idents), rng.IntN(1e4))
	}
	// b64text: log lines, one in eight carrying a base64 blob (random bytes,
	// as an inline image or a serialized token would be) or a hex digest.
	b64text := func() string {
		switch rng.IntN(8) {
		case 0:
			blob := make([]byte, 16+rng.IntN(1500))
			for i := range blob {
				blob[i] = byte(rng.Uint32())
			}
			return "payload=" + base64.StdEncoding.EncodeToString(blob) + "\n"
		case 1:
			blob := make([]byte, 32)
			for i := range blob {
				blob[i] = byte(rng.Uint32())
			}
			return fmt.Sprintf("sha256=%x commit=%x\n", blob, blob[:20])
		}
		return logs()
	}
	dense := func() string {
		return pick([]string{"sk-", "user", "<", "< ", "</", "<u", "<s", "[", "[ ", "ask-", "desk-", "-----", "eyJ", "AKIA", "Asia", "ghp", "xox", "hf_", "SG.", "msg.", " "}) + pick(words)
	}
	return []struct {
		name string
		data []byte
	}{
		{"code", fill(code)},
		{"logs", fill(logs)},
		{"prose", fill(prose)},
		{"json", fill(jsonish)},
		{"b64text", fill(b64text)},
		{"dense", fill(dense)},
	}
}

const benchSize = 1 << 20

// BenchmarkRedactor measures Redactor.Append with the whole catalog, input
// fed in 32 KiB chunks.
//
//	go test -run '^$' -bench 'Redactor' -benchtime 2s ./scanners/
//
// decode=off is the same catalog with DisableDecoding: the difference is the
// cost of tracking and decoding encoded runs (docs/detection-encoded.md).
func BenchmarkRedactor(b *testing.B) {
	for _, dec := range []string{"on", "off"} {
		c, err := NewCatalog(CatalogOptions{DisableDecoding: dec == "off"})
		if err != nil {
			b.Fatal(err)
		}
		for _, cp := range benchCorpora(benchSize) {
			for _, chunk := range []int{32 << 10} {
				b.Run(fmt.Sprintf("%s/chunk=%dK/decode=%s", cp.name, chunk>>10, dec), func(b *testing.B) {
					r := c.NewRedactor(testKey)
					dst := make([]byte, 0, len(cp.data)+1024)
					var fs []Finding
					b.SetBytes(int64(len(cp.data)))
					b.ReportAllocs()
					for b.Loop() {
						r.Reset()
						dst, fs = dst[:0], fs[:0]
						for i := 0; i < len(cp.data); i += chunk {
							dst, fs = r.Append(dst, cp.data[i:min(len(cp.data), i+chunk)], false, fs)
						}
						dst, fs = r.Append(dst, nil, true, fs)
					}
				})
			}
		}
	}
}

// BenchmarkKeywordScan compares the bare keyword pass: our DFA walked once
// (run), our DFA in four interleaved lanes (run4), and cloudflare/ahocorasick
// over the same (lower-case) keywords. cloudflare's Matcher is
// case-sensitive, reports only which keywords occur (no positions) and keeps
// no state across chunks, so it is a lower bound on the work we need, not a
// replacement.
//
//	go test -run '^$' -bench 'KeywordScan' -benchtime 2s ./scanners/
func BenchmarkKeywordScan(b *testing.B) {
	c, err := NewCatalog(CatalogOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var kws []string
	for _, r := range c.Rules() {
		kws = append(kws, r.Keywords...)
	}
	cf := ahocorasick.NewStringMatcher(kws)
	a := c.ac
	for _, cp := range benchCorpora(benchSize) {
		data := cp.data
		b.Run(cp.name+"/run", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			hits := 0
			for b.Loop() {
				s := uint32(0)
				for i := 0; i < len(data); {
					var n int
					s, n = a.run(s, data[i:])
					i += n
					if s >= a.matchMin {
						hits++
					}
				}
			}
			b.ReportMetric(float64(hits)/float64(b.N)/float64(len(data))*1000, "hits/KB")
		})
		b.Run(cp.name+"/run4", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				s := uint32(0)
				for i := 0; i < len(data); {
					var n int
					s, n = a.run4(s, data[i:])
					i += n
				}
			}
		})
		b.Run(cp.name+"/collect", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			buf := make([]acRec, hitBufLen)
			for b.Loop() {
				collectAll(a, data, buf)
			}
		})
		b.Run(cp.name+"/cloudflare", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				_ = cf.Match(data)
			}
		})
	}
}

// BenchmarkCollectShort compares, on strings of the lengths structured
// results are made of, collect (four lanes from collectLanesMin) with one
// lane, the walk collect used below 1 KiB before.
//
//	go test -run '^$' -bench CollectShort ./scanners/
func BenchmarkCollectShort(b *testing.B) {
	c, err := NewCatalog(CatalogOptions{})
	if err != nil {
		b.Fatal(err)
	}
	a := c.ac
	code := benchCorpora(benchSize)[0].data
	tp := unsafe.Pointer(unsafe.SliceData(a.trans))
	for _, n := range []int{128, 256, 384, 512, 768, 1000} {
		p := code[:n]
		b.Run(fmt.Sprintf("%d/collect", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			buf := make([]acRec, hitBufLen)
			for b.Loop() {
				collectAll(a, p, buf)
			}
		})
		b.Run(fmt.Sprintf("%d/one-lane", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			buf := make([]acRec, hitBufLen)
			for b.Loop() {
				s, k := uint32(0), 0
				for i, c := range p {
					s = step(tp, s, c)
					if s >= a.matchMin {
						buf[k] = acRec{int32(i), s}
						k++
					}
				}
			}
		})
	}
}

// collectAll walks all of p with collect, as the Redactor does block by
// block, and returns the final state.
func collectAll(a *automaton, p []byte, buf []acRec) uint32 {
	s := uint32(0)
	for i := 0; i < len(p); {
		var n int
		s, n, _ = a.collect(s, p[i:], buf)
		i += n
	}
	return s
}
