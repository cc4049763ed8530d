//go:build unix

package gb_test

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gb-bench/gb"
)

// TestTargetsBodyFIFO: an @body that is a named pipe is refused with its
// file and line, as -p refuses one, instead of waiting for a writer.
func TestTargetsBodyFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "body.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	path := writeTargets(t, dir, "POST http://127.0.0.1:1/a\n@"+fifo+"\n")
	done := make(chan error, 1)
	go func() { _, err := gb.ReadTargets(path); done <- err }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("ReadTargets still waiting on a FIFO after a minute")
	}
	var ce *gb.ConfigError
	if want := path + ":2: body file \"" + fifo + "\" is not a regular file"; !errors.As(err, &ce) || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
