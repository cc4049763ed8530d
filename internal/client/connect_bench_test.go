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

// BenchmarkNewConnectionRequestLoop is ab's default mode on the event
// loop: 20 tasks, each request on a new connection (socket, connect,
// write, read, close). Its allocs/op are the connect path's.
func BenchmarkNewConnectionRequestLoop(b *testing.B) {
	const conns = 20
	addr := rawServer(b, benchResponse)
	l, err := evloop.New()
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	req := h1.Request{Host: addr}
	cfg := &Config{Addr: addr, Request: req.Append(nil)}
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
