package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/proxy"
)

// benchUpstream is a Streamable HTTP server that answers each POSTed
// request with benchResult of n bytes, as application/json or as one SSE
// event.
func benchUpstream(b *testing.B, n int, sse bool) *httptest.Server {
	b.Helper()
	// The result is built once; each answer is its head, the request's
	// id and its tail, so that the server's own allocations do not weigh
	// on the measure.
	res := benchResult(json.RawMessage(`0`), n)
	head, tail := res[:len(`{"jsonrpc":"2.0","id":`)], res[len(`{"jsonrpc":"2.0","id":0`):]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body [256]byte
		k, _ := io.ReadFull(r.Body, body[:])
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(body[:k], &m) != nil || m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if !sse {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(head)+len(m.ID)+len(tail)))
		} else {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte("event: message\ndata: "))
		}
		w.Write(head)
		w.Write(m.ID)
		w.Write(tail)
		if sse {
			w.Write([]byte("\n\n"))
		}
	}))
	b.Cleanup(srv.Close)
	return srv
}

// benchSanitizer is the engine in this process or a worker over embedded
// NATS.
func benchSanitizer(b *testing.B, mode string) proxy.Sanitizer {
	if mode == "nats" {
		return proxy.Fleet{C: startFleetWith(b, benchEngine(b), true, 20*time.Second)}
	}
	return proxy.Engine{E: benchEngine(b)}
}

// benchHTTPTarget is the URL a client posts to: the upstream itself
// (direct) or a proxy in front of it.
func benchHTTPTarget(b *testing.B, mode string, n int, sse bool) string {
	up := benchUpstream(b, n, sse)
	if mode == "direct" {
		return up.URL
	}
	p, err := proxy.New(benchSanitizer(b, mode), proxy.Options{})
	if err != nil {
		b.Fatal(err)
	}
	u, _ := url.Parse(up.URL)
	srv := httptest.NewServer(&proxy.HTTP{Proxy: p, Upstream: u, Loopback: true})
	b.Cleanup(srv.Close)
	return srv.URL
}

// benchPost posts one tools/call and reads the whole answer; an error
// unless the answer holds a result of at least half the size.
func benchPost(c *http.Client, target string, id int, n int, buf *bytes.Buffer) error {
	req, _ := http.NewRequest(http.MethodPost, target, bytes.NewReader(fmt.Appendf(nil,
		`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"logs","arguments":{}}}`, id)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	buf.Reset()
	_, err = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	body := buf.Bytes()
	if resp.StatusCode != http.StatusOK || len(body) < n/2 || !bytes.Contains(body, []byte(`"result"`)) {
		return fmt.Errorf("status %d, %d bytes", resp.StatusCode, len(body))
	}
	return nil
}

func benchHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
}

// BenchmarkHTTPRoundTrip is a client's round trip over Streamable HTTP,
// one POST at a time, to a server answering with a result of the size as
// JSON or as an SSE event: directly, and through the proxy with the engine
// in process or through NATS. The difference is the latency the proxy
// adds.
func BenchmarkHTTPRoundTrip(b *testing.B) {
	for _, mode := range []string{"direct", "engine", "nats"} {
		for _, resp := range []string{"json", "sse"} {
			for _, n := range benchSizes {
				b.Run(mode+"/"+resp+"/"+sizeName(n), func(b *testing.B) {
					target := benchHTTPTarget(b, mode, n, resp == "sse")
					c := benchHTTPClient()
					var buf bytes.Buffer
					if err := benchPost(c, target, 0, n, &buf); err != nil { // a connection is open
						b.Fatal(err)
					}
					d := make([]time.Duration, 0, b.N)
					b.SetBytes(int64(n))
					b.ReportAllocs()
					b.ResetTimer()
					cpu0 := cpuTime()
					for i := 0; i < b.N; i++ {
						t0 := time.Now()
						if err := benchPost(c, target, i+1, n, &buf); err != nil {
							b.Fatal(err)
						}
						d = append(d, time.Since(t0))
					}
					b.StopTimer()
					reportLatency(b, d, cpu0)
				})
			}
		}
	}
}

// BenchmarkHTTPThroughput is calls per second over Streamable HTTP with 8
// clients posting at once per GOMAXPROCS (SSE answers), through the proxy
// or directly.
func BenchmarkHTTPThroughput(b *testing.B) {
	for _, mode := range []string{"direct", "engine", "nats"} {
		for _, n := range benchSizes {
			b.Run(mode+"/"+sizeName(n), func(b *testing.B) {
				target := benchHTTPTarget(b, mode, n, true)
				c := benchHTTPClient()
				var id atomic.Int64
				b.SetBytes(int64(n))
				b.ReportAllocs()
				b.SetParallelism(8)
				b.ResetTimer()
				cpu0 := cpuTime()
				t0 := time.Now()
				b.RunParallel(func(pb *testing.PB) {
					var buf bytes.Buffer
					for pb.Next() {
						if err := benchPost(c, target, int(id.Add(1)), n, &buf); err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.StopTimer()
				b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "calls/s")
				reportLatency(b, nil, cpu0)
			})
		}
	}
}

// BenchmarkStdioThroughput is calls per second over stdio with 16
// requests outstanding at a time (the client writes ahead of the
// answers), through the proxy (its passes run concurrently within the
// session) or directly.
func BenchmarkStdioThroughput(b *testing.B) {
	const window = 16
	for _, mode := range []string{"direct", "engine", "nats"} {
		for _, n := range benchSizes {
			b.Run(mode+"/"+sizeName(n), func(b *testing.B) {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), envBenchServer+"="+strconv.Itoa(n))
				cmd.Stderr = os.Stderr
				var w io.WriteCloser
				var r io.Reader
				done := make(chan struct{})
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
					go func() { cmd.Wait(); close(done) }()
				} else {
					p, err := proxy.New(benchSanitizer(b, mode), proxy.Options{})
					if err != nil {
						b.Fatal(err)
					}
					inR, inW := io.Pipe()
					outR, outW := io.Pipe()
					w, r = inW, outR
					go func() {
						(&proxy.Stdio{Proxy: p, Cmd: cmd}).Run(context.Background(), inR, outW)
						outW.Close()
						close(done)
					}()
				}
				// The writer keeps at most window requests unanswered.
				slots := make(chan struct{}, window)
				var wg sync.WaitGroup
				b.SetBytes(int64(n))
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime()
				t0 := time.Now()
				wg.Add(1)
				go func() {
					defer wg.Done()
					bw := bufio.NewWriter(w)
					for i := 0; i < b.N; i++ {
						slots <- struct{}{}
						fmt.Fprintf(bw, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"logs","arguments":{}}}`+"\n", i+1)
						bw.Flush()
					}
				}()
				br := bufio.NewReaderSize(r, 256<<10)
				for i := 0; i < b.N; i++ {
					line, err := br.ReadSlice('\n')
					for err == bufio.ErrBufferFull {
						_, err = br.ReadSlice('\n')
					}
					if err != nil || len(line) == 0 {
						b.Fatalf("read: %v", err)
					}
					<-slots
				}
				b.StopTimer()
				b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "calls/s")
				reportLatency(b, nil, cpu0)
				wg.Wait()
				w.Close()
				<-done
			})
		}
	}
}
