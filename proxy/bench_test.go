package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/proxy"
)

// envBenchServer makes this test binary a server that answers every
// request with a tools/call result of about that many bytes.
const envBenchServer = "MCP_SANITIZE_PROXY_TEST_BENCH"

// benchResult is a tools/call response of about n bytes of log text, its
// id as given.
func benchResult(id json.RawMessage, n int) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	b.WriteString(`,"result":{"content":[{"type":"text","text":"`)
	for b.Len() < n-8 {
		b.WriteString(`2026-11-30T05:00:00Z INFO served /api/items in 12ms status=200\n`)
	}
	b.WriteString(`"}]}}`)
	return []byte(b.String())
}

// runBenchServer answers each request line with benchResult.
func runBenchServer() {
	n, _ := strconv.Atoi(os.Getenv(envBenchServer))
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 8<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		out.Write(benchResult(m.ID, n))
		out.WriteByte('\n')
		out.Flush()
	}
	os.Exit(0)
}

func init() {
	if os.Getenv(envBenchServer) != "" {
		runBenchServer()
	}
}

var benchSizes = []int{1 << 10, 64 << 10}

var (
	benchEngineOnce sync.Once
	benchEng        *pipeline.Engine
)

// benchEngine is the default policy with the text bound raised to 1 Mi
// characters, so that a 64 KiB result is sanitized whole rather than
// truncated at the default 12,000 characters.
func benchEngine(b *testing.B) *pipeline.Engine {
	benchEngineOnce.Do(func() {
		pol := pipeline.DefaultPolicy()
		pol.Limits = map[string]int64{"text-chars": 1 << 20}
		var err error
		if benchEng, err = pipeline.NewEngine(pol); err != nil {
			panic(err)
		}
	})
	return benchEng
}

func sizeName(n int) string { return fmt.Sprintf("%dKiB", n>>10) }

// cpuTime is the CPU time (user and system) of this process so far: with
// the worker and the NATS server embedded, and the stdio server a child
// (RUSAGE_CHILDREN is not counted until it exits), it is the proxy's and
// the fleet's work, less sensitive than wall time to the other loads of a
// shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportLatency reports the p50 and p99 of the per-call durations and the
// CPU time per call since cpu0.
func reportLatency(b *testing.B, d []time.Duration, cpu0 time.Duration) {
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkSession is the proxy's own work per call, without transport:
// the request through FromClient, the response through FromServer (one
// pass, in process or through a worker over embedded NATS).
func BenchmarkSession(b *testing.B) {
	sans := map[string]func(b *testing.B) proxy.Sanitizer{
		"engine": func(b *testing.B) proxy.Sanitizer { return proxy.Engine{E: benchEngine(b)} },
		"nats": func(b *testing.B) proxy.Sanitizer {
			return proxy.Fleet{C: startFleetWith(b, benchEngine(b), true, 20*time.Second)}
		},
	}
	for _, name := range []string{"engine", "nats"} {
		for _, n := range benchSizes {
			b.Run(name+"/"+sizeName(n), func(b *testing.B) {
				p, err := proxy.New(sans[name](b), proxy.Options{})
				if err != nil {
					b.Fatal(err)
				}
				s := p.NewSession()
				req := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"logs","arguments":{}}}`)
				resp := benchResult(json.RawMessage(`1`), n)
				ctx := context.Background()
				d := make([]time.Duration, 0, b.N)
				b.SetBytes(int64(len(resp)))
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime()
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					s.FromClient(req)
					r := s.FromServer(ctx, resp, nil)
					d = append(d, time.Since(t0))
					if r.Client == nil || len(r.Client) < len(resp)/2 {
						b.Fatalf("%d bytes delivered", len(r.Client))
					}
				}
				b.StopTimer()
				reportLatency(b, d, cpu0)
			})
		}
	}
}

// BenchmarkStdioRoundTrip is a client's round trip to a stdio server (this
// binary, answering each request with a result of the size), directly and
// through the proxy (in process or through NATS): the difference of the
// two is the latency the proxy adds.
func BenchmarkStdioRoundTrip(b *testing.B) {
	for _, mode := range []string{"direct", "engine", "nats"} {
		for _, n := range benchSizes {
			b.Run(mode+"/"+sizeName(n), func(b *testing.B) {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), envBenchServer+"="+strconv.Itoa(n))
				cmd.Stderr = os.Stderr
				var w io.WriteCloser
				var r io.Reader
				var done chan struct{}
				if mode == "direct" {
					var err error
					if w, err = cmd.StdinPipe(); err != nil {
						b.Fatal(err)
					}
					rc, err := cmd.StdoutPipe()
					if err != nil {
						b.Fatal(err)
					}
					r = rc
					if err := cmd.Start(); err != nil {
						b.Fatal(err)
					}
					defer cmd.Wait()
				} else {
					var san proxy.Sanitizer = proxy.Engine{E: benchEngine(b)}
					if mode == "nats" {
						san = proxy.Fleet{C: startFleetWith(b, benchEngine(b), true, 20*time.Second)}
					}
					p, err := proxy.New(san, proxy.Options{})
					if err != nil {
						b.Fatal(err)
					}
					inR, inW := io.Pipe()
					outR, outW := io.Pipe()
					w, r = inW, outR
					done = make(chan struct{})
					go func() {
						(&proxy.Stdio{Proxy: p, Cmd: cmd}).Run(context.Background(), inR, outW)
						outW.Close()
						close(done)
					}()
				}
				br := bufio.NewReaderSize(r, 256<<10)
				d := make([]time.Duration, 0, b.N)
				b.SetBytes(int64(n))
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime()
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"logs","arguments":{}}}`+"\n", i+1)
					line, err := br.ReadSlice('\n')
					for err == bufio.ErrBufferFull {
						_, err = br.ReadSlice('\n')
					}
					if err != nil || len(line) == 0 {
						b.Fatalf("read: %v", err)
					}
					d = append(d, time.Since(t0))
				}
				b.StopTimer()
				reportLatency(b, d, cpu0)
				w.Close()
				if done != nil {
					<-done
				}
			})
		}
	}
}
