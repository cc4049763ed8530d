//go:build linux

package client

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/gb-bench/gb/internal/evloop"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

func init() { engines = append(engines, engine{"loop", onLoop}) }

// onLoop runs fn in a task of a new event loop with a Fast dialing through
// the loop (the event-loop engine's setup), and waits for it.
func onLoop(t *testing.T, cfg *Config, fn func(f *Fast)) {
	t.Helper()
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Go(func(tk *evloop.Task) {
		f := NewFast(evloop.WithTask(context.Background(), tk), cfg)
		defer f.Close()
		fn(f)
	})
	l.Run()
}

// BenchmarkKeepAliveRequestLoop is BenchmarkKeepAliveRequestParallel on the
// event loop: 50 kept-alive connections on one loop, b.N requests among
// them. (Not one connection: the in-process server then runs only when the
// Go runtime polls its own netpoller while the loop sleeps in epoll_wait, a
// ping-pong that measures the runtime, not gb; against a server in another
// process one connection is faster on the loop, ~88 vs ~117 µs p50 against
// nginx here.)
func BenchmarkKeepAliveRequestLoop(b *testing.B) { benchLoop(b, 50, true) }

// benchLoop runs b.N requests over conns tasks of one loop against the
// in-process raw server, with keep-alive or a new connection per request.
func benchLoop(b *testing.B, conns int, keepAlive bool) {
	addr := rawServer(b, benchResponse)
	l, err := evloop.New()
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	req := h1.Request{Host: addr}
	cfg := &Config{Addr: addr, Request: req.Append(nil), KeepAlive: keepAlive}
	var budget atomic.Int64
	budget.Store(int64(b.N))
	for range conns {
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
}
