package h3

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

// relay forwards UDP datagrams between clients and a server, dropping
// every dropEvery-th one in each direction (0 = none, 1 = all): packet
// loss, deterministic, on loopback. Each client address gets a socket of
// its own towards the server.
type relay struct {
	ln        *net.UDPConn
	server    *net.UDPAddr
	dropEvery int64
	n         atomic.Int64
	dropped   atomic.Int64
	mu        sync.Mutex
	up        map[string]*net.UDPConn // client address -> its socket to the server
}

// startRelay relays to server until the test ends.
func startRelay(t *testing.T, server string, dropEvery int64) *relay {
	t.Helper()
	ln, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	sa, _ := net.ResolveUDPAddr("udp", server)
	r := &relay{ln: ln, server: sa, dropEvery: dropEvery, up: map[string]*net.UDPConn{}}
	go r.serve()
	t.Cleanup(func() {
		_ = ln.Close()
		r.mu.Lock()
		for _, u := range r.up {
			_ = u.Close()
		}
		r.mu.Unlock()
	})
	return r
}

func (r *relay) addr() string { return r.ln.LocalAddr().String() }

// drop reports whether the next datagram is dropped.
func (r *relay) drop() bool {
	if r.dropEvery > 0 && r.n.Add(1)%r.dropEvery == 0 {
		r.dropped.Add(1)
		return true
	}
	return false
}

func (r *relay) serve() {
	buf := make([]byte, 64<<10)
	for {
		n, from, err := r.ln.ReadFromUDP(buf)
		if err != nil {
			return
		}
		up := r.upstream(from)
		if up == nil || r.drop() {
			continue
		}
		_, _ = up.Write(buf[:n])
	}
}

// upstream returns from's socket to the server, opening it (and its
// return path) on first use.
func (r *relay) upstream(from *net.UDPAddr) *net.UDPConn {
	r.mu.Lock()
	defer r.mu.Unlock()
	if u, ok := r.up[from.String()]; ok {
		return u
	}
	u, err := net.DialUDP("udp", nil, r.server)
	if err != nil {
		return nil
	}
	r.up[from.String()] = u
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := u.Read(buf)
			if err != nil {
				return
			}
			if !r.drop() {
				_, _ = r.ln.WriteToUDP(buf[:n], from)
			}
		}
	}()
	return u
}

// TestPacketLoss: one datagram in 100 lost each way: QUIC retransmits,
// the run completes, every request ends once and the oks equal what the
// server served.
func TestPacketLoss(t *testing.T) {
	s := startServer(t, nil, hello)
	r := startRelay(t, s.addr, 100)
	c := New(context.Background(), newConfig(t, r.addr(), 4, 30*time.Second, nil))
	tl := drive(t, c, 400)
	if tl.total() != 400 || int64(tl.outcomes[stats.OK]) != s.served.Load() || tl.outcomes[stats.OK] != 400 || r.dropped.Load() == 0 {
		t.Errorf("%+v %v, served %d, dropped %d", tl, tl.errs, s.served.Load(), r.dropped.Load())
	}
}

// TestPacketLossTotal: every datagram lost: the connect fails in bounded
// time (the connect timeout) with timeout.connect, for each request
// tried; nothing reached the server.
func TestPacketLossTotal(t *testing.T) {
	s := startServer(t, nil, hello)
	r := startRelay(t, s.addr, 1)
	cfg := newConfig(t, r.addr(), 2, 30*time.Second, nil)
	cfg.quic.HandshakeIdleTimeout = 300 * time.Millisecond // as Client.ConnectTimeout sets it
	c := New(context.Background(), cfg)
	tl := drive(t, c, 3)
	if tl.outcomes[stats.TimeoutConnect] != 3 || s.served.Load() != 0 || tl.opened != 0 {
		t.Errorf("%+v %v, served %d", tl, tl.errs, s.served.Load())
	}
}
