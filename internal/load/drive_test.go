//go:build linux

package load

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/stats"
)

// fakeDriven is a Driven whose exchanges follow a script by their number
// k on the connection: every 7th Send fails (Finish then runs Do), every
// response first arrives in part (GotSome), every 5th gets stuck (Finish
// ends it as a reset, closing the connection) and every 11th closes the
// connection after it. Park calls the handler until it returns false, as
// the loop would on every readable event.
type fakeDriven struct {
	fakeConn
	k        int
	stage    int // 0: Send did not start the exchange; 1: waiting for its response; 2: part arrived
	started  *atomic.Int64
	onLoop   *atomic.Int64 // exchanges that ended in Receive
	finished *atomic.Int64 // exchanges Send started that Finish ended
}

func (f *fakeDriven) Do(x *Exchange) stats.Outcome {
	f.started.Add(1)
	o := f.fakeConn.Do(x)
	x.KeepAlive = o == stats.OK
	return o
}

func (f *fakeDriven) Send(x *Exchange) bool {
	if !f.open {
		f.stage = 0
		return false
	}
	f.k++
	x.Start = clock.Read()
	if f.k%7 == 0 {
		f.stage = 0
		return false
	}
	f.started.Add(1)
	f.calls.Add(1)
	x.Connected, x.Written = x.Start, x.Start
	f.stage = 1
	return true
}

func (f *fakeDriven) Receive(x *Exchange) (stats.Outcome, Got) {
	if f.stage == 1 {
		f.stage = 2
		x.FirstByte = clock.Read()
		return 0, GotSome
	}
	if f.k%5 == 0 {
		return 0, GotStuck
	}
	f.onLoop.Add(1)
	x.Done = clock.Read()
	x.Status, x.Body, x.BytesIn, x.BytesOut = 200, 10, 100, 50
	if x.KeepAlive = f.k%11 != 0; !x.KeepAlive {
		f.open = false
		x.Closed = 1
	}
	return stats.OK, GotAll
}

func (f *fakeDriven) Park(fn func() bool) {
	for fn() {
	}
}

func (f *fakeDriven) Finish(x *Exchange) stats.Outcome {
	if f.stage == 0 {
		return f.Do(x)
	}
	f.finished.Add(1)
	f.open = false
	x.Closed, x.Done = 1, clock.Read()
	return stats.FailReset
}

// TestDrivenWorkersSpendTheExactBudget: workers whose exchanges the loop
// runs (Driven) still send exactly the budget, end each request in one
// outcome, and give every exchange the loop cannot finish to Finish.
func TestDrivenWorkersSpendTheExactBudget(t *testing.T) {
	const n = 5003
	var calls, started, onLoop, finished atomic.Int64
	newConn := func(ctx context.Context) Conn {
		f := &fakeDriven{started: &started, onLoop: &onLoop, finished: &finished}
		f.fakeConn = *newFake(&calls, fakeConn{outcome: stats.OK})(ctx).(*fakeConn)
		return f
	}
	res := mustRun(t, Config{Concurrency: 7, Requests: n, Loops: 2, NewConn: newConn}, context.Background())
	c := res.Counts
	if started.Load() != n || c.Dispatched != n {
		t.Errorf("started %d dispatched %d, want %d", started.Load(), c.Dispatched, n)
	}
	if c.Outcomes[stats.OK]+c.Outcomes[stats.FailReset] != n || c.Outcomes[stats.FailReset] != finished.Load() {
		t.Errorf("ok %d reset %d (Finish ended %d)", c.Outcomes[stats.OK], c.Outcomes[stats.FailReset], finished.Load())
	}
	if onLoop.Load() < n/2 || finished.Load() == 0 {
		t.Errorf("%d exchanges ended on the loop, %d in Finish: the script was not followed", onLoop.Load(), finished.Load())
	}
	if c.ConnsOpened != c.ConnsClosed {
		t.Errorf("opened %d connections, closed %d", c.ConnsOpened, c.ConnsClosed)
	}
}

// TestWorkersDriveOnlyPlainRuns: with an Observe hook, or TaskOnly, no
// exchange runs on the loop.
func TestWorkersDriveOnlyPlainRuns(t *testing.T) {
	for name, cfg := range map[string]Config{
		"observe":   {Observe: func(*Exchange, stats.Outcome) {}},
		"task only": {TaskOnly: true},
	} {
		var calls, started, onLoop, finished atomic.Int64
		cfg.Concurrency, cfg.Requests, cfg.Loops = 3, 100, 1
		cfg.NewConn = func(ctx context.Context) Conn {
			f := &fakeDriven{started: &started, onLoop: &onLoop, finished: &finished}
			f.fakeConn = *newFake(&calls, fakeConn{outcome: stats.OK})(ctx).(*fakeConn)
			return f
		}
		res := mustRun(t, cfg, context.Background())
		if res.Complete() != 100 || onLoop.Load() != 0 || started.Load() != 100 {
			t.Errorf("%s: complete %d, on the loop %d, started %d; want 100, 0, 100", name, res.Complete(), onLoop.Load(), started.Load())
		}
	}
}
