package h3

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// TestConnectionClose: the server closes its connection with an HTTP/3
// error (CONNECTION_CLOSE, H3_INTERNAL_ERROR) on every 25th request. The
// requests in flight then are failed.protocol (as under an HTTP/2 GOAWAY
// with an error); the client reconnects and the rest are ok; every
// request ends once, and the oks never exceed what the server served.
func TestConnectionClose(t *testing.T) {
	var n atomic.Int64
	s := startServer(t, nil, func(_ *server, w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%25 == 0 {
			qc := r.Context().Value(connKey{}).(*quic.Conn)
			_ = qc.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeInternalError), "closing")
			return
		}
		_, _ = w.Write([]byte("hello\n"))
	})
	c := New(context.Background(), newConfig(t, s.addr, 4, 30*time.Second, nil))
	tl := drive(t, c, 200)
	ok := tl.outcomes[stats.OK]
	if tl.total() != 200 || tl.outcomes[stats.FailProtocol] == 0 || ok == 0 || int64(ok) > s.served.Load() ||
		tl.opened < 2 || tl.opened != tl.closed || ok+tl.outcomes[stats.FailProtocol] != 200 {
		t.Errorf("%+v %v, served %d", tl, tl.errs, s.served.Load())
	}
}

// TestStreamReset: the server resets every third request's stream
// (RESET_STREAM), some after part of the body: each is failed.reset, as
// HTTP/2's RST_STREAM, and the connection carries on.
func TestStreamReset(t *testing.T) {
	var n atomic.Int64
	s := startServer(t, nil, func(_ *server, w http.ResponseWriter, _ *http.Request) {
		switch n.Add(1) % 6 {
		case 0:
			panic(http.ErrAbortHandler) // before the response
		case 3:
			w.Header().Set("Content-Length", "100")
			_, _ = w.Write([]byte("part"))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // inside the body
		}
		_, _ = w.Write([]byte("hello\n"))
	})
	c := New(context.Background(), newConfig(t, s.addr, 3, 30*time.Second, nil))
	tl := drive(t, c, 90)
	if tl.outcomes[stats.FailReset] != 30 || tl.outcomes[stats.OK] != 60 || tl.opened != 1 || s.served.Load() != 90 {
		t.Errorf("%+v %v, served %d", tl, tl.errs, s.served.Load())
	}
}

// TestStall: a server that never answers (nor reads a body) holds each
// request until -s: each ends as timeout.first_byte, in bounded time, and
// the client's streams are free for the next requests.
func TestStall(t *testing.T) {
	release := make(chan struct{})
	s := startServer(t, nil, func(_ *server, _ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	c := New(context.Background(), newConfig(t, s.addr, 4, 300*time.Millisecond, nil))
	tl := drive(t, c, 8)
	// -s bounds the connect too: on a busy machine a handshake may take
	// longer than this short -s, and its requests end as timeout.connect.
	if tl.outcomes[stats.TimeoutFirstByte]+tl.outcomes[stats.TimeoutConnect] != 8 {
		t.Errorf("%+v %v", tl, tl.errs)
	}
}

// TestFlowControlStall: a request body larger than the server's stream
// window, which the server never reads: the upload stalls on QUIC flow
// control until -s; each request ends once, as a timeout or a write
// failure, in bounded time.
func TestFlowControlStall(t *testing.T) {
	release := make(chan struct{})
	s := startServer(t, &quic.Config{InitialStreamReceiveWindow: 16 << 10, MaxStreamReceiveWindow: 16 << 10,
		InitialConnectionReceiveWindow: 64 << 10, MaxConnectionReceiveWindow: 64 << 10},
		func(_ *server, _ http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		})
	defer close(release)
	cfg := newConfig(t, s.addr, 2, 300*time.Millisecond, nil)
	cfg.reqs[0].body = make([]byte, 1<<20)
	cfg.reqs[0].req.ContentLength = int64(len(cfg.reqs[0].body))
	c := New(context.Background(), cfg)
	tl := drive(t, c, 4)
	if tl.total() != 4 || tl.outcomes[stats.TimeoutFirstByte]+tl.outcomes[stats.FailWrite]+tl.outcomes[stats.TimeoutConnect] != 4 {
		t.Errorf("%+v %v", tl, tl.errs)
	}
}

// TestIdleTimeout: the server's idle timeout (200 ms) ends the connection
// between requests sent one at a time with pauses longer than it: the
// client sees its connection gone and opens a new one, and every request
// is ok (none is sent on the dead connection).
func TestIdleTimeout(t *testing.T) {
	s := startServer(t, &quic.Config{MaxIdleTimeout: 200 * time.Millisecond}, hello)
	c := New(context.Background(), newConfig(t, s.addr, 1, 30*time.Second, nil))
	tl := &tally{outcomes: map[stats.Outcome]int{}}
	for range 2 {
		one := drive1(t, c)
		tl.outcomes[stats.OK] += one.outcomes[stats.OK]
		tl.opened += one.opened
		time.Sleep(time.Second) // several idle timeouts: the connection is gone by now
	}
	c.Close()
	if tl.outcomes[stats.OK] != 2 || tl.opened < 2 {
		t.Errorf("%+v", tl)
	}
}

// drive1 sends one request through c with Do and leaves c open.
func drive1(t *testing.T, c *Client) *tally {
	t.Helper()
	stop := time.AfterFunc(hang, c.Interrupt)
	defer stop.Stop()
	var x = new(loadExchange)
	o := c.Do(&x.Exchange)
	tl := &tally{outcomes: map[stats.Outcome]int{o: 1}, opened: x.Opened}
	if o != stats.OK {
		t.Logf("outcome %v: %v", o, x.Err)
	}
	return tl
}

// TestEarlyData: with a session cache, a second connection resumes the
// first's session and sends its GET in 0-RTT; the server saw a request
// before its handshake completed.
func TestEarlyData(t *testing.T) {
	var early atomic.Int64
	s := startServer(t, &quic.Config{Allow0RTT: true}, func(_ *server, w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil && !r.TLS.HandshakeComplete {
			early.Add(1)
		}
		_, _ = w.Write([]byte("hello\n"))
	})
	cfg := newConfig(t, s.addr, 1, 30*time.Second, &tls.Config{ClientSessionCache: tls.NewLRUClientSessionCache(4)})
	if !cfg.EarlyData {
		t.Fatal("a GET with a session cache does not ask for early data")
	}
	c := New(context.Background(), cfg)
	resumed := 0
	for range 3 {
		x := new(loadExchange)
		if o := c.Do(&x.Exchange); o != stats.OK {
			t.Fatalf("outcome %v: %v", o, x.Err)
		}
		if x.Resumed {
			resumed++
		}
		c.Close()
	}
	if resumed != 2 || early.Load() == 0 || s.served.Load() != 3 {
		t.Errorf("resumed %d of 3, early %d, served %d", resumed, early.Load(), s.served.Load())
	}
}

// TestNoH3ALPN: a QUIC server that does not offer ALPN h3: the connect is
// failed.tls with a Fatal error (the run stops: every request would fail
// the same way), saying the server does not speak HTTP/3.
func TestNoH3ALPN(t *testing.T) {
	crt, _ := testCert(t)
	ln, err := quic.ListenAddr("127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{crt}, NextProtos: []string{"other"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			if _, err := ln.Accept(context.Background()); err != nil {
				return
			}
		}
	}()
	c := New(context.Background(), newConfig(t, ln.Addr().String(), 1, 30*time.Second, nil))
	tl := drive(t, c, 1)
	var f *load.Fatal
	if tl.outcomes[stats.FailTLS] != 1 || len(tl.errs) != 1 || !errors.As(tl.errs[0], &f) ||
		!strings.Contains(tl.errs[0].Error(), "does not speak HTTP/3") {
		t.Errorf("%+v %v", tl, tl.errs)
	}
}

