//go:build linux

package evloop

import (
	"context"
	"net"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gb-bench/gb/internal/testsupport"
)

// TestDialerAddressesInTurn: one Dialer (as one worker's) dials an IPv4
// and an IPv6 listener in turn; each connection reaches the listener it
// names (the parsed address is cached per Dialer, and must follow it).
func TestDialerAddressesInTurn(t *testing.T) {
	var addrs []string
	for _, hp := range []string{"127.0.0.1:0", "[::1]:0"} {
		ln, err := net.Listen("tcp", hp)
		if err != nil {
			t.Logf("%s: %v (skipped)", hp, err)
			continue
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				_, _ = c.Write([]byte(ln.Addr().String()))
				_ = c.Close()
			}
		}()
		addrs = append(addrs, ln.Addr().String())
	}
	var d Dialer
	runTasks(t, 1, func(tk *Task) {
		ctx := WithTask(context.Background(), tk)
		for range 3 {
			for _, a := range addrs {
				c, err := d.DialContext(ctx, "tcp", a)
				if err != nil {
					t.Errorf("dial %s: %v", a, err)
					return
				}
				buf := make([]byte, 64)
				n, _ := c.Read(buf)
				if got := string(buf[:n]); got != a || c.RemoteAddr().String() != a {
					t.Errorf("dialed %s: reached %q, RemoteAddr %v", a, got, c.RemoteAddr())
				}
				_ = c.Close()
			}
		}
	})
}

// TestDialerSetsNoDelayUnlessNagle: a Dialer sets TCP_NODELAY, as every
// client does, except with Nagle (connections that carry one request).
func TestDialerSetsNoDelayUnlessNagle(t *testing.T) {
	addr := testsupport.EchoLines(t)
	for _, nagle := range []bool{false, true} {
		var got int
		var derr error
		runTasks(t, 1, func(tk *Task) {
			d := Dialer{Nagle: nagle}
			c, err := d.DialContext(WithTask(context.Background(), tk), "tcp", addr)
			if err != nil {
				derr = err
				return
			}
			defer c.Close()
			got, derr = unix.GetsockoptInt(c.(*Conn).fd, unix.IPPROTO_TCP, unix.TCP_NODELAY)
		})
		if want := map[bool]int{false: 1, true: 0}[nagle]; derr != nil || (got != 0) != (want != 0) {
			t.Errorf("Nagle %v: TCP_NODELAY = %d, %v; want %d", nagle, got, derr, want)
		}
	}
}
