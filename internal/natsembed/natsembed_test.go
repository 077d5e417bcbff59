package natsembed

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the server's logging goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStartLoopbackJetStream talks the NATS protocol by hand (INFO,
// CONNECT, PING/PONG) so that this package stays free of the client.
func TestStartLoopbackJetStream(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nats")
	var logs syncBuffer
	s, err := Start(Options{
		Dir:    dir,
		Port:   RandomPort,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Shutdown(); s.WaitForShutdown() }()

	url := s.ClientURL()
	if !strings.HasPrefix(url, "nats://127.0.0.1:") || strings.HasSuffix(url, ":4222") {
		t.Fatalf("ClientURL %q: want loopback and a random port", url)
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
		t.Fatalf("store dir: %v %v", st, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "jetstream")); err != nil {
		t.Fatalf("JetStream store not under Dir: %v", err)
	}

	c, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "nats://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "INFO ") {
		t.Fatalf("INFO: %q %v", line, err)
	}
	var info struct {
		Host      string `json:"host"`
		JetStream bool   `json:"jetstream"`
		AuthReq   bool   `json:"auth_required"`
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "INFO ")), &info); err != nil {
		t.Fatal(err)
	}
	if !info.JetStream || info.Host != Host {
		t.Fatalf("INFO: %+v", info)
	}
	if _, err := c.Write([]byte("CONNECT {\"verbose\":false}\r\nPING\r\n")); err != nil {
		t.Fatal(err)
	}
	if line, err := r.ReadString('\n'); err != nil || line != "PONG\r\n" {
		t.Fatalf("PONG: %q %v", line, err)
	}
	// Notices stay out of the log unless Verbose.
	if strings.Contains(logs.String(), "Starting nats-server") {
		t.Fatalf("notice logged without Verbose: %s", logs.String())
	}
}

func TestStartVerboseLogsNotices(t *testing.T) {
	var logs syncBuffer
	s, err := Start(Options{
		Dir:     t.TempDir(),
		Port:    RandomPort,
		Logger:  slog.New(slog.NewJSONHandler(&logs, nil)),
		Verbose: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Shutdown()
	s.WaitForShutdown()
	if !strings.Contains(logs.String(), `"level":"INFO"`) || !strings.Contains(logs.String(), "Starting nats-server") {
		t.Fatalf("no notices with Verbose: %s", logs.String())
	}
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if !json.Valid([]byte(l)) {
			t.Fatalf("log line is not JSON: %q", l)
		}
	}
}

func TestStartRefusesBadOptions(t *testing.T) {
	tests := []struct {
		name string
		o    Options
	}{
		{"no-dir", Options{Port: RandomPort}},
		{"port-too-large", Options{Dir: t.TempDir(), Port: 70000}},
		{"port-negative", Options{Dir: t.TempDir(), Port: -2}},
		{"negative-payload", Options{Dir: t.TempDir(), Port: RandomPort, MaxPayload: -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Start(tc.o)
			if s != nil {
				s.Shutdown()
			}
			if !errors.Is(err, ErrInvalidOptions) {
				t.Fatalf("err = %v, want ErrInvalidOptions", err)
			}
		})
	}
}

func TestStartPortInUse(t *testing.T) {
	s, err := Start(Options{Dir: t.TempDir(), Port: RandomPort})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Shutdown(); s.WaitForShutdown() }()
	port := s.Addr().(*net.TCPAddr).Port
	s2, err := Start(Options{Dir: t.TempDir(), Port: port, ReadyTimeout: time.Second})
	if err == nil {
		s2.Shutdown()
		t.Fatal("second server on the same port started")
	}
}
