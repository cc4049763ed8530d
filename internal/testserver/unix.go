package testserver

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"time"
)

// removeStaleSocket makes path free for a unix socket listener: nothing
// there is fine, a socket nobody answers on (left by a killed server) is
// removed, and anything else is an error, so a typo never deletes a file.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("testserver: unix socket: %w", err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("testserver: unix socket: %s exists and is not a socket", path)
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return fmt.Errorf("testserver: unix socket: a server is listening on %s", path)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("testserver: unix socket: removing the stale socket: %w", err)
	}
	return nil
}
