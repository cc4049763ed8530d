package load

import (
	"errors"
	"time"
	"unsafe"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/stats"
)

// Streamer is a Conn that multiplexes: it can have several exchanges in
// flight on its connection at once (HTTP/2 streams) and reports them as
// they end, one at a time, in any order. A worker whose Conn is a
// Streamer drives it with loopStreams instead of Do. Like Conn, it is
// owned by its worker; only Interrupt may be called from another
// goroutine. None of its methods may allocate in steady state.
type Streamer interface {
	Conn
	// Room is how many more exchanges Start may begin now: the streams
	// the connection allows beyond those in flight (0 while it drains
	// after a GOAWAY). With nothing in flight it is at least 1, and before
	// the first Start it is the most the Conn will ever allow.
	Room() int
	// Start begins exchange x: it opens a connection when none is open
	// and queues the request (the write happens in Next). done reports
	// that x already ended (the connect failed): x and o are final and
	// Next will not return x. Otherwise x is in flight until Next returns
	// it; the caller must not touch it until then.
	Start(x *Exchange) (o stats.Outcome, done bool)
	// Next sends what Start queued and waits until an exchange in flight
	// ends, returning it with its outcome; every started exchange is
	// returned exactly once. It returns nil when none is in flight, or
	// when until (non-zero) passes first.
	Next(until time.Time) (*Exchange, stats.Outcome)
}

// Fatal is an exchange's error (Exchange.Err) that will fail every
// request the same way (the server does not speak the protocol asked
// for): once the exchange is recorded, with its own outcome, the run
// stops with a StopError carrying Err. A Streamer's exchanges only.
type Fatal struct{ Err error }

func (f *Fatal) Error() string { return f.Err.Error() }
func (f *Fatal) Unwrap() error { return f.Err }

// stopIfFatal stops the run when x failed with a Fatal error.
func (w *worker) stopIfFatal(x *Exchange) {
	var f *Fatal
	if errors.As(x.Err, &f) {
		w.run.Stop(stats.StopError, f.Err)
	}
}

// streamSlot is one exchange of a streaming worker.
type streamSlot struct {
	x    Exchange
	warm bool // sent during the warm-up: recorded as the warm-up's
}

// loopStreams is loop for a Streamer: it keeps up to Room exchanges in
// flight on the worker's connection. In a closed loop a free stream
// sends the next request at once; in rate mode it sends the next due one
// when it is due, and latency is also measured from that time.
func (w *worker) loopStreams(s Streamer) {
	r := w.run
	slots := make([]streamSlot, max(s.Room(), 1))
	free := make([]*streamSlot, len(slots))
	for i := range slots {
		free[i] = &slots[len(slots)-1-i]
	}
	var (
		inflight       int
		due            time.Time // the next request's intended time (rate mode)
		pending, spent bool      // a request is taken but not yet sent; the budget is spent
		idx            int64     // the pending request's index, for its target (Config.Order)
	)
	for {
		for !r.stopped.Load() && len(free) > 0 && s.Room() > 0 {
			if !pending {
				i, start, ok := w.take(1)
				if !ok {
					spent = true
					break
				}
				pending, due, idx = true, time.Time{}, i
				if r.cfg.Pacer != nil {
					due = start.Add(r.cfg.Pacer.Due(i))
					if w.warming && !due.Before(r.start) {
						w.measure() // the warm-up's schedule ends where the measured one begins
						pending = false
						continue
					}
				}
			}
			if !due.IsZero() && time.Now().Before(due) {
				break
			}
			pending = false
			w.count(1)
			sl := free[len(free)-1]
			free = free[:len(free)-1]
			sl.x.reset(w)
			sl.x.Intended, sl.warm = clock.Of(due), w.warming
			sl.x.Target = r.cfg.Order.Target(idx)
			if o, done := s.Start(&sl.x); done {
				w.endStream(sl, o)
				free = append(free, sl)
				w.afterConnect(&sl.x, o)
				continue
			}
			inflight++
		}
		if inflight == 0 {
			if r.stopped.Load() || spent || !pending {
				break
			}
			if !w.waitUntil(due) {
				break
			}
			continue
		}
		var until time.Time
		if pending && !r.stopped.Load() {
			until = due
		}
		x, o := s.Next(until)
		if x == nil {
			continue
		}
		sl := slotOf(x)
		inflight--
		w.endStream(sl, o)
		free = append(free, sl)
	}
	w.finish()
}

// slotOf returns the slot holding x, one of slots' exchanges: x is the
// first field of its slot, so they share an address.
func slotOf(x *Exchange) *streamSlot { return (*streamSlot)(unsafe.Pointer(x)) }

// endStream records a streamed exchange in the recorder of the phase it
// was sent in.
func (w *worker) endStream(sl *streamSlot, o stats.Outcome) {
	rec := w.rec
	if sl.warm && w.warm != nil {
		w.rec = w.warm
	}
	o = w.record(&sl.x, o)
	w.rec = rec
	if o.Failed() && sl.x.Err != nil {
		w.stopIfFatal(&sl.x)
	}
	if w.run.cfg.Observe != nil {
		w.run.cfg.Observe(&sl.x, o)
	}
}
