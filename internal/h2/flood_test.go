package h2

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/probe"
	"github.com/gb-bench/gb/stats"
	"golang.org/x/net/http2"
)

// deafConn is a connection whose deadlines never fire: an event loop's
// socket while its task keeps reading (the loop checks deadlines only
// when a task parks, and a server that sends faster than gb parses never
// lets it park).
type deafConn struct{ net.Conn }

func (deafConn) SetDeadline(time.Time) error      { return nil }
func (deafConn) SetReadDeadline(time.Time) error  { return nil }
func (deafConn) SetWriteDeadline(time.Time) error { return nil }

type deafDialer struct{ net.Dialer }

func (d *deafDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	nc, err := d.Dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return deafConn{nc}, nil
}

// TestDeadlineWhileFlooded: a server that never answers and sends PING
// frames without end, over a connection whose own deadlines never fire:
// the request still ends at -s, as failed.timeout.ttfb, because gb checks
// the deadline after every read.
func TestDeadlineWhileFlooded(t *testing.T) {
	pings := probe.Frames(64<<10, func(fr *http2.Framer) { _ = fr.WritePing(false, [8]byte{1}) })
	srv, err := probe.StartH2(func(c *probe.H2Conn, id uint32, n int) { c.Flood(pings, -1) })
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := New(context.Background(), clientConfig(t, srv.Addr(), false, nil, 1, 200*time.Millisecond))
	c.dialer = &deafDialer{}
	done := make(chan stats.Outcome, 1)
	var x load.Exchange
	go func() { done <- c.Do(&x) }()
	select {
	case o := <-done:
		c.Close()
		if o != stats.TimeoutFirstByte {
			t.Errorf("outcome %v (%v), want %v", o, x.Err, stats.TimeoutFirstByte)
		}
	case <-time.After(time.Minute):
		t.Fatal("the request did not end within a minute under a PING flood (-s 200ms)")
	}
}
