package load

import "github.com/gb-bench/gb/stats"

// On an event loop, a worker whose exchanges all go the plain way (a closed
// loop on a kept-alive connection: no pacing, no pipelining, no Observe
// hook) hands its loop a handler and parks: when the response arrives the
// loop reads it, records it and sends the next request on its own stack,
// without resuming the worker's coroutine, which would cost two switches
// per request. Anything else (a response in pieces the reader cannot hold,
// an error, a closed connection, a deadline, the run's end) gives the
// worker its coroutine back, which ends the exchange in flight as Do would.

// Driven is a Conn whose exchanges on an open connection its event loop
// can run (Config.Loops without Config.TaskOnly). Send, Receive and Park
// are called only from the worker's task or the loop's handler; none of
// them waits.
type Driven interface {
	Conn
	// Send starts x on the connection left open by the last exchange: it
	// times x's start and writes the request. It reports false when x
	// needs Finish: there is no such connection, the Conn cannot be driven,
	// or the write failed or would have waited.
	Send(x *Exchange) bool
	// Receive reads what has arrived for x, without waiting, and once the
	// whole response is in ends x (Done set) with its outcome.
	Receive(x *Exchange) (stats.Outcome, Got)
	// Park parks the worker's task until fn, called on the loop's stack
	// each time the connection is readable, returns false; or until the
	// connection's deadline passes or the run is interrupted.
	Park(fn func() bool)
	// Finish ends x, started by Send, from wherever Send and Receive left
	// it, waiting as Do does, and returns its outcome.
	Finish(x *Exchange) stats.Outcome
}

// Got says how far Receive got.
type Got uint8

const (
	GotSome  Got = iota // nothing or part of the response: wait for more input
	GotAll              // the whole response: x ended
	GotStuck            // Receive cannot go on without waiting: Finish ends x
)

// drive lets the loop run the worker's kept-alive exchanges when its Conn
// can be driven and the run asks for nothing the handler does not do.
func (w *worker) drive() {
	d, ok := w.conn.(Driven)
	c := &w.run.cfg
	if ok && w.task != nil && !c.TaskOnly && c.Pacer == nil && c.Observe == nil && c.Pipeline <= 1 {
		w.driven, w.stepFn = d, w.step
	}
}

// sendNext starts the worker's next exchange on its kept-alive connection
// and reports whether its response can be awaited on the loop (Park). On
// false, w.inFlight says whether the exchange was started (Finish ends it)
// or not (the budget is spent, or the run stopped).
func (w *worker) sendNext() bool {
	r := w.run
	if r.stopped.Load() {
		return false
	}
	i, _, ok := w.take(1)
	if !ok {
		w.spent = true
		return false
	}
	x := &w.x
	x.reset(w)
	if !w.target(x, i) {
		w.spent = true
		return false
	}
	w.count(1)
	w.inFlight = true
	return w.driven.Send(x)
}

// step is the loop's handler while the worker is parked (Driven.Park): it
// reads what arrived and, once the response is whole, records it and sends
// the next request. It returns false to resume the worker's task.
func (w *worker) step() bool {
	x := &w.x
	o, got := w.driven.Receive(x)
	if got != GotAll {
		return got == GotSome
	}
	w.inFlight = false
	o = w.record(x, o)
	w.afterConnect(x, o)
	if x.Last {
		w.spent = true // the Conn sends no more: the worker's loop ends
		return false
	}
	return x.KeepAlive && w.sendNext()
}
