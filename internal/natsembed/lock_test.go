package natsembed

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// lockChildEnv names the store directory for TestStoreLockChild, the
// second process of TestStoreLockSecondProcess.
const lockChildEnv = "NATSEMBED_LOCK_CHILD_DIR"

// TestStoreLockChild is the second process: it starts a server on the
// directory in lockChildEnv and prints what Start said.
func TestStoreLockChild(t *testing.T) {
	dir := os.Getenv(lockChildEnv)
	if dir == "" {
		t.Skip("the second process of TestStoreLockSecondProcess")
	}
	s, err := Start(Options{Dir: dir, Port: RandomPort})
	var le *StoreLockedError
	switch {
	case errors.As(err, &le):
		os.Stdout.WriteString("LOCKED " + strconv.Itoa(le.PID) + " " + err.Error() + "\n")
	case err != nil:
		os.Stdout.WriteString("ERROR " + err.Error() + "\n")
	default:
		os.Stdout.WriteString("STARTED\n")
		s.Shutdown()
		s.WaitForShutdown()
	}
}

// TestStoreLockSecondProcess: a second process's Start on a store in use
// fails at once, naming this process as the holder; once the first server
// shut down, the second starts.
func TestStoreLockSecondProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Start(Options{Dir: dir, Port: RandomPort})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, LockFileName))
	if err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Fatalf("lock file %q, %v: want this pid", b, err)
	}
	child := func() (string, time.Duration) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestStoreLockChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), lockChildEnv+"="+dir)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("second process: %v\n%s", err, out)
		}
		return string(out), time.Since(start)
	}
	out, took := child()
	want := "LOCKED " + strconv.Itoa(os.Getpid()) + " "
	if !strings.Contains(out, want) || !strings.Contains(out, "in use by process "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second process on a store in use: %s", out)
	}
	// "At once": the process start and nothing more, not the ready
	// timeout (10 s) nor a recovery of the streams.
	if took > 5*time.Second {
		t.Errorf("the second process took %v to fail", took)
	}
	s.Shutdown()
	s.WaitForShutdown()
	// The lock goes with the server; the process that waits for the
	// release is this one, so poll the file.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if out, _ = child(); strings.Contains(out, "STARTED") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("store still locked after the server shut down: %s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestStoreLockRestartInProcess: a server of this process that shut down
// leaves the store to the next one at once (tests and reconnect restart
// servers on one store).
func TestStoreLockRestartInProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	for i := 0; i < 3; i++ {
		s, err := Start(Options{Dir: dir, Port: RandomPort})
		if err != nil {
			t.Fatalf("start %d: %v", i, err)
		}
		s.Shutdown()
		s.WaitForShutdown()
	}
}

// TestStoreLockStalePID: a lock file left with a pid by a process that
// ended holds no lock.
func TestStoreLockStalePID(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, LockFileName), []byte("999999999\n"), 0o600)
	s, err := Start(Options{Dir: dir, Port: RandomPort})
	if err != nil {
		t.Fatal(err)
	}
	s.Shutdown()
	s.WaitForShutdown()
}

// TestStartPortTaken: a port another listener holds fails at once, and
// leaves the store unlocked.
func TestStartPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", Host+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	dir := filepath.Join(t.TempDir(), "store")
	start := time.Now()
	_, err = Start(Options{Dir: dir, Port: port})
	if !errors.Is(err, ErrPortInUse) {
		t.Fatalf("Start on a port in use: %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v", took)
	}
	s, err := Start(Options{Dir: dir, Port: RandomPort})
	if err != nil {
		t.Fatalf("the store stayed locked: %v", err)
	}
	s.Shutdown()
	s.WaitForShutdown()
}

// TestStoreLockNoPIDYet: a lock held while its file holds no pid (a holder
// between taking the lock and writing its pid, or between emptying the
// file and unlocking) is waited for a moment rather than refused.
func TestStoreLockNoPIDYet(t *testing.T) {
	dir := t.TempDir()
	l, err := lockStore(dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	l.f.Truncate(0) // as release does before it unlocks
	released := make(chan struct{})
	go func() {
		time.Sleep(200 * time.Millisecond)
		unlock(l.f)
		l.f.Close()
		close(released)
	}()
	l2, err := lockStore(dir, 0)
	if err != nil {
		t.Fatalf("a lock being released: %v", err)
	}
	<-released
	l2.release()
}
