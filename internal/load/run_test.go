package load

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/pace"
	"github.com/gb-bench/gb/stats"
)

// fakeConn answers every Do with its script: a fixed outcome, optional
// delay, and an interruptible block.
type fakeConn struct {
	outcome   stats.Outcome
	delay     time.Duration
	block     bool // Do blocks until Interrupt
	interrupt chan struct{}
	once      *sync.Once
	open      bool
	calls     *atomic.Int64
}

func (f *fakeConn) Do(x *Exchange) stats.Outcome {
	f.calls.Add(1)
	x.Start = clock.Read()
	if !f.open && f.outcome != stats.FailConnect {
		f.open = true
		x.Opened = 1
	}
	x.Connected = x.Start
	x.Written = x.Start
	if f.block {
		<-f.interrupt
		x.Done = clock.Read()
		return stats.TimeoutFirstByte // what an interrupted read looks like
	}
	if f.delay > 0 {
		time.Sleep(f.delay)
	}
	x.FirstByte = clock.Read()
	x.Done = x.FirstByte
	if f.outcome.Responded() {
		x.Status, x.Body, x.BytesIn, x.BytesOut = 200, 10, 100, 50
		if f.outcome == stats.Non2xx {
			x.Status = 503
		}
	}
	if f.outcome == stats.FailConnect {
		x.Err = errors.New("connection refused")
	}
	return f.outcome
}

func (f *fakeConn) Interrupt() { f.once.Do(func() { close(f.interrupt) }) }

func (f *fakeConn) Close() bool {
	was := f.open
	f.open = false
	return was
}

func newFake(calls *atomic.Int64, script fakeConn) func(context.Context) Conn {
	return func(context.Context) Conn {
		f := script
		f.calls = calls
		f.interrupt = make(chan struct{})
		f.once = new(sync.Once)
		return &f
	}
}

func mustRun(t *testing.T, cfg Config, ctx context.Context) *stats.Result {
	t.Helper()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res := r.Run(ctx, stats.Result{})
	for _, err := range res.Check() {
		t.Errorf("invariant: %v", err)
	}
	return res
}

func TestExactCountWithRemainder(t *testing.T) {
	for _, tc := range []struct{ n, c int64 }{{1, 1}, {1001, 10}, {7, 3}, {100, 100}, {999, 7}} {
		var calls atomic.Int64
		res := mustRun(t, Config{Concurrency: int(tc.c), Requests: tc.n,
			NewConn: newFake(&calls, fakeConn{outcome: stats.OK})}, context.Background())
		if calls.Load() != tc.n || res.Counts.Dispatched != tc.n || res.Complete() != tc.n {
			t.Errorf("n=%d c=%d: calls %d dispatched %d complete %d", tc.n, tc.c, calls.Load(), res.Counts.Dispatched, res.Complete())
		}
		if res.StoppedBy != stats.StopCount {
			t.Errorf("stopped by %q, want count", res.StoppedBy)
		}
		if got := res.Counts.ConnsOpened; got < 1 || got > tc.c {
			t.Errorf("n=%d c=%d: conns opened %d, want 1..%d", tc.n, tc.c, got, tc.c)
		}
		if res.Counts.ConnsOpened != res.Counts.ConnsClosed {
			t.Errorf("opened %d != closed %d", res.Counts.ConnsOpened, res.Counts.ConnsClosed)
		}
	}
}

func TestCountersAndStatus(t *testing.T) {
	var calls atomic.Int64
	res := mustRun(t, Config{Concurrency: 4, Requests: 40,
		NewConn: newFake(&calls, fakeConn{outcome: stats.Non2xx})}, context.Background())
	c := res.Counts
	if c.Outcomes[stats.Non2xx] != 40 || c.Status[503] != 40 || c.BytesIn != 4000 || c.BytesOut != 2000 || c.BodyIn != 400 {
		t.Errorf("counts %+v", c)
	}
	if res.Server.DocumentLength != 10 || c.LengthMismatch != 0 {
		t.Errorf("doc length %d mismatches %d", res.Server.DocumentLength, c.LengthMismatch)
	}
	if d := res.Latency[stats.Total]; d == nil || d.Count != 40 {
		t.Errorf("total latency %+v", d)
	}
}

