package load

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/evloop"
	"github.com/gb-bench/gb/internal/record"
	"github.com/gb-bench/gb/stats"
)

// worker is one goroutine with one connection. Everything in it is owned
// by that goroutine; the run reads dispatched and last after the workers
// stopped, and main.Done at any time.
type worker struct {
	// The fields every request touches come first, together: with
	// thousands of connections each line of a worker is a cache miss.
	run        *Run
	driven     Driven           // conn, when the loop runs its kept-alive exchanges (drive.go); nil = never
	rec        *record.Recorder // the recorder in use: warm, then main
	dispatched int64            // measured requests sent (or tried)
	warming    bool             // rec is warm
	inFlight   bool             // x was started by sendNext and awaits Finish
	spent      bool             // sendNext found the budget spent
	connected  bool             // a request of this worker got past connecting
	stepFn     func() bool      // w.step, bound once
	task       *evloop.Task     // the event-loop task running this worker; nil = its own goroutine
	last       clock.Mono       // end of this worker's last request
	answered   clock.Mono       // end of this worker's last request that got a response
	conn       Conn
	main       *record.Recorder // the measured requests'
	warm       *record.Recorder // the warm-up's; nil without one
	warmSent   int64            // warm-up requests sent (or tried)
	backoff    time.Duration
	x          Exchange // the exchange in flight (loop)
	slot       int      // the worker's index in the run, its Feed slot
	row        int      // with a Feed: the account row of x's request
}

// loop sends requests until the budget is spent or the run stops.
func (w *worker) loop() {
	if s, ok := w.conn.(Streamer); ok {
		w.loopStreams(s)
		return
	}
	if b, ok := w.conn.(Batcher); ok && w.run.cfg.Pipeline > 1 {
		w.loopBatch(b)
		return
	}
	r := w.run
	x := &w.x
	for w.inFlight || !r.stopped.Load() && !w.spent {
		o, ok := w.exchange(x)
		if !ok {
			break
		}
		o = w.record(x, o)
		if r.cfg.Observe != nil {
			r.cfg.Observe(x, o)
		}
		w.afterConnect(x, o)
		if x.Last {
			break
		}
		if w.driven != nil && x.KeepAlive && w.sendNext() {
			w.driven.Park(w.stepFn)
		}
	}
	w.finish()
}

// exchange runs the worker's next exchange on its task, into x: the one
// in flight (sendNext started it), else a new one from the budget, sent
// when the Pacer says. ok is false when there is none: the budget is
// spent, or the run stopped while a paced request waited.
func (w *worker) exchange(x *Exchange) (o stats.Outcome, ok bool) {
	if w.inFlight {
		w.inFlight = false
		return w.driven.Finish(x), true
	}
	r := w.run
	for {
		i, start, ok := w.take(1)
		if !ok {
			return 0, false
		}
		var due time.Time
		if r.cfg.Pacer != nil {
			due = start.Add(r.cfg.Pacer.Due(i))
			if w.warming && !due.Before(r.start) {
				w.measure() // the warm-up's schedule ends where the measured one begins
				continue
			}
			if !w.waitUntil(due) {
				return 0, false
			}
		}
		x.reset(w)
		if !w.target(x, i) {
			return 0, false
		}
		w.count(1)
		x.Intended = clock.Of(due)
		return w.conn.Do(x), true
	}
}

// take takes k request indexes: from the warm-up's own sequence while the
// worker warms up (it moves to the measured run once the run says so),
// else from the request budget. It returns the first index, the time the
// indexes' schedule counts from, and false when the budget is spent.
func (w *worker) take(k int64) (int64, time.Time, bool) {
	r := w.run
	if w.warming && r.measuring.Load() {
		w.measure()
	}
	if w.warming {
		return r.warmNext.Add(k) - k, r.warmStart, true
	}
	i := r.next.Add(k) - k
	return i, r.start, i < r.limit
}

// count counts k requests sent in the phase the worker is in.
func (w *worker) count(k int64) {
	if w.warming {
		w.warmSent += k
	} else {
		w.dispatched += k
	}
}

// measure ends this worker's warm-up: what it sends from now on is
// measured. Requests that were in flight stay the warm-up's.
func (w *worker) measure() {
	w.rec.Flush()
	w.rec, w.warming = w.main, false
}

