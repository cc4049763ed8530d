package client

import (
	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/evloop"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// Fast is a load.Driven: on an event loop, a kept-alive connection's
// exchanges run on the loop's stack (Send, then Receive each time the
// socket is readable), with the same clock readings, parser and
// classification as Do. What they cannot finish without waiting they leave
// to Finish, on the worker's task.

var _ load.Driven = (*Fast)(nil)

// sendStage is how far Send got with the exchange in flight.
type sendStage uint8

const (
	unsent     sendStage = iota // Send did not start it: Finish runs Do
	writing                     // f.sent bytes of the request are out; the rest would have waited
	unsendable                  // the write failed with f.werr
	reading                     // the request is out: the response is read
	refused                     // the script gave no request: x ended as failed.script (scriptSend)
)

// drivable reports whether the open connection's exchanges can run on its
// loop: a plain loop socket read through the Reader alone, with one
// deadline per request and bodies discarded undecoded.
func (f *Fast) drivable() (*evloop.Conn, bool) {
	c, ok := f.nc.(*evloop.Conn)
	return c, ok && f.plain
}

// Send starts x on the connection the last exchange left open; see
// load.Driven.
func (f *Fast) Send(x *load.Exchange) bool {
	f.stage = unsent
	c, ok := f.drivable()
	if !ok || f.scr != nil && !f.scriptSend(x) {
		return false
	}
	x.Start = clock.Read()
	f.target = x.Target
	x.Connected = x.Start
	f.arm(x.Start)
	req := f.request()
	n, err := c.Write(req)
	x.BytesOut += int64(n)
	switch {
	case err == evloop.ErrWouldWait:
		f.stage, f.sent = writing, n
		return false
	case err != nil:
		f.stage, f.werr = unsendable, err
		return false
	}
	x.Written = clock.Read()
	f.wire = f.rd.Wire
	f.stage = reading
	return true
}

// Receive reads what has arrived for x without waiting; see load.Driven.
func (f *Fast) Receive(x *load.Exchange) (stats.Outcome, load.Got) {
	n, ok := f.rd.ReadNow()
	if !ok {
		return 0, load.GotStuck
	}
	// One reading serves as the first byte's time and, when this read
	// completes the response (a small one, most often), as Done: the
	// response had arrived when the read returned, and parsing it is gb's
	// time, not the server's. It saves one of four clock readings per
	// kept-alive request.
	var got clock.Mono
	if n > 0 {
		got = clock.Read()
		if x.FirstByte.IsZero() {
			x.FirstByte = got
		}
	}
	r := &f.resp
	whole, ok := f.rd.Parse(r, f.head())
	switch {
	case !ok:
		return 0, load.GotStuck
	case !whole:
		return 0, load.GotSome
	}
	x.Status, x.Info, x.Server = r.Status, r.Info, f.rd.Server()
	o, _ := f.received(x, nil, true)
	x.BytesIn += f.rd.Wire - f.wire
	if got.IsZero() { // an earlier read had buffered it (pipelining)
		got = clock.Read()
	}
	x.Done = got
	f.stage = unsent
	if f.scr != nil {
		f.scr.last(x)
	}
	return o, load.GotAll
}

// Park parks the worker's task while the loop runs fn; see load.Driven.
func (f *Fast) Park(fn func() bool) {
	if c, ok := f.nc.(*evloop.Conn); ok {
		_ = c.Drive(fn) // an error fails the read that Finish makes
	}
}

// Finish ends x from wherever Send and Receive left it; see load.Driven.
func (f *Fast) Finish(x *load.Exchange) stats.Outcome {
	switch f.stage {
	case unsent:
		return f.Do(x)
	case refused:
		return f.scriptRefused(x)
	}
	o, retry := f.finish(x)
	if retry {
		x.Retried = true
		o, _ = f.attempt(x)
	}
	x.Done = clock.Read()
	f.stage = unsent
	if f.scr != nil {
		f.scr.last(x)
	}
	return o
}

// finish is attempt's part for an exchange Send started on a reused
// connection.
func (f *Fast) finish(x *load.Exchange) (stats.Outcome, bool) {
	switch f.stage {
	case writing:
		n, err := f.nc.Write(f.request()[f.sent:])
		x.BytesOut += int64(n)
		if err != nil {
			return f.failWrite(x, err, true)
		}
		x.Written = clock.Read()
		f.wire = f.rd.Wire
	case unsendable:
		return f.failWrite(x, f.werr, true)
	}
	o, retry := f.read(x, true)
	x.BytesIn += f.rd.Wire - f.wire
	return o, retry
}
