//go:build linux

package evloop

import (
	"context"
	"net"
	"testing"
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
