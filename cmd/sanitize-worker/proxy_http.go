package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/proxy"
)

// defaultProxyListen is where `proxy --upstream` listens without --listen:
// loopback only.
const defaultProxyListen = "127.0.0.1:8931"

// headerFlags collects repeated --upstream-header "Name: value" flags. Its
// String never shows a value (they are credentials), and a malformed one
// is reported by checkHTTP rather than by package flag, which would print
// the value.
type headerFlags struct {
	h   http.Header
	bad bool
}

func (f *headerFlags) String() string {
	if f == nil || len(f.h) == 0 {
		return ""
	}
	names := make([]string, 0, len(f.h))
	for k := range f.h {
		names = append(names, k)
	}
	return strings.Join(names, ",")
}

func (f *headerFlags) Set(s string) error {
	name, val, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") || strings.ContainsAny(val, "\r\n") {
		f.bad = true
		return nil
	}
	if f.h == nil {
		f.h = http.Header{}
	}
	f.h.Add(name, strings.TrimSpace(val))
	return nil
}

func (f *proxyFlags) registerHTTP(fs *flag.FlagSet) {
	fs.StringVar(&f.upstream, "upstream", "", "Streamable HTTP `URL` of the MCP server to relay to (instead of a server command)")
	fs.StringVar(&f.listen, "listen", "", "`ADDR` to serve the proxied endpoint on, with --upstream (default "+defaultProxyListen+", loopback)")
	fs.Var(&f.headers, "upstream-header", "`\"Name: value\"` added to every upstream request (repeatable; for the upstream's authorization; never logged)")
}

func (f *proxyFlags) checkHTTP() error {
	if f.headers.bad {
		return errors.New(`--upstream-header: want "Name: value" (the value is not shown)`)
	}
	if f.upstream == "" {
		if len(f.headers.h) > 0 {
			return errors.New("--upstream-header goes with --upstream")
		}
		return nil
	}
	u, err := url.Parse(f.upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("--upstream must be an http or https URL")
	}
	if u.User != nil {
		return errors.New("--upstream must not carry credentials; use --upstream-header")
	}
	if f.listen == "" {
		f.listen = defaultProxyListen
	}
	if _, _, err := net.SplitHostPort(f.listen); err != nil {
		return errors.New("--listen must be host:port")
	}
	return nil
}

// loopbackAddr reports whether a listen address is on loopback.
func loopbackAddr(addr string) bool {
	host, _, _ := net.SplitHostPort(addr)
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// runProxyHTTP serves the Streamable HTTP relay until ctx ends.
func runProxyHTTP(ctx context.Context, p *proxy.Proxy, f *proxyFlags, log *slog.Logger, stderr io.Writer) int {
	u, _ := url.Parse(f.upstream)
	h := &proxy.HTTP{Proxy: p, Upstream: u, Header: f.headers.h, Loopback: loopbackAddr(f.listen)}
	l, err := net.Listen("tcp", f.listen)
	if err != nil {
		fmt.Fprintln(stderr, "sanitize-worker proxy: cannot listen on --listen")
		return exitFailure
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	fmt.Fprintf(stderr, "sanitize-worker proxy: relaying http://%s/ to the upstream\n", l.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		return exitOK
	case err := <-done:
		if errors.Is(err, http.ErrServerClosed) {
			return exitOK
		}
		fmt.Fprintln(stderr, "sanitize-worker proxy: serving failed")
		return exitFailure
	}
}
