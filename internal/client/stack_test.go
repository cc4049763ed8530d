//go:build linux

package client

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// TestLoopTasksKeepSmallStacks: an event-loop task is a coroutine with a
// 2 KiB stack, and any call chain deeper than about 1.1 KiB grows it to
// 4 KiB for the rest of the run: 2 KiB more per connection. A run of 1 000
// kept-alive connections against nginx (dials, responses, recorder
// flushes, the time series' intervals) must keep them at 2 KiB: the stack
// memory in use while the connections are held grows by under 3 KiB per
// connection.
func TestLoopTasksKeepSmallStacks(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation deepens every call chain")
	}
	const conns = 1000
	ngx := testsupport.StartNginx(t, testsupport.NginxOptions{})
	addr := ngx.URL[len("http://"):]
	req := h1.Request{Target: "/small.txt", Host: addr}
	cfg := &Config{Addr: addr, Request: req.Append(nil), KeepAlive: true}
	before := stackInuse()
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				peak.Store(max(peak.Load(), stackInuse()))
			}
		}
	}()
	r, err := load.New(load.Config{Concurrency: conns, Requests: 40 * conns, Loops: 1,
		Interval: 10 * time.Millisecond, // a flush at every interval's end, too
		NewConn:  func(ctx context.Context) load.Conn { return NewFast(ctx, cfg) }})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Run(context.Background(), stats.Result{})
	close(stop)
	<-sampled
	if ok := res.Counts.Outcomes[stats.OK]; ok != 40*conns {
		t.Fatalf("%d of %d requests ok: %+v", ok, 40*conns, res.Counts.Outcomes)
	}
	per := float64(int64(peak.Load())-int64(before)) / conns
	t.Logf("stack in use: %d KiB before, %d KiB at the peak: %.0f B per connection", before>>10, peak.Load()>>10, per)
	if per >= 3<<10 {
		t.Errorf("the run's stacks took %.0f B per connection, want under 3 KiB (a task's stack grew past 2 KiB)", per)
	}
}

// stackInuse returns the bytes of goroutine stacks in use.
func stackInuse() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.StackInuse
}
