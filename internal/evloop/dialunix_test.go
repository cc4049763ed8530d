//go:build linux

package evloop

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
)

// unixEcho serves an echo of each line on a unix socket for the test and
// returns the socket's path.
func unixEcho(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "echo.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); c.Close() }()
		}
	}()
	return path
}

func TestDialUnixSocketExchanges(t *testing.T) {
	path := unixEcho(t)
	const tasks, rounds = 10, 20
	var done atomic.Int64
	runTasks(t, tasks, func(tk *Task) {
		d := Dialer{SockBuf: 64 << 10}
		c, err := d.DialContext(WithTask(context.Background(), tk), "unix", path)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		if ra, ok := c.RemoteAddr().(*net.UnixAddr); !ok || ra.Name != path {
			t.Errorf("RemoteAddr = %v, want the socket %s", c.RemoteAddr(), path)
		}
		buf := make([]byte, 5)
		for range rounds {
			if _, err := c.Write([]byte("ping\n")); err != nil {
				t.Error(err)
				return
			}
			if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping\n" {
				t.Errorf("read %q, %v", buf, err)
				return
			}
			done.Add(1)
		}
	})
	if n := done.Load(); n != tasks*rounds {
		t.Fatalf("%d exchanges over the unix socket, want %d", n, tasks*rounds)
	}
}

func TestDialUnixSocketMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.sock")
	var err error
	runTasks(t, 1, func(tk *Task) {
		var d Dialer
		_, err = d.DialContext(WithTask(context.Background(), tk), "unix", path)
	})
	var op *net.OpError
	if !errors.As(err, &op) || op.Net != "unix" || !errors.Is(err, syscall.ENOENT) {
		t.Fatalf("dial of a missing socket: %v, want a unix *net.OpError wrapping ENOENT", err)
	}
	if _, serr := os.Stat(path); !os.IsNotExist(serr) {
		t.Fatalf("the dial created %s", path)
	}
}

func TestDialUnixSocketRefusesLocalAddr(t *testing.T) {
	path := unixEcho(t)
	var err error
	runTasks(t, 1, func(tk *Task) {
		d := Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}}
		_, err = d.DialContext(WithTask(context.Background(), tk), "unix", path)
	})
	if !errors.Is(err, errUnixBind) {
		t.Fatalf("unix dial with LocalAddr: %v, want errUnixBind", err)
	}
}