// TestTimeLimitAbortsInFlight: every request in flight at the time limit
// (the fake never answers) ends as aborted.deadline. A worker whose
// goroutine first runs after the 500 ms limit sends nothing, as it should,
// so the test wants every request sent aborted, and at least one sent
// (on an idle machine all 5 are).
func TestTimeLimitAbortsInFlight(t *testing.T) {
	var calls atomic.Int64
	res := mustRun(t, Config{Concurrency: 5, Duration: 500 * time.Millisecond,
		NewConn: newFake(&calls, fakeConn{block: true})}, context.Background())
	if res.StoppedBy != stats.StopTime {
		t.Errorf("stopped by %q", res.StoppedBy)
	}
	c := &res.Counts
	if got := c.Outcomes[stats.AbortedDeadline]; got == 0 || got != c.Dispatched || c.Dispatched != calls.Load() || c.Dispatched > 5 {
		t.Errorf("aborted.deadline %d dispatched %d (the fake saw %d), want all of at most 5 and some", got, c.Dispatched, calls.Load())
	}
}

func TestCancelIsSignalStop(t *testing.T) {
	var calls atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // the signal comes once every worker's request is in flight, however late they start
		for end := time.Now().Add(time.Minute); calls.Load() < 3 && time.Now().Before(end); {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	res := mustRun(t, Config{Concurrency: 3, Requests: 1000,
		NewConn: newFake(&calls, fakeConn{block: true})}, ctx)
	if res.StoppedBy != stats.StopSignal || res.Counts.Outcomes[stats.AbortedSignal] != 3 {
		t.Errorf("stopped by %q, aborted.signal %d", res.StoppedBy, res.Counts.Outcomes[stats.AbortedSignal])
	}
}

// loopCounts are the Config.Loops values the engine-neutral tests run
// with: goroutines everywhere, and one event loop on Linux (loops_test.go).
var loopCounts = []int{0}

func TestNothingConnectsStopsRun(t *testing.T) {
	for _, loops := range loopCounts {
		var calls atomic.Int64
		res := mustRun(t, Config{Concurrency: 2, Requests: 1000, Loops: loops,
			NewConn: newFake(&calls, fakeConn{outcome: stats.FailConnect})}, context.Background())
		if res.StoppedBy != stats.StopError || res.StopError == "" {
			t.Errorf("loops=%d: stopped by %q (%q)", loops, res.StoppedBy, res.StopError)
		}
		if n := calls.Load(); n > 12 {
			t.Errorf("loops=%d: %d connect attempts: the abort should come after about 10", loops, n)
		}
	}
}

func TestProgressAndObserve(t *testing.T) {
	var calls, observed atomic.Int64
	var last Progress // Run calls Progress from its own goroutine
	mustRun(t, Config{Concurrency: 2, Requests: 20,
		NewConn:  newFake(&calls, fakeConn{outcome: stats.OK}),
		Progress: func(p Progress) { last = p },
		Observe:  func(*Exchange, stats.Outcome) { observed.Add(1) },
	}, context.Background())
	if last.Done != 20 || last.Outcomes[stats.OK] != 20 || observed.Load() != 20 {
		t.Errorf("final progress %d (ok %d), observed %d; want 20, 20 and 20", last.Done, last.Outcomes[stats.OK], observed.Load())
	}
}

func TestNewRefusesUnboundedRun(t *testing.T) {
	var calls atomic.Int64
	if _, err := New(Config{NewConn: newFake(&calls, fakeConn{})}); !errors.Is(err, ErrNoBound) {
		t.Errorf("err = %v, want ErrNoBound", err)
	}
}

func TestKeepOpenLeavesConnsOpen(t *testing.T) {
	var calls atomic.Int64
	var conns []*fakeConn
	mk := newFake(&calls, fakeConn{outcome: stats.OK})
	res := mustRun(t, Config{Concurrency: 3, Requests: 30, KeepOpen: true,
		NewConn: func(ctx context.Context) Conn {
			c := mk(ctx).(*fakeConn)
			conns = append(conns, c)
			return c
		}}, context.Background())
	open := 0
	for _, c := range conns {
		if c.open {
			open++
		}
	}
	if res.Counts.ConnsClosed != 0 || res.Counts.ConnsOpened != int64(open) || open == 0 {
		t.Errorf("opened %d closed %d, still open %d: want every opened conn left open", res.Counts.ConnsOpened, res.Counts.ConnsClosed, open)
	}
}

// TestRateRunOfDurationSendsRateTimesDuration: a run of -t d at rate R
// schedules floor(R·d) requests (1000/s for 100 ms: 100, the last due at
// 99 ms; none at 100 ms), and ends at its time limit, not before, on
// every engine. On a busy machine some may be dropped, never more sent.
func TestRateRunOfDurationSendsRateTimesDuration(t *testing.T) {
	for _, loops := range []int{0, 1} {
		var calls atomic.Int64
		res := mustRun(t, Config{Concurrency: 4, Duration: 100 * time.Millisecond, Loops: loops,
			Pacer:   pace.Constant{Freq: 1000, Per: time.Second},
			NewConn: newFake(&calls, fakeConn{outcome: stats.OK})}, context.Background())
		c := &res.Counts
		if c.Scheduled != 100 || c.Dispatched > 100 || calls.Load() != c.Dispatched || res.StoppedBy != stats.StopTime {
			t.Errorf("loops=%d: scheduled %d dispatched %d (calls %d), stopped by %s; want 100 scheduled, at most 100 sent, stopped by time",
				loops, c.Scheduled, c.Dispatched, calls.Load(), res.StoppedBy)
		}
	}
}

// TestRateBudgetBoundsTheSchedule: -n below the schedule's requests ends
// the run by count; above, the schedule's end holds.
func TestRateBudgetBoundsTheSchedule(t *testing.T) {
	for _, tc := range []struct {
		requests  int64
		limit     int64
		holdToEnd bool
	}{{0, 400, true}, {50, 50, false}, {400, 400, false}, {1000, 400, true}} {
		r, err := New(Config{Requests: tc.requests, Duration: 2 * time.Second, Pacer: pace.Constant{Freq: 200, Per: time.Second},
			NewConn: newFake(new(atomic.Int64), fakeConn{})})
		if err != nil {
			t.Fatal(err)
		}
		if r.limit != tc.limit || r.holdToEnd != tc.holdToEnd {
			t.Errorf("-R 200 -t 2 -n %d: budget %d (schedule's: %v), want %d (%v)", tc.requests, r.limit, r.holdToEnd, tc.limit, tc.holdToEnd)
		}
	}
}

// TestDroppedCountInCorrectedLatency overloads a rate run (1000 req/s on
// one connection whose requests take 20 ms): most scheduled requests are
// never sent, and each must be in the corrected latency at (end of run -
// its intended send time) at least, so the corrected percentiles cover
// every scheduled request.
func TestDroppedCountInCorrectedLatency(t *testing.T) {
	var calls atomic.Int64
	pacer := pace.Constant{Freq: 1000, Per: time.Second}
	res := mustRun(t, Config{Concurrency: 1, Duration: 300 * time.Millisecond, Pacer: pacer,
		NewConn: newFake(&calls, fakeConn{outcome: stats.OK, delay: 20 * time.Millisecond})}, context.Background())
	c := &res.Counts
	dropped := c.Outcomes[stats.Dropped]
	if dropped < 100 || c.Scheduled != c.Dispatched+dropped {
		t.Fatalf("scheduled %d dispatched %d dropped %d: want an overloaded run", c.Scheduled, c.Dispatched, dropped)
	}
	corr := res.Latency[stats.Corrected]
	if corr == nil || corr.Count != res.Complete()+dropped {
		t.Fatalf("corrected latency holds %v samples, want %d complete + %d dropped", corr, res.Complete(), dropped)
	}
	var censored int64 // the least the dropped requests add
	for i := c.Dispatched; i < c.Scheduled; i++ {
		censored += (res.Elapsed - pacer.Due(i)).Microseconds()
	}
	sent := res.Latency[stats.Total].Sum // each sent request's corrected latency is at least its service time
	if corr.Sum < censored+sent {
		t.Errorf("corrected sum %d µs < censored %d + service %d µs", corr.Sum, censored, sent)
	}
	// Half the scheduled requests were due in the first half of the run
	// and most were never sent: the median is at least a quarter of it.
	if p50 := time.Duration(corr.Percentile(50)) * time.Microsecond; p50 < res.Elapsed/4 {
		t.Errorf("corrected p50 %v, want at least %v", p50, res.Elapsed/4)
	}
}
