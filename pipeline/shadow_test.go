package pipeline_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// The escaped shadow (shadow.go) must write exactly what the escaper
// writes. These tests run the same inputs through an engine with the shadow
// and one without, under each policy and split into reads of many sizes,
// and compare output and evidence byte for byte.

var plainEngines = map[string]*pipeline.Engine{}

// plainEngine is engine(t, name, chunk) without the shadow.
func plainEngine(t testing.TB, name policyName, chunk int) *pipeline.Engine {
	k := fmt.Sprintf("%s/%d", name, chunk)
	if e := plainEngines[k]; e != nil {
		return e
	}
	e := pipeline.WithoutShadow(engine(t, name, chunk))
	plainEngines[k] = e
	return e
}

// shadowCases are documents whose strings go every way the shadow can:
// each escaping style (minimal; Go's \u003c; Python's \uXXXX and \/),
// planted secrets, tags and invisible characters that end it mid-string,
// strings longer than a decode batch, and the hand-written edge cases.
func shadowCases(sizes ...int) []splitCase {
	var cases []splitCase
	for _, size := range sizes {
		for _, s := range bench.Shapes() {
			for _, esc := range []bench.Escaping{bench.EscapeMinimal, bench.EscapeHTML, bench.EscapeASCII, bench.EscapeMixed} {
				seed := uint64(size) + uint64(s)*7 + uint64(esc)
				clean := bench.Generate(bench.Options{Seed: seed, Shape: s, Size: size, Escaping: esc}).JSON
				dirty := bench.Generate(bench.Options{Seed: seed, Shape: s, Size: size, Escaping: esc, Secrets: 2, Tags: 2, Invisible: 2}).JSON
				name := fmt.Sprintf("%s-%d-esc%d", s, size, esc)
				cases = append(cases,
					splitCase{name: name + "-clean", in: clean, pol: polBig},
					splitCase{name: name + "-planted", in: dirty, pol: polBig},
					splitCase{name: name + "-small", in: dirty, pol: polSmall},
				)
			}
		}
	}
	// Escapes right at the edges: quotes and backslashes written every way
	// JSON allows, a control escape, and text that ends with each of them.
	for _, text := range []string{
		`a\"b\\c\/d\u0022e\u005cf\u002fg\n\r\t\b\f\u0001h`,
		strings.Repeat(`x\"`, 20000) + `\\`,
		strings.Repeat(`\u003cp\u003e`, 9000) + `\u0026`,
		strings.Repeat(`é\u00e9\n`, 12000),
		strings.Repeat("y", 32767) + `\"` + strings.Repeat("z", 40000),
		strings.Repeat("w", 32766) + `\u00e9` + strings.Repeat("v", 100),
		`\u200b` + strings.Repeat("q", 40000),
		strings.Repeat("k", 40000) + `ghp_` + strings.Repeat("A", 36),
	} {
		cases = append(cases, splitCase{name: fmt.Sprintf("escapes-%d", len(cases)), in: tr(text), pol: polBig})
	}
	cases = append(cases, edgeCases()...)
	cases = append(cases, memberContextCases()...)
	return cases
}

func TestShadowDifferential(t *testing.T) {
	sizes := []int{3 << 10, 80 << 10}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, c := range shadowCases(sizes...) {
		t.Run(c.name, func(t *testing.T) {
			wantOut, wantEv, _ := runCase(t, plainEngine(t, c.policy(), 64<<10), c, 0, false)
			for _, chunk := range []int{512, 64 << 10} {
				e := engine(t, c.policy(), chunk)
				for _, k := range []int{0, 1, 2, 5, 7, 64, 4099} {
					if k == 1 && len(c.in) > 8<<10 {
						continue // TestSplitInvarianceLarge covers that
					}
					out, evj, _ := runCase(t, e, c, k, k%2 == 0)
					if !bytes.Equal(out, wantOut) {
						t.Fatalf("chunk %d, reads of %d: output differs from the escaper's\n got: %.600q\nwant: %.600q", chunk, k, out, wantOut)
					}
					if !bytes.Equal(evj, wantEv) {
						t.Fatalf("chunk %d, reads of %d: evidence differs\n got: %s\nwant: %s", chunk, k, evj, wantEv)
					}
				}
			}
		})
	}
}

// fuzzShadowMax bounds FuzzShadow's inputs, so that it runs fast enough;
// long texts come from repeating an input (fuzzShadowLong).
const fuzzShadowMax = 8 << 10

// fuzzShadowLong is the size of FuzzShadow's long texts, when rep >= 0xF0:
// an input repeated to 64 KiB << (rep % 3), 1 MiB for rep 0xFF.
func fuzzShadowLong(rep uint8) int {
	if rep == 0xFF {
		return 1 << 20
	}
	return 64 << 10 << (rep % 3)
}