// afterConnect notes whether connecting worked, backing off when it did not.
func (w *worker) afterConnect(x *Exchange, o stats.Outcome) {
	if isConnectFailure(o) {
		w.connectFailed(x)
	} else {
		w.markConnected()
	}
}

// markConnected notes that this worker got a connection (Exchange.Ready,
// or a request that got past connecting).
func (w *worker) markConnected() {
	if !w.connected {
		w.connected = true
		w.run.opened.Add(1)
	}
}

// finish closes the worker's connection (unless the run keeps it open for
// the next step) and flushes its recorder. When the schedule ended the
// run's budget, it first waits for the time limit: a rate run lasts its
// Duration.
func (w *worker) finish() {
	if w.run.holdToEnd && !w.run.fedAll.Load() {
		w.waitStop()
	}
	if !w.run.cfg.KeepOpen {
		w.rec.ConnsClosed += closeConn(w.conn)
	}
	w.main.Flush()
	if w.warm != nil {
		w.warm.Flush()
	}
}

// loopBatch is loop for pipelining: it takes up to Pipeline requests from
// the budget at a time and sends them as one batch.
func (w *worker) loopBatch(b Batcher) {
	r := w.run
	p := r.cfg.Pipeline
	if n := r.cfg.Requests; n > 0 {
		p = int(min(int64(p), n)) // a batch is never deeper than the budget
	}
	xs, outs := make([]Exchange, p), make([]stats.Outcome, p)
	for !r.stopped.Load() {
		k := p
		i, _, ok := w.take(int64(p))
		if !ok {
			break
		}
		if n := r.cfg.Requests; n > 0 && !w.warming {
			k = int(min(int64(p), n-i))
		}
		w.count(int64(k))
		for i := range xs[:k] {
			xs[i].reset(w)
		}
		r.cfg.Order.spread(xs[:k], i)
		b.DoBatch(xs[:k], outs[:k])
		for i := range xs[:k] {
			o := w.record(&xs[i], outs[i])
			if r.cfg.Observe != nil {
				r.cfg.Observe(&xs[i], o)
			}
		}
		w.afterConnect(&xs[0], outs[0])
		if xs[k-1].Last {
			break
		}
	}
	w.finish()
}

// record folds one exchange into the worker's recorder and returns its
// final outcome (a failure caused by the stop becomes aborted).
func (w *worker) record(x *Exchange, o stats.Outcome) stats.Outcome {
	rec := w.rec
	if x.Handshake > 0 {
		rec.Handshake(micros(x.Handshake), x.Resumed)
	}
	rec.BytesIn += x.BytesIn
	rec.BytesOut += x.BytesOut
	rec.BodyIn += x.Body
	rec.DecodedIn += x.Decoded
	rec.ConnsOpened += int64(x.Opened)
	rec.ConnsClosed += int64(x.Closed)
	rec.Info += int64(x.Info)
	if x.Retried {
		rec.Retries++
	}
	if !x.Intended.IsZero() && x.Start.Sub(x.Intended) > stats.LateAfter {
		rec.Late++
	}
	if x.Checks > 0 {
		rec.Check(int(x.Checks), x.CheckFails)
	}
	if !o.Responded() && o != stats.FailScript && o != stats.FailCheck && w.run.stopped.Load() { // a script's or a check's failure is its own, not the stop's
		o = w.run.abortOutcome()
	}
	if o.Failed() && x.Err != nil {
		rec.Error(errorKey(x.Err))
	}
	if o.Responded() { // a status whose response then failed is not counted
		rec.Status(x.Status)
		w.response(x)
		w.answered = x.Done
	}
	if w.run.cfg.Order.Targets > 1 {
		w.recordTarget(x, o)
	}
	rec.EndAt(o, int64(x.Done.Sub(w.run.startMono)))
	w.last = x.Done
	return o
}

// waitUntil sleeps until due, waking at least every 50 ms to see whether
// the run stopped (or its Feed ended); it reports whether the request
// should still be sent.
func (w *worker) waitUntil(due time.Time) bool {
	for !w.run.stopped.Load() && !w.run.fedAll.Load() {
		d := time.Until(due)
		if d <= 0 {
			return true
		}
		w.sleep(min(d, 50*time.Millisecond))
	}
	return false
}

