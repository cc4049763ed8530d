package load

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

// TestOnMeasureBeforeReturn: OnMeasure runs beside the measured load
// (gb starts the server's profile there, which takes a while), and Run
// returns only after it did, even when the load ended first: here
// OnMeasure returns only once every measured request has ended.
func TestOnMeasureBeforeReturn(t *testing.T) {
	const n = 50
	var calls atomic.Int64
	var measured atomic.Bool
	var r *Run
	cfg := Config{Concurrency: 2, Requests: n, Warmup: 20 * time.Millisecond, NewConn: newFake(&calls, fakeConn{outcome: stats.OK})}
	cfg.OnMeasure = func() {
		for deadline := time.Now().Add(30 * time.Second); r.Done() < n && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(10 * time.Millisecond)
		measured.Store(true)
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res := r.Run(context.Background(), stats.Result{})
	if !measured.Load() {
		t.Error("Run returned before OnMeasure did")
	}
	if res.Complete() != n || res.Warmup == nil {
		t.Errorf("complete %d, warm-up %+v", res.Complete(), res.Warmup)
	}
}

// TestOnMeasureNotInWarmupStop: a run stopped during its warm-up never
// began measuring: OnMeasure is not called.
func TestOnMeasureNotInWarmupStop(t *testing.T) {
	var calls atomic.Int64
	var called atomic.Bool
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	res := mustRun(t, Config{Concurrency: 2, Requests: 50, Warmup: time.Minute, OnMeasure: func() { called.Store(true) },
		NewConn: newFake(&calls, fakeConn{outcome: stats.OK})}, ctx)
	if called.Load() || res.Complete() != 0 || res.StoppedBy != stats.StopSignal {
		t.Errorf("OnMeasure called %v, complete %d, stopped by %q", called.Load(), res.Complete(), res.StoppedBy)
	}
}