// FuzzShadow compares the engines with and without the shadow on arbitrary
// inputs, and on arbitrary text put into a tool result in each escaping
// style, split into reads of a size the fuzzer picks; with rep >= 0xF0 the
// text is the input repeated to a long text (held across batches, as
// repeated key headers are). Neither engine may give INTERNAL.
func FuzzShadow(f *testing.F) {
	for i, c := range shadowCases(1 << 10) {
		if len(c.in) <= fuzzShadowMax {
			f.Add(c.in, uint8(i), uint8(i))
		}
	}
	for i, d := range genSeeds() {
		if len(d) <= fuzzShadowMax {
			f.Add(d, uint8(i), uint8(0))
		}
	}
	for i, h := range pemHeaders[:2] {
		f.Add([]byte(h+"\n"), uint8(i), uint8(0xF0+i))
	}
	f.Fuzz(func(t *testing.T, in []byte, k uint8, rep uint8) {
		if len(in) > fuzzShadowMax {
			return // long strings: TestShadowDifferential
		}
		check := func(doc []byte, pol policyName, reads int) {
			c := splitCase{name: "fuzz", in: doc, pol: pol}
			wantOut, wantEv, ev := runCase(t, plainEngine(t, pol, 512), c, 0, false)
			noInternal(t, ev)
			out, evj, ev := runCase(t, engine(t, pol, 512), c, reads, true)
			noInternal(t, ev)
			if !bytes.Equal(out, wantOut) || !bytes.Equal(evj, wantEv) {
				t.Fatalf("%s policy, reads of %d: shadow and escaper differ for %.2000q\n got: %.2000q %s\nwant: %.2000q %s", pol, reads, doc, out, evj, wantOut, wantEv)
			}
		}
		if rep >= 0xF0 && len(in) > 0 {
			n := fuzzShadowLong(rep)
			text := strings.ToValidUTF8(string(bytes.Repeat(in, n/len(in)+1)[:n]), "\ufffd")
			check(tr(esc(text)), polBig, int(k)*64+1)
			return
		}
		inputs := [][]byte{in}
		if s := string(in); len(s) < 4096 {
			rng := rand.New(rand.NewPCG(uint64(len(s)), uint64(k)))
			inputs = append(inputs, tr(esc(s)), tr(htmlEsc(s)), tr(asciiEsc(s, rng)))
		}
		for _, doc := range inputs {
			for _, pol := range []policyName{polDefault, polSmall, polBig} {
				check(doc, pol, int(k)+1)
			}
		}
	})
}

// htmlEsc escapes s as Go's encoding/json does by default.
func htmlEsc(s string) string {
	r := strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`)
	return r.Replace(esc(s))
}

// asciiEsc escapes s as Python's json.dumps does, with some characters
// escaped although they need not be (\u0041, \/), picked by rng.
func asciiEsc(s string, rng *rand.Rand) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\ufffd") {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '/' && rng.IntN(2) == 0:
			b.WriteString(`\/`)
		case r < 0x20 || r >= 0x7f || rng.IntN(8) == 0:
			if r > 0xFFFF {
				r -= 0x10000
				fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// BenchmarkShadow runs BenchmarkSanitizeMixed's 64 KiB documents with the
// escaped shadow and without it (every string through the escaper).
func BenchmarkShadow(b *testing.B) {
	docs, total := mixedDocs(64 << 10)
	info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "bench"}
	for _, on := range []bool{true, false} {
		name := "on"
		e := engine(b, polBig, 64<<10)
		if !on {
			name, e = "off", plainEngine(b, polBig, 64<<10)
		}
		b.Run(name, func(b *testing.B) {
			var out pipeline.Discarder
			r := bytes.NewReader(nil)
			b.SetBytes(int64(total / len(docs)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r.Reset(docs[i%len(docs)])
				i++
				if _, err := e.Sanitize(context.Background(), r, &out, info); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestLexerKernelsAgree runs the shadow, edge, structured and generated
// cases through the lexer with each string kernel this machine has (the
// word loop of other architectures included) and compares output and
// evidence with the default choice, whole and in reads of 7 and 4099
// bytes.
func TestLexerKernelsAgree(t *testing.T) {
	cases := shadowCases(3<<10, 80<<10)
	cases = append(cases, structuredCases()...)
	cases = append(cases, generatedCases(20<<10)...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantOut, wantEv, _ := runCase(t, engine(t, c.policy(), 64<<10), c, 0, false)
			for _, k := range pipeline.LexerKernels() {
				restore := pipeline.UseLexerKernel(k)
				for _, reads := range []int{0, 7, 4099} {
					out, evj, _ := runCase(t, engine(t, c.policy(), 64<<10), c, reads, reads%2 == 0)
					if !bytes.Equal(out, wantOut) || !bytes.Equal(evj, wantEv) {
						restore()
						t.Fatalf("kernel %s, reads of %d: output or evidence differs\n got: %.600q %s\nwant: %.600q %s", k, reads, out, evj, wantOut, wantEv)
					}
				}
				restore()
			}
		})
	}
}