// TestLargeBodyMemory: a 64 MiB response body is read through the
// stream's reused buffer, not held: the process (client and server)
// allocates less than half the body while it crosses.
func TestLargeBodyMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates: the byte count means nothing under it")
	}
	const size = 64 << 20
	chunk := make([]byte, 64<<10)
	s := startServer(t, nil, func(_ *server, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(size))
		for n := 0; n < size; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	c := New(context.Background(), newConfig(t, s.addr, 1, 60*time.Second, nil))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	x := new(loadExchange)
	o := c.Do(&x.Exchange)
	runtime.ReadMemStats(&after)
	c.Close()
	if o != stats.OK || x.Body != size {
		t.Fatalf("outcome %v, body %d: %v", o, x.Body, x.Err)
	}
	// About 11 MB here, mostly quic-go's per-packet work on both sides; a
	// client holding the body would add its 64 MiB.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > size/2 {
		t.Errorf("allocated %d bytes while a %d-byte body crossed", grew, size)
	}
}

// TestRequestRejected: the server rejects its first connection's third
// stream unprocessed (H3_REQUEST_REJECTED, RFC 9114 §4.1.1): that request
// goes again, once, on a new connection, and ends ok; nothing is lost or
// counted twice.
func TestRequestRejected(t *testing.T) {
	var first atomic.Pointer[quic.Conn]
	var onFirst atomic.Int64
	s := startServer(t, nil, func(_ *server, w http.ResponseWriter, r *http.Request) {
		qc := r.Context().Value(connKey{}).(*quic.Conn)
		first.CompareAndSwap(nil, qc)
		if first.Load() == qc && onFirst.Add(1) == 3 {
			str, err := w.(http3.HTTPStreamer).HTTPStream()
			if err == nil {
				str.CancelRead(quic.StreamErrorCode(http3.ErrCodeRequestRejected))
				str.CancelWrite(quic.StreamErrorCode(http3.ErrCodeRequestRejected))
			}
			return
		}
		_, _ = w.Write([]byte("hello\n"))
	})
	c := New(context.Background(), newConfig(t, s.addr, 2, 30*time.Second, nil))
	tl := drive(t, c, 40)
	if tl.outcomes[stats.OK] != 40 || tl.total() != 40 || s.served.Load() != 41 || tl.opened != 2 || tl.closed != 2 {
		t.Errorf("%+v %v, served %d", tl, tl.errs, s.served.Load())
	}
}
