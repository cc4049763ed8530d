package testsupport

import (
	"bufio"
	"net"
	"strconv"
	"sync"
	"testing"
)

// Serve listens on a free loopback port and runs handle, in a goroutine of
// its own, for every connection accepted until the test ends; it returns
// the "127.0.0.1:PORT" address. handle owns the connection; whatever it
// leaves open is closed, with the listener, when the test ends.
func Serve(tb testing.TB, handle func(net.Conn)) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var mu sync.Mutex
	open := map[net.Conn]bool{}
	tb.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for c := range open {
			_ = c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open[c] = true
			mu.Unlock()
			go func() {
				defer func() {
					mu.Lock()
					delete(open, c)
					mu.Unlock()
					_ = c.Close()
				}()
				handle(c)
			}()
		}
	}()
	return ln.Addr().String()
}

// EchoLines starts a loopback server that answers each line (up to and
// including '\n') with the same line, and returns its address.
func EchoLines(tb testing.TB) string {
	tb.Helper()
	return Serve(tb, func(c net.Conn) {
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			if _, err := c.Write(line); err != nil {
				return
			}
		}
	})
}

// FreePort returns a loopback TCP port that was free a moment ago (another
// process may take it before the caller listens on it).
func FreePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// ClosedAddr returns a "127.0.0.1:PORT" address nothing listens on: a
// connection to it is refused.
func ClosedAddr(tb testing.TB) string {
	tb.Helper()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(FreePort(tb)))
}
