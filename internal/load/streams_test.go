package load

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/pace"
	"github.com/gb-bench/gb/stats"
)

// fakeStreamer holds up to limit exchanges and ends them newest first
// (out of order), each after delay; every third ends non2xx. It records
// the most it ever held at once. With holdMeasured, it ends the warm-up's
// exchanges only: a measured one stays in flight until Interrupt, and then
// ends as timed out, as a server that stopped answering.
type fakeStreamer struct {
	limit        int
	delay        time.Duration
	holdMeasured bool
	held         []*Exchange
	n            int64
	most         int
	started      *atomic.Int64
	stop         atomic.Bool
}

func (f *fakeStreamer) Do(x *Exchange) stats.Outcome { panic("a Streamer is driven by Start and Next") }
func (f *fakeStreamer) Interrupt()                   { f.stop.Store(true) }
func (f *fakeStreamer) Close() bool                  { return false }
func (f *fakeStreamer) Room() int                    { return max(f.limit-len(f.held), 0) }

func (f *fakeStreamer) Start(x *Exchange) (stats.Outcome, bool) {
	f.started.Add(1)
	x.Start = clock.Read()
	x.Connected, x.Written = x.Start, x.Start
	f.held = append(f.held, x)
	f.most = max(f.most, len(f.held))
	return stats.OK, false
}

func (f *fakeStreamer) Next(until time.Time) (*Exchange, stats.Outcome) {
	if len(f.held) == 0 {
		return nil, stats.OK
	}
	if !until.IsZero() && time.Until(until) < f.delay {
		time.Sleep(time.Until(until))
		return nil, stats.OK
	}
	time.Sleep(f.delay)
	x := f.take()
	x.Done, x.FirstByte = clock.Read(), clock.Read()
	f.n++
	if f.stop.Load() {
		return x, stats.TimeoutFirstByte
	}
	if f.n%3 == 0 {
		x.Status = 503
		return x, stats.Non2xx
	}
	x.Status = 200
	return x, stats.OK
}

// take removes and returns the exchange Next ends: the newest, or with
// holdMeasured the newest of the warm-up, waiting for Interrupt when every
// exchange held is measured.
func (f *fakeStreamer) take() *Exchange {
	i := len(f.held) - 1
	if f.holdMeasured {
		for i >= 0 && !slotOf(f.held[i]).warm {
			i--
		}
		if i < 0 {
			for !f.stop.Load() {
				time.Sleep(time.Millisecond)
			}
			i = len(f.held) - 1
		}
	}
	x := f.held[i]
	f.held = append(f.held[:i], f.held[i+1:]...)
	return x
}

// TestStreamsSpendTheExactBudget: with out-of-order completions, each
// worker keeps at most Room exchanges in flight, and every request of
// the budget ends in exactly one outcome, on goroutines and on the loops.
func TestStreamsSpendTheExactBudget(t *testing.T) {
	for _, loops := range []int{0, 1} {
		var started atomic.Int64
		var fakes []*fakeStreamer
		res := mustRun(t, Config{Concurrency: 3, Requests: 1000, Loops: loops, NewConn: func(context.Context) Conn {
			f := &fakeStreamer{limit: 7, started: &started}
			fakes = append(fakes, f)
			return f
		}}, context.Background())
		o := res.Counts.Outcomes
		if started.Load() != 1000 || res.Counts.Dispatched != 1000 || o[stats.OK]+o[stats.Non2xx] != 1000 {
			t.Errorf("loops=%d: started %d, dispatched %d, outcomes %v", loops, started.Load(), res.Counts.Dispatched, o)
		}
		for _, f := range fakes {
			if f.most > 7 || len(f.held) != 0 {
				t.Errorf("loops=%d: a worker held %d at once (limit 7), %d left", loops, f.most, len(f.held))
			}
		}
	}
}

// TestStreamsRateMode: a free stream sends the next request when it is
// due: the run takes the schedule's time, nothing is dropped, and every
// response has a corrected latency.
func TestStreamsRateMode(t *testing.T) {
	var started atomic.Int64
	res := mustRun(t, Config{Concurrency: 2, Requests: 200, Pacer: pace.Constant{Freq: 1000, Per: time.Second},
		NewConn: func(context.Context) Conn {
			return &fakeStreamer{limit: 4, delay: 2 * time.Millisecond, started: &started}
		}}, context.Background())
	if res.Counts.Dispatched != 200 || res.Counts.Scheduled != 200 || res.Latency[stats.Corrected].Count != 200 ||
		res.Elapsed < (pace.Constant{Freq: 1000, Per: time.Second}).Due(199) { // not ahead of the schedule
		t.Errorf("dispatched %d scheduled %d corrected %d elapsed %v", res.Counts.Dispatched, res.Counts.Scheduled,
			res.Latency[stats.Corrected].Count, res.Elapsed)
	}
}

// TestStreamsStopAndWarmup: a warm-up then a time limit: the requests in
// flight at the stop end aborted; the warm-up's are counted apart, and
// both accounts sum to what was sent. The measured requests get no answer
// before the stop, so that some are in flight then however late it comes.
func TestStreamsStopAndWarmup(t *testing.T) {
	var started atomic.Int64
	res := mustRun(t, Config{Concurrency: 2, Duration: 200 * time.Millisecond, Warmup: time.Second, // a second: a worker late by most of it still sends in it
		NewConn: func(context.Context) Conn {
			return &fakeStreamer{limit: 5, delay: time.Millisecond, holdMeasured: true, started: &started}
		}}, context.Background())
	w := res.Warmup
	if w == nil || w.Counts.Dispatched == 0 || res.Counts.Dispatched == 0 {
		t.Fatalf("warm-up %+v, dispatched %d", w, res.Counts.Dispatched)
	}
	var sum, warm int64
	for i, n := range res.Counts.Outcomes {
		sum += n
		warm += w.Counts.Outcomes[i]
	}
	if sum != res.Counts.Dispatched || warm != w.Counts.Dispatched || started.Load() != sum+warm {
		t.Errorf("outcomes %d of %d dispatched, warm-up %d of %d, started %d", sum, res.Counts.Dispatched, warm, w.Counts.Dispatched, started.Load())
	}
	if res.Counts.Outcomes[stats.AbortedDeadline] == 0 || res.StoppedBy != stats.StopTime {
		t.Errorf("stopped by %s, outcomes %v", res.StoppedBy, res.Counts.Outcomes)
	}
}
