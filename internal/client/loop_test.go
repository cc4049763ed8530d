//go:build linux

package client

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/evloop"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/stats"
)

// onLoop runs fn in a task of a new event loop with a Fast dialing through
// the loop (the event-loop engine's setup), and waits for it.
func onLoop(t *testing.T, cfg *Config, fn func(f *Fast)) {
	t.Helper()
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cfg.UseLoops()
	l.Go(func(tk *evloop.Task) {
		f := NewFast(evloop.WithTask(context.Background(), tk), cfg)
		defer f.Close()
		fn(f)
	})
	l.Run()
}

func TestLoopKeepAliveReusesOneConnection(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()
	onLoop(t, newConfig(t, srv, "GET", "/hello", true), func(f *Fast) {
		opened := 0
		for i := range 100 {
			x, o := do(f)
			if o != stats.OK || x.Body != 13 || string(x.Server) != "test/1.0 (extra)" {
				t.Fatalf("request %d: %v body %d server %q (%v)", i, o, x.Body, x.Server, x.Err)
			}
			opened += x.Opened
		}
		if opened != 1 {
			t.Errorf("%d connections opened for 100 keep-alive requests", opened)
		}
	})
}

func TestLoopChunkedAndNon2xx(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()
	onLoop(t, newConfig(t, srv, "GET", "/chunked", true), func(f *Fast) {
		if x, o := do(f); o != stats.OK || x.Body != 300 {
			t.Errorf("chunked: %v body %d (%v)", o, x.Body, x.Err)
		}
	})
	onLoop(t, newConfig(t, srv, "GET", "/missing", false), func(f *Fast) {
		if x, o := do(f); o != stats.Non2xx || x.Status != 404 || x.Closed != 1 {
			t.Errorf("missing: %v status %d closed %d", o, x.Status, x.Closed)
		}
	})
}

func TestLoopTimeoutBeforeFirstByte(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()
	cfg := newConfig(t, srv, "GET", "/slow", true)
	cfg.Timeout = 200 * time.Millisecond
	onLoop(t, cfg, func(f *Fast) {
		if x, o := do(f); o != stats.TimeoutFirstByte || x.Closed != 1 {
			t.Errorf("outcome %v closed %d err %v", o, x.Closed, x.Err)
		}
	})
}

func TestLoopInterruptEndsBlockedRequest(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()
	cfg := newConfig(t, srv, "GET", "/slow", true)
	cfg.Timeout = time.Minute
	onLoop(t, cfg, func(f *Fast) {
		time.AfterFunc(100*time.Millisecond, f.Interrupt)
		if x, o := do(f); o.Responded() {
			t.Errorf("outcome %v after Interrupt (%v)", o, x.Err)
		}
	})
}

func TestLoopConnectRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	req := h1.Request{Host: addr}
	onLoop(t, &Config{Addr: addr, Request: req.Append(nil)}, func(f *Fast) {
		if x, o := do(f); o != stats.FailConnect {
			t.Errorf("outcome %v (%v), want failed.connect", o, x.Err)
		}
	})
}

func TestLoopStaleConnectionRetriedOnce(t *testing.T) {
	addr := staleServer(t)
	req := h1.Request{Host: addr}
	onLoop(t, &Config{Addr: addr, Request: req.Append(nil), KeepAlive: true, Idempotent: true}, func(f *Fast) {
		if _, o := do(f); o != stats.OK {
			t.Fatalf("first request: %v", o)
		}
		time.Sleep(100 * time.Millisecond) // blocks the loop: fine with one task
		if x, o := do(f); o != stats.OK || !x.Retried || x.Opened != 1 {
			t.Errorf("outcome %v retried %v opened %d (%v)", o, x.Retried, x.Opened, x.Err)
		}
	})
}

func TestLoopTLSKeepAlive(t *testing.T) {
	srv := httptest.NewTLSServer(handler())
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "https://")
	req := h1.Request{Method: "GET", Target: "/hello", Host: addr}
	cfg := &Config{Addr: addr, Request: req.Append(nil), KeepAlive: true, Idempotent: true}
	cfg.TLS = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	cfg.TLS.ServerName = "example.com" // httptest's certificate names it
	onLoop(t, cfg, func(f *Fast) {
		opened := 0
		for i := range 20 {
			x, o := do(f)
			if o != stats.OK || x.Body != 13 {
				t.Fatalf("request %d: %v body %d (%v)", i, o, x.Body, x.Err)
			}
			opened += x.Opened
		}
		if opened != 1 {
			t.Errorf("%d TLS connections for 20 keep-alive requests", opened)
		}
	})
	if info, ok := cfg.TLSSession(); !ok || info.Version == "" {
		t.Errorf("no TLS session recorded: %+v", info)
	}
}

func TestLoopTLSHandshakeTimesOut(t *testing.T) {
	addr := rawServer(t, "") // accepts, reads, never answers: no ServerHello
	req := h1.Request{Host: addr}
	cfg := &Config{Addr: addr, Request: req.Append(nil), TLS: &tls.Config{InsecureSkipVerify: true}, ConnectTimeout: 200 * time.Millisecond}
	onLoop(t, cfg, func(f *Fast) {
		if x, o := do(f); o != stats.TimeoutTLS {
			t.Errorf("outcome %v (%v), want failed.timeout.tls", o, x.Err)
		}
	})
}

func TestLoopZeroAllocationsPerKeepAliveRequest(t *testing.T) {
	addr := rawServer(t, "HTTP/1.1 200 OK\r\nServer: raw\r\nContent-Length: 13\r\n\r\nHello, World!")
	req := h1.Request{Host: addr}
	onLoop(t, &Config{Addr: addr, Request: req.Append(nil), KeepAlive: true}, func(f *Fast) {
		var x load.Exchange
		f.Do(&x) // connect outside the measurement
		allocs := testing.AllocsPerRun(200, func() {
			x = load.Exchange{}
			if o := f.Do(&x); o != stats.OK {
				t.Fatalf("outcome %v: %v", o, x.Err)
			}
		})
		if allocs != 0 {
			t.Errorf("%.1f allocations per request on the loop, want 0", allocs)
		}
	})
}

// BenchmarkKeepAliveRequestLoop is BenchmarkKeepAliveRequestParallel on the
// event loop: 50 kept-alive connections on one loop, b.N requests among
// them. (Not one connection: the in-process server then runs only when the
// Go runtime polls its own netpoller while the loop sleeps in epoll_wait, a
// ping-pong that measures the runtime, not gb; against a server in another
// process one connection is faster on the loop, ~88 vs ~117 µs p50 against
// nginx here.)
func BenchmarkKeepAliveRequestLoop(b *testing.B) {
	for _, tasks := range []int{50} {
		b.Run(fmt.Sprintf("conns=%d", tasks), func(b *testing.B) {
			addr := rawServer(b, benchResponse)
			l, err := evloop.New()
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			req := h1.Request{Host: addr}
			cfg := &Config{Addr: addr, Request: req.Append(nil), KeepAlive: true}
			cfg.UseLoops()
			var budget atomic.Int64
			budget.Store(int64(b.N))
			for range tasks {
				l.Go(func(tk *evloop.Task) {
					f := NewFast(evloop.WithTask(context.Background(), tk), cfg)
					defer f.Close()
					var x load.Exchange
					for budget.Add(-1) >= 0 {
						x = load.Exchange{}
						if o := f.Do(&x); o != stats.OK {
							b.Errorf("outcome %v: %v", o, x.Err)
							return
						}
					}
				})
			}
			b.ReportAllocs()
			b.ResetTimer()
			l.Run()
		})
	}
}
