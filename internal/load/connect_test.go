package load

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/stats"
)

// slowServiceConn is a server that accepts a few connections and answers
// them slowly while every other connect fails: the first conns that get
// one call Ready and then take their time; the rest wait until those are
// ready and then fail to connect.
type slowServiceConn struct {
	serve bool
	ready *sync.WaitGroup
	once  sync.Once
	calls *atomic.Int64
}

func (c *slowServiceConn) Do(x *Exchange) stats.Outcome {
	c.calls.Add(1)
	x.Start = clock.Read()
	if !c.serve {
		c.ready.Wait()
		x.Err, x.Done = errors.New("connection timed out"), clock.Read()
		return stats.TimeoutConnect
	}
	x.Opened, x.Connected = 1, clock.Read()
	x.Ready()
	c.once.Do(c.ready.Done)
	time.Sleep(100 * time.Millisecond) // in service while the others fail
	x.Written, x.FirstByte, x.Done, x.Status = clock.Read(), clock.Read(), clock.Read(), 200
	x.KeepAlive = true
	return stats.OK
}

func (c *slowServiceConn) Interrupt()  {}
func (c *slowServiceConn) Close() bool { return c.serve }

// TestConnectAbortWaitsForOpenConnections: three connections are open and
// in service while 17 workers fail to connect over and over: the
// connect-failure abort must not fire, and no request is aborted.fatal.
// (On goroutines: the fake blocks, which a loop's task must not.)
func TestConnectAbortWaitsForOpenConnections(t *testing.T) {
	for _, loops := range []int{0} {
		var calls atomic.Int64
		var ready sync.WaitGroup
		ready.Add(3)
		var made atomic.Int64
		res := mustRun(t, Config{Concurrency: 20, Requests: 60, Loops: loops,
			NewConn: func(context.Context) Conn {
				return &slowServiceConn{serve: made.Add(1) <= 3, ready: &ready, calls: &calls}
			}}, context.Background())
		if res.StoppedBy != stats.StopCount || res.Counts.Outcomes[stats.AbortedFatal] != 0 {
			t.Errorf("loops=%d: stopped by %q (%s), aborted.fatal %d; want the budget spent, none aborted",
				loops, res.StoppedBy, res.StopError, res.Counts.Outcomes[stats.AbortedFatal])
		}
	}
}

// dialConn is a connect that lasts until its context ends, then fails as
// a dial does ("context canceled").
type dialConn struct {
	ctx     context.Context
	dialing *sync.WaitGroup
}

func (c *dialConn) Do(x *Exchange) stats.Outcome {
	x.Start = clock.Read()
	c.dialing.Done()
	<-c.ctx.Done()
	x.Err, x.Done = c.ctx.Err(), clock.Read()
	return stats.FailConnect
}

func (c *dialConn) Interrupt()  {}
func (c *dialConn) Close() bool { return false }

// TestCancelDuringConnectIsAborted: cancelling the run's context while
// every worker is connecting ends their requests as aborted.signal, not
// as failed.connect.
func TestCancelDuringConnectIsAborted(t *testing.T) {
	for range 100 { // the old race was lost now and then: make sure it never is
		ctx, cancel := context.WithCancel(context.Background())
		var dialing sync.WaitGroup
		dialing.Add(4)
		go func() { dialing.Wait(); cancel() }() // once every worker is connecting
		res := mustRun(t, Config{Concurrency: 4, Requests: 100,
			NewConn: func(ctx context.Context) Conn { return &dialConn{ctx, &dialing} }}, ctx)
		c := res.Counts.Outcomes
		if c[stats.AbortedSignal] != 4 || c[stats.FailConnect] != 0 || len(res.Counts.Errors) != 0 {
			t.Fatalf("aborted.signal %d failed.connect %d errors %v; want 4, 0, none",
				c[stats.AbortedSignal], c[stats.FailConnect], res.Counts.Errors)
		}
	}
}

// truncatedConn reads a status line and then loses the connection in the
// body.
type truncatedConn struct{}

func (truncatedConn) Do(x *Exchange) stats.Outcome {
	x.Start = clock.Read()
	x.Connected, x.Written, x.FirstByte, x.Done = x.Start, x.Start, x.Start, x.Start
	x.Status, x.Body, x.Err = 200, 5, errors.New("unexpected EOF")
	return stats.FailTruncated
}

func (truncatedConn) Interrupt()  {}
func (truncatedConn) Close() bool { return false }

// TestStatusCountedOnlyForResponses: a status line followed by a failure
// is not a response: "status codes: 200=N" beside no complete request was
// the symptom.
func TestStatusCountedOnlyForResponses(t *testing.T) {
	res := mustRun(t, Config{Concurrency: 2, Requests: 10,
		NewConn: func(context.Context) Conn { return truncatedConn{} }}, context.Background())
	if res.Counts.Outcomes[stats.FailTruncated] != 10 || len(res.Counts.Status) != 0 {
		t.Errorf("failed.truncated %d, status %v; want 10 and no status",
			res.Counts.Outcomes[stats.FailTruncated], res.Counts.Status)
	}
}
