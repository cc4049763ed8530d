package client

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/probe"
	"github.com/gb-bench/gb/stats"
)

// countServer reads requests one at a time on each connection, counts
// them, and lets answer reply to the i-th request of the connection (from
// 0); answer returns false to close the connection at once.
type countServer struct {
	*probe.Server
	addr string
}

func newCountServer(t *testing.T, answer func(c net.Conn, i int) bool) *countServer {
	srv, err := probe.Start(func(c *probe.Conn) {
		for c.ReadRequest() && answer(c, c.N-1) {
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &countServer{srv, srv.Addr()}
}

// settled waits until the client closed every connection and returns how
// many requests the server read.
func (s *countServer) settled(t *testing.T) int64 {
	n, err := s.Settle(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

const okResponse = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

func batch(f *Fast, n int) ([]load.Exchange, []stats.Outcome) {
	xs, outs := make([]load.Exchange, n), make([]stats.Outcome, n)
	f.DoBatch(xs, outs)
	return xs, outs
}

// TestPipelineBatchBytesBounded: requests of 300 KiB pipelined 16 deep
// go out in writes of at most MaxBatchBytes, and all are answered.
func TestPipelineBatchBytesBounded(t *testing.T) {
	srv := newCountServer(t, func(c net.Conn, _ int) bool {
		_, err := io.WriteString(c, okResponse)
		return err == nil
	})
	big := strings.Repeat("a", 300<<10)
	req := h1.Request{Host: srv.addr, Headers: []h1.Header{{Name: "X-Big", Value: big}}}
	newCfg := func() *Config {
		return &Config{Addr: srv.addr, Request: req.Append(nil), KeepAlive: true, Idempotent: true, Timeout: 5 * time.Second}
	}
	forEachEngine(t, newCfg, func(t *testing.T, f *Fast) {
		_, outs := batch(f, 16)
		for i, o := range outs {
			if o != stats.OK {
				t.Errorf("request %d: %v", i, o)
			}
		}
		if b := f.cfg.batchBytes.Load(); b == nil || len(*b) > MaxBatchBytes {
			t.Errorf("batch buffer of %d bytes, want at most %d", len(*b), MaxBatchBytes)
		}
	})
}

// closeAfterFirst answers each connection's first request, reads its
// second and closes without a word.
func closeAfterFirst(c net.Conn, i int) bool {
	if i == 0 {
		_, err := io.WriteString(c, okResponse)
		return err == nil
	}
	return false
}

// TestPipelinedPostNeverResent: after a silent close, the unanswered
// pipelined POSTs (which the server may have processed) fail as
// failed.stale_conn and are not sent again; GETs are.
func TestPipelinedPostNeverResent(t *testing.T) {
	for _, method := range []string{"POST", "GET"} {
		srv := newCountServer(t, closeAfterFirst)
		req := h1.Request{Method: method, Host: srv.addr}
		if method == "POST" {
			req.Body = []byte(`{"n":1}`)
		}
		cfg := &Config{Addr: srv.addr, Request: req.Append(nil), KeepAlive: true,
			Idempotent: method == "GET", Timeout: 5 * time.Second}
		t.Run(method, func(t *testing.T) {
			f := NewFast(t.Context(), cfg)
			defer f.Close()
			var ok, stale, retried int
			for range 20 {
				xs, outs := batch(f, 2)
				for i := range xs {
					switch {
					case outs[i] == stats.OK:
						ok++
					case outs[i] == stats.FailStaleConn && xs[i].Err != nil:
						stale++
					default:
						t.Errorf("outcome %v (%v)", outs[i], xs[i].Err)
					}
					if xs[i].Retried {
						retried++
					}
				}
			}
			f.Close()
			if method == "POST" && (ok != 20 || stale != 20 || retried != 0 || srv.settled(t) != 40) {
				t.Errorf("POST: ok %d stale %d retried %d, server read %d; want 20, 20, 0, 40", ok, stale, retried, srv.Reads())
			}
			if method == "GET" && (ok != 40 || retried == 0 || srv.settled(t) != int64(40+retried)) {
				t.Errorf("GET: ok %d retried %d, server read %d; want 40, some, 40 + retried", ok, retried, srv.Reads())
			}
		})
	}
}

// TestPipelineExtraResponsesDetected: a server that sends two responses
// to every request (here all sixteen for a batch of eight at once, so the
// extra bytes are there when the batch ends). A batch's responses after
// the first cannot be told from the extra ones: they fail
// (failed.protocol), the connection is not reused, and gb never counts
// more responses than the server read requests.
func TestPipelineExtraResponsesDetected(t *testing.T) {
	twice := strings.Repeat(okResponse, 16)
	srv := newCountServer(t, func(c net.Conn, i int) bool {
		if i%8 != 7 {
			return true
		}
		_, err := io.WriteString(c, twice)
		return err == nil
	})
	req := h1.Request{Host: srv.addr}
	newCfg := func() *Config {
		return &Config{Addr: srv.addr, Request: req.Append(nil), KeepAlive: true, Idempotent: true, Timeout: 5 * time.Second}
	}
	forEachEngine(t, newCfg, func(t *testing.T, f *Fast) {
		before := srv.Reads()
		var ok, protocol int
		for range 50 {
			xs, outs := batch(f, 8)
			for i, o := range outs {
				switch o {
				case stats.OK:
					ok++
				case stats.FailProtocol:
					protocol++
					if xs[i].Err != errUnsolicited {
						t.Errorf("failed.protocol with %v", xs[i].Err)
					}
				default:
					t.Errorf("outcome %v (%v)", o, xs[i].Err)
				}
			}
		}
		f.Close()
		read := srv.settled(t) - before
		if ok != 50 || protocol != 350 || read != 400 {
			t.Errorf("ok %d failed.protocol %d, server read %d; want 50, 350, 400", ok, protocol, read)
		}
	})
}

// TestPipelineFailuresAllCounted: every request of a batch that fails
// carries the error, so the errors tally counts each one.
func TestPipelineFailuresAllCounted(t *testing.T) {
	srv := newCountServer(t, func(c net.Conn, _ int) bool {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort") // then the close
		return false
	})
	addr := srv.addr
	req := h1.Request{Host: addr}
	newCfg := func() *Config {
		return &Config{Addr: addr, Request: req.Append(nil), KeepAlive: true, Idempotent: true, Timeout: 5 * time.Second}
	}
	forEachEngine(t, newCfg, func(t *testing.T, f *Fast) {
		xs, outs := batch(f, 6)
		for i := range xs {
			if outs[i].Responded() || xs[i].Err == nil || xs[i].Done.IsZero() {
				t.Errorf("request %d: outcome %v, err %v, done %v: want a failure with its error and end", i, outs[i], xs[i].Err, xs[i].Done)
			}
		}
	})
}

func TestZeroAllocationsPerPipelinedBatch(t *testing.T) {
	addr := rawServer(t, okResponse)
	req := h1.Request{Host: addr}
	newCfg := func() *Config {
		return &Config{Addr: addr, Request: req.Append(nil), KeepAlive: true, Idempotent: true}
	}
	forEachEngine(t, newCfg, func(t *testing.T, f *Fast) {
		xs, outs := batch(f, 8) // connect and grow the shared batch outside the measurement
		allocs := testing.AllocsPerRun(100, func() {
			clear(xs)
			f.DoBatch(xs, outs)
			if outs[7] != stats.OK {
				t.Fatalf("outcome %v: %v", outs[7], xs[7].Err)
			}
		})
		if allocs != 0 {
			t.Errorf("%.1f allocations per batch, want 0", allocs)
		}
	})
}
