package natsembed

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// LockFileName is the lock file in the store directory. It holds the
// decimal pid of the process whose embedded server uses the store; the
// lock itself is an advisory whole-file lock (flock on Unix, LockFileEx on
// Windows) that the kernel drops when the process ends, so a crash leaves
// no stale lock, only a stale pid that the next holder overwrites.
const LockFileName = "sanitize-worker.lock"

// maxPIDBytes is the most of the lock file read for the holder's pid.
const maxPIDBytes = 32

// noPIDWait is how long a lock whose file holds no pid is waited for: its
// holder is writing its pid or releasing the lock.
const noPIDWait = time.Second

// ErrStoreLocked reports a store directory that another embedded server
// uses; errors.As gives the *StoreLockedError with the holder.
var ErrStoreLocked = errors.New("natsembed: store directory in use")

// StoreLockedError is a store directory held by another process (or by an
// embedded server of this process that is still running).
type StoreLockedError struct {
	Dir      string // the store directory
	LockFile string // its lock file
	PID      int    // the holder's pid as it wrote it; 0 when unreadable
}

func (e *StoreLockedError) Error() string {
	holder := "another process"
	if e.PID > 0 {
		holder = "process " + strconv.Itoa(e.PID)
	}
	return fmt.Sprintf("natsembed: store directory %s is in use by %s (lock file %s)", e.Dir, holder, e.LockFile)
}

func (e *StoreLockedError) Unwrap() error { return ErrStoreLocked }

// storeLock is a held lock on a store directory.
type storeLock struct{ f *os.File }

// lockStore takes the lock of dir, or fails at once with a
// *StoreLockedError naming the holder. A lock held by this process (an
// embedded server of ours still shutting down, as in a restart) is waited
// for up to wait.
func lockStore(dir string, wait time.Duration) (*storeLock, error) {
	path := filepath.Join(dir, LockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("natsembed: lock file: %w", err)
	}
	start := time.Now()
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("natsembed: locking the store: %w", err)
		}
		if ok {
			break
		}
		// Held by this process: wait for our own server to let it go.
		// Held with no pid written: a holder between its lock and its
		// pid, or one between emptying the file and unlocking it, so a
		// moment. Held by another pid: fail at once.
		pid := readPID(f)
		waited := time.Since(start)
		if pid == os.Getpid() && waited < wait || pid == 0 && waited < noPIDWait {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		f.Close()
		return nil, &StoreLockedError{Dir: dir, LockFile: path, PID: pid}
	}
	if err := writePID(f); err != nil {
		unlock(f)
		f.Close()
		return nil, fmt.Errorf("natsembed: lock file: %w", err)
	}
	return &storeLock{f: f}, nil
}

// release empties the lock file and drops the lock.
func (l *storeLock) release() {
	l.f.Truncate(0)
	unlock(l.f)
	l.f.Close()
}

func readPID(f *os.File) int {
	b := make([]byte, maxPIDBytes)
	n, _ := f.ReadAt(b, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

func writePID(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}