// waitStop sleeps until the run stops, waking at its time limit and at
// least every 50 ms before it (1 ms after it) to see whether it did.
func (w *worker) waitStop() {
	r := w.run
	end := r.start.Add(r.cfg.Duration)
	for !r.stopped.Load() {
		w.sleep(min(max(time.Until(end), time.Millisecond), 50*time.Millisecond))
	}
}

// sleep pauses the worker: on its task when it runs on an event loop
// (the loop keeps running the others), else on its goroutine.
func (w *worker) sleep(d time.Duration) {
	if w.task != nil {
		w.task.Sleep(d)
		return
	}
	time.Sleep(d)
}

// response records a complete response's timings and body.
func (w *worker) response(x *Exchange) {
	var t record.Timing
	t[stats.Connect] = micros(x.Connected.Sub(x.Start))
	t[stats.Total] = micros(x.Done.Sub(x.Start))
	t[stats.Processing] = max(t[stats.Total]-t[stats.Connect], 0)
	t[stats.Waiting] = micros(x.FirstByte.Sub(x.Written))
	if !x.Intended.IsZero() {
		t[stats.Corrected] = micros(x.Done.Sub(x.Intended))
		t[stats.Lag] = micros(x.Start.Sub(x.Intended))
	}
	var startUs int64
	if w.run.cfg.KeepSamples {
		startUs = x.Start.Time().UnixMicro()
	}
	w.rec.Response(&t, startUs)
	w.rec.Body(x.Body, x.Server, int64(x.Done.Sub(w.run.startMono)))
	if x.KeepAlive {
		w.rec.KeepAlive++
	}
}

// connectFailed stops a run that cannot connect at all, and otherwise backs
// off (see nextBackoff) so a refusing server is not hammered.
func (w *worker) connectFailed(x *Exchange) {
	r := w.run
	if n := r.connFail.Add(1); r.opened.Load() == 0 && n >= int64(r.cfg.MaxConnectFailures) {
		r.Stop(stats.StopError, fmt.Errorf("no connection after %d attempts: %w", n, x.Err))
		return
	}
	w.backoff = nextBackoff(w.backoff, w.connected, r.opened.Load() > 0)
	if w.task != nil {
		w.task.Sleep(w.backoff)
		return
	}
	t := time.NewTimer(w.backoff)
	select {
	case <-t.C:
	case <-r.stopCh:
		t.Stop()
	}
}

// nextBackoff is a worker's wait after a failed connect, given its last
// one: 10 ms while no connection of the run has opened yet (the abort
// after MaxConnectFailures decides then, as quickly with -c 1 as with
// -c 50) or when this worker was connected before (a server refusing now
// and then); otherwise, when others connect but this worker cannot (a
// full backlog), doubling up to 1 s.
func nextBackoff(last time.Duration, connected, anyOpened bool) time.Duration {
	if connected || !anyOpened {
		return 10 * time.Millisecond
	}
	return min(max(2*last, 10*time.Millisecond), time.Second)
}

// isConnectFailure reports whether o means no connection could be made
// (TLS handshakes included: a certificate error fails every connection).
func isConnectFailure(o stats.Outcome) bool {
	switch o {
	case stats.FailConnect, stats.FailDNS, stats.TimeoutConnect, stats.FailLocal, stats.FailTLS, stats.TimeoutTLS:
		return true
	}
	return false
}

// micros converts d to whole microseconds, never negative.
func micros(d time.Duration) int64 { return max(int64(d/time.Microsecond), 0) }

// errorKey is an error's message without the addresses and operation that
// net wraps around it ("read tcp 127.0.0.1:4711->...: connection reset by
// peer" becomes "connection reset by peer"), so messages group and never
// carry the URL.
func errorKey(err error) string {
	for {
		var op *net.OpError
		var sc *os.SyscallError
		switch {
		case errors.As(err, &op) && op.Err != nil:
			err = op.Err
		case errors.As(err, &sc) && sc.Err != nil:
			err = sc.Err
		default:
			return err.Error()
		}
	}
}
