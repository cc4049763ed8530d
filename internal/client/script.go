package client

import (
	"fmt"
	"time"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/evloop"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/script"
	"github.com/gb-bench/gb/stats"
)

// scripted is a Fast's state with a script (UseScript): each exchange's
// request comes from the script's thread, and each response goes back to
// it.
type scripted struct {
	thread *script.Thread
	batch  script.Batch // the last request()'s bytes, parsed
	sent   int          // requests of batch in the batch being sent (DoBatch)
	index  int          // which request of batch is being read
	task   *evloop.Task // the worker's task, for delay(); nil on a goroutine
}

// UseScript makes f send the requests of t, a script's thread, and hand
// it the responses (their headers and bodies only when it defines
// response()). On an event loop a kept-alive connection's exchanges run
// on the loop's stack as unscripted ones do (Send, Receive), request()
// and response() included: the thread belongs to that loop, whose tasks
// and handler never run at once. A script that defines delay() runs
// every exchange through Do on the worker's task, which can wait. Call
// it before the first Do.
func (f *Fast) UseScript(t *script.Thread) {
	f.scr = &scripted{thread: t, task: evloop.FromContext(f.ctx)}
	if t.WantsResponse() {
		f.rd.Keep = &h1.Kept{}
	}
}

// scriptRequest runs delay() (closed loop only) and request() for x, the
// next exchange of Do. When the script gives no request, x ends as
// failed.script and ok is false.
func (f *Fast) scriptRequest(x *load.Exchange) (o stats.Outcome, ok bool) {
	s := f.scr
	if x.Intended.IsZero() && s.thread.HasDelay() {
		d, err := s.thread.Delay()
		if err != nil {
			return scriptFailed(x, err), false
		}
		s.pause(d)
	}
	if err := s.thread.Request(&s.batch); err != nil {
		return scriptFailed(x, err), false
	}
	if n := s.batch.Len(); n != 1 {
		return scriptFailed(x, fmt.Errorf("request() returned %d pipelined requests where the run expects 1", n)), false
	}
	s.sent, s.index = 1, 0
	return stats.OK, true
}

// scriptSend runs request() for x, which Send starts on the open
// connection. It reports false when x needs Finish instead: the script
// defines delay(), which only Do (on the worker's task) can wait for;
// or request() gave no request, and x ended as failed.script (stage
// refused).
func (f *Fast) scriptSend(x *load.Exchange) bool {
	if f.scr.thread.HasDelay() {
		return false
	}
	if _, ok := f.scriptRequest(x); !ok {
		f.stage = refused
		return false
	}
	return true
}

// scriptRefused is Finish for an exchange whose request() gave no
// request (scriptSend): x ended there as failed.script.
func (f *Fast) scriptRefused(x *load.Exchange) stats.Outcome {
	f.stage = unsent
	f.scr.last(x)
	return stats.FailScript
}

// pause waits d before the next request: on the worker's task on an
// event loop, else on its goroutine.
func (s *scripted) pause(d time.Duration) {
	switch {
	case d <= 0:
	case s.task != nil:
		s.task.Sleep(d)
	default:
		time.Sleep(d)
	}
}

// last marks x the worker's last exchange when the script's thread
// stopped (thread:stop()) during it or before it.
func (s *scripted) last(x *load.Exchange) {
	x.Last = s.thread.Stopped()
}

// scriptFailed ends x, which sent nothing, as failed.script.
func scriptFailed(x *load.Exchange, err error) stats.Outcome {
	now := clock.Read()
	if x.Start.IsZero() {
		x.Start = now
	}
	x.Connected, x.Done, x.Err = x.Start, now, err
	return stats.FailScript
}

// doScriptBatch is DoBatch with a script: one request() gives the
// batch's requests (wrk's pipeline.lua). When it gives more than the
// batch holds (the budget's last batch) the first ones are sent; when
// fewer, the exchanges left over end as failed.script.
func (f *Fast) doScriptBatch(xs []load.Exchange, outs []stats.Outcome) {
	s := f.scr
	defer func() {
		for i := range xs {
			s.last(&xs[i])
		}
	}()
	if err := s.thread.Request(&s.batch); err != nil {
		for i := range xs {
			outs[i] = scriptFailed(&xs[i], err)
		}
		return
	}
	n := min(s.batch.Len(), len(xs))
	for i := n; i < len(xs); i++ {
		outs[i] = scriptFailed(&xs[i], fmt.Errorf("request() returned %d pipelined requests where the run expects %d", s.batch.Len(), len(xs)))
	}
	s.sent = n
	f.doBatch(xs[:n], outs[:n])
}

// batchBytes returns the wire bytes of the last n requests of the batch
// being sent: the script's, or n copies of Config's request.
func (f *Fast) batchBytes(n int) []byte {
	if s := f.scr; s != nil {
		return s.batch.Span(s.sent-n, s.sent)
	}
	return f.cfg.batch(n)
}

// scriptResponse classifies a complete response and hands it to the
// script's response(); an error it raises makes the exchange
// failed.script.
func (f *Fast) scriptResponse(x *load.Exchange, status int) stats.Outcome {
	t := f.scr.thread
	if t.WantsResponse() {
		k := f.rd.Keep
		if err := t.Response(status, k.Fields, k.Body); err != nil {
			x.Err = err
			return stats.FailScript
		}
	}
	if status >= 200 && status < 300 {
		return stats.OK
	}
	return stats.Non2xx
}
