//go:build linux

package load

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/evloop"
	"github.com/gb-bench/gb/internal/pace"
	"github.com/gb-bench/gb/stats"
	"golang.org/x/sys/unix"
)

func init() { loopCounts = append(loopCounts, 1) }

func TestLoopsSpendTheExactBudget(t *testing.T) {
	for _, loops := range []int{1, 2, 5} {
		var calls, tasks atomic.Int64
		mk := newFake(&calls, fakeConn{outcome: stats.OK})
		res := mustRun(t, Config{Concurrency: 7, Requests: 1001, Loops: loops,
			NewConn: func(ctx context.Context) Conn {
				if evloop.FromContext(ctx) != nil {
					tasks.Add(1)
				}
				return mk(ctx)
			}}, context.Background())
		if calls.Load() != 1001 || res.Complete() != 1001 || res.StoppedBy != stats.StopCount {
			t.Errorf("loops=%d: calls %d complete %d stopped by %q", loops, calls.Load(), res.Complete(), res.StoppedBy)
		}
		if tasks.Load() != 7 {
			t.Errorf("loops=%d: %d of 7 conns got a task in their context", loops, tasks.Load())
		}
	}
}

func TestLoopsStopAtTimeLimitWhileBackingOff(t *testing.T) {
	var calls atomic.Int64
	done := make(chan *stats.Result)
	go func() {
		r, err := New(Config{Concurrency: 1, Duration: 100 * time.Millisecond, Loops: 1, MaxConnectFailures: 1 << 30,
			NewConn: newFake(&calls, fakeConn{outcome: stats.FailConnect})})
		if err != nil {
			t.Error(err)
			close(done)
			return
		}
		done <- r.Run(context.Background(), stats.Result{})
	}()
	select {
	case res := <-done:
		if res != nil && res.StoppedBy != stats.StopTime {
			t.Errorf("stopped by %q, want time", res.StoppedBy)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a task sleeping in its connect back-off did not end at the time limit")
	}
}

func TestLoopsRefuseKeepOpen(t *testing.T) {
	var calls atomic.Int64
	cfg := Config{Requests: 10, Loops: 1, KeepOpen: true, NewConn: newFake(&calls, fakeConn{})}
	if _, err := New(cfg); err == nil {
		t.Errorf("New(%+v) accepted a configuration the loops cannot run", cfg)
	}
}

// TestLoopsPaceOnSchedule runs 100 requests at 1000/s on one loop: the
// sends must follow the schedule (the last one due at 99 ms) and none may
// be dropped.
func TestLoopsPaceOnSchedule(t *testing.T) {
	var calls atomic.Int64
	res := mustRun(t, Config{Concurrency: 4, Requests: 100, Loops: 1, Pacer: pace.Constant{Freq: 1000, Per: time.Second},
		NewConn: newFake(&calls, fakeConn{outcome: stats.OK})}, context.Background())
	c := res.Counts
	if c.Outcomes[stats.OK] != 100 || c.Outcomes[stats.Dropped] != 0 || c.Scheduled != 100 {
		t.Errorf("ok %d dropped %d scheduled %d, want 100, 0, 100", c.Outcomes[stats.OK], c.Outcomes[stats.Dropped], c.Scheduled)
	}
	if last := (pace.Constant{Freq: 1000, Per: time.Second}).Due(99); res.Elapsed < last {
		t.Errorf("100 requests at 1000/s ended after %v, before the last was due (%v): sent ahead of the schedule", res.Elapsed, last)
	}
}

// TestStopAfterRunWritesNothing: a Stop that comes after Run returned, as
// the time limit's timer does when it fires as the load ends, interrupts
// loops that are closed; it must not write their wakes into the files
// that took the loops' numbers since (pipes here; in gb, the server
// profile's next connection, which then failed on 8 stray bytes).
func TestStopAfterRunWritesNothing(t *testing.T) {
	var calls atomic.Int64
	r, err := New(Config{Concurrency: 2, Requests: 10, Loops: 2, NewConn: newFake(&calls, fakeConn{outcome: stats.OK})})
	if err != nil {
		t.Fatal(err)
	}
	if res := r.Run(context.Background(), stats.Result{}); res.Complete() != 10 {
		t.Fatalf("complete %d", res.Complete())
	}
	var pipes [][2]int // the lowest free numbers: those the loops gave back
	defer func() {
		for _, p := range pipes {
			unix.Close(p[0])
			unix.Close(p[1])
		}
	}()
	for range 8 {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		pipes = append(pipes, p)
	}
	r.Stop(stats.StopTime, nil)
	for _, p := range pipes {
		if n, err := unix.Read(p[0], make([]byte, 64)); n > 0 || err != unix.EAGAIN {
			t.Errorf("pipe %d->%d got %d bytes after the run (%v)", p[1], p[0], n, err)
		}
	}
}
