package h3

import (
	"context"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

// TestSockBuf: with Client.SockBuf (gb -b), each connection's UDP socket
// keeps that size once its handshake completed (Linux reports twice the
// size asked for), though quic-go enlarges new sockets' buffers to its
// own size; without it, quic-go's size stays.
func TestSockBuf(t *testing.T) {
	s := startServer(t, nil, hello)
	for _, n := range []int{0, 64 << 10} {
		cfg := newConfig(t, s.addr, 1, 30*time.Second, nil)
		cfg.Client.SockBuf = n
		c := New(context.Background(), cfg)
		if tl := drive1(t, c); tl.outcomes[stats.OK] != 1 {
			t.Fatalf("%+v", tl)
		}
		rcv, snd := bufSizes(t, c.cur[0].udp)
		c.Close()
		switch {
		case n > 0 && (rcv != 2*n || snd != 2*n):
			t.Errorf("SockBuf %d: SO_RCVBUF %d, SO_SNDBUF %d, want %d each", n, rcv, snd, 2*n)
		case n == 0 && (rcv <= 2*(64<<10) || snd <= 2*(64<<10)):
			t.Errorf("no SockBuf: SO_RCVBUF %d, SO_SNDBUF %d, want quic-go's larger size", rcv, snd)
		}
	}
}

// bufSizes is udp's SO_RCVBUF and SO_SNDBUF.
func bufSizes(t *testing.T, udp *net.UDPConn) (rcv, snd int) {
	t.Helper()
	rc, err := udp.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var e1, e2 error
	if err := rc.Control(func(fd uintptr) {
		rcv, e1 = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF)
		snd, e2 = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF)
	}); err != nil || e1 != nil || e2 != nil {
		t.Fatal(err, e1, e2)
	}
	return rcv, snd
}
