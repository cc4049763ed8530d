package load

import (
	"context"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

// TestZeroAllocationsPerPacedRequest: the engine's own per-request path
// in rate mode (take from the budget, find the due time, send, record)
// allocates nothing, on both engines, whether Requests or the schedule
// within Duration ends the run. It counts the heap allocations of two
// runs that differ only in their number of requests: the difference per
// request is what a request costs. Neither the fake Conn nor the burst
// schedule (every request due at once) allocates or waits.
func TestZeroAllocationsPerPacedRequest(t *testing.T) {
	for _, loops := range []int{0, 1} {
		for _, byTime := range []bool{false, true} {
			mallocs := func(n int64) uint64 {
				cfg := Config{Concurrency: 2, Requests: n, Loops: loops, Pacer: burst{math.MaxInt64}, Interval: -1,
					NewConn: newFake(new(atomic.Int64), fakeConn{outcome: stats.OK})}
				if byTime { // the schedule ends the budget; the run then waits for its (hour-long) time limit
					cfg.Requests, cfg.Duration, cfg.Pacer = 0, time.Hour, burst{n}
				}
				r, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				go func() { // ends the time limit's wait once every request is done
					for r.Done() < n {
						time.Sleep(time.Millisecond)
					}
					cancel()
				}()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				res := r.Run(ctx, stats.Result{})
				runtime.ReadMemStats(&after)
				if res.Counts.Dispatched != n {
					t.Fatalf("loops=%d byTime=%v: dispatched %d, want %d", loops, byTime, res.Counts.Dispatched, n)
				}
				return after.Mallocs - before.Mallocs
			}
			small, large := mallocs(1000), mallocs(21000)
			if per := (float64(large) - float64(small)) / 20000; per > 0.05 {
				t.Errorf("loops=%d byTime=%v: %.3f allocations per request (%d in a run of 1000, %d of 21000)",
					loops, byTime, per, small, large)
			}
		}
	}
}

// burst is a schedule of n requests all due at the start.
type burst struct{ n int64 }

func (burst) Due(int64) time.Duration                 { return 0 }
func (burst) Pace(time.Duration, int64) time.Duration { return 0 }
func (b burst) Scheduled(elapsed time.Duration) int64 { return b.n }
func (b burst) Within(time.Duration) int64            { return b.n }
