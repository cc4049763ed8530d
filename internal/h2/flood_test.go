package h2

import (
	"context"
	"errors"
	"io"
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

// lastConn is a connection whose reads return the peer's close (io.EOF)
// with the bytes before it, as a TLS connection does when the server's
// close_notify follows its last record: after bytes, it waits up to a
// second for the close.
type lastConn struct{ net.Conn }

func (c lastConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n == 0 || err != nil || n == len(p) {
		return n, err
	}
	_ = c.Conn.SetReadDeadline(time.Now().Add(time.Second))
	defer c.Conn.SetReadDeadline(time.Time{})
	m, err := c.Conn.Read(p[n:])
	if errors.Is(err, io.EOF) {
		return n + m, io.EOF
	}
	return n + m, nil
}

type lastDialer struct{ net.Dialer }

func (d *lastDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	nc, err := d.Dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return lastConn{nc}, nil
}

// TestResponseWithTheClose: each connection answers one request and
// closes at once, and gb's read returns the response with the close:
// every response is ok (gb once failed them as failed.truncated, 4 in
// 5000 requests against nginx, whose TLS close_notify followed its
// connection's last response).
func TestResponseWithTheClose(t *testing.T) {
	s := startScripted(t, &scripted{})
	s.handle(func(c *sconn, id uint32, n int64) {
		c.respond(id, 200, []byte("ok"))
		_ = c.nc.Close()
	})
	c := New(context.Background(), clientConfig(t, s.addr, false, nil, 1, 10*time.Second))
	c.dialer = &lastDialer{}
	defer c.Close()
	for range 3 {
		var x load.Exchange
		if o := c.Do(&x); o != stats.OK {
			t.Errorf("outcome %v (%v), want ok", o, x.Err)
		}
	}
}

// TestFloodWithTheSettings: a server whose SETTINGS come with a flood of
// more SETTINGS frames: each request's connection fails as
// failed.protocol saying so, not failed.connect.
func TestFloodWithTheSettings(t *testing.T) { bothEngines(t, testFloodWithTheSettings) }

func testFloodWithTheSettings(t *testing.T, loops int) {
	flood := probe.Frames(64<<10, func(fr *http2.Framer) { _ = fr.WriteSettings() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				go io.Copy(io.Discard, nc)
				for range 4 {
					if _, err := nc.Write(flood); err != nil {
						return
					}
				}
			}()
		}
	}()
	cfg := clientConfig(t, ln.Addr().String(), false, nil, 2, 2*time.Second)
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 10, Loops: loops})
	checkCounts(t, res)
	if o := res.Counts.Outcomes; o[stats.FailProtocol] != 10 || !hasError(res, "flooded") {
		t.Errorf("outcomes %v, errors %v: want 10 failed.protocol for the flood", o, res.Counts.Errors)
	}
}
