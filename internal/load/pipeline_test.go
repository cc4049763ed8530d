package load

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/gb-bench/gb/stats"
)

// fakeBatcher answers every batch with OK and notes the deepest batch
// buffer it was handed.
type fakeBatcher struct {
	fakeConn
	deepest *atomic.Int64
}

func (f *fakeBatcher) DoBatch(xs []Exchange, outs []stats.Outcome) {
	if c := int64(cap(xs)); c > f.deepest.Load() {
		f.deepest.Store(c)
	}
	for i := range xs {
		outs[i] = f.Do(&xs[i])
	}
}

func TestPipelineNeverDeeperThanTheBudget(t *testing.T) {
	var calls, deepest atomic.Int64
	mk := newFake(&calls, fakeConn{outcome: stats.OK})
	res := mustRun(t, Config{Concurrency: 2, Requests: 10, Pipeline: MaxPipeline,
		NewConn: func(ctx context.Context) Conn {
			return &fakeBatcher{fakeConn: *mk(ctx).(*fakeConn), deepest: &deepest}
		}}, context.Background())
	if res.Complete() != 10 || calls.Load() != 10 {
		t.Errorf("complete %d, calls %d; want 10", res.Complete(), calls.Load())
	}
	if deepest.Load() > 10 {
		t.Errorf("batch buffers of %d exchanges for a budget of 10", deepest.Load())
	}
}

func TestNewRefusesPipelineAboveMax(t *testing.T) {
	var calls atomic.Int64
	_, err := New(Config{Requests: 10, Pipeline: MaxPipeline + 1, NewConn: newFake(&calls, fakeConn{})})
	if err == nil {
		t.Fatalf("pipeline %d accepted", MaxPipeline+1)
	}
	if _, err := New(Config{Requests: 10, Pipeline: MaxPipeline, NewConn: newFake(&calls, fakeConn{})}); err != nil {
		t.Errorf("pipeline %d refused: %v", MaxPipeline, err)
	}
}
