package load

import (
	"errors"

	"github.com/gb-bench/gb/stats"
)

// Feed gives a request its target as a worker is about to send it, from
// a source read as the load goes (gb's lazy targets) rather than a list
// built before it (Order). slot is the worker's own index, from 0 to
// Concurrency-1: the Feed prepares the request in the Conn's slot (the
// Conn sends target slot) and returns the row of the run's per-target
// account the request counts in (Recorder.EndTarget; Order.Targets must
// then be above 1). It returns ErrFeedEnd when the source has no more,
// which ends the run as its budget would, or another error, which stops
// it (stats.StopError). Workers call it concurrently, each with its own
// slot; it may wait (a stream being read), and the worker's loop waits
// with it. Unlike the Order it costs the request path what the source
// costs: lazy runs only. Not with Pipeline, nor a Streamer Conn (the
// streams take their targets from the Order).
type Feed func(slot int, x *Exchange) (row int, err error)

// ErrFeedEnd is what a Feed returns when its source ended.
var ErrFeedEnd = errors.New("load: the targets' source ended")

// target sets x's target for request index i: the Order's, or the Feed's
// next. false = none: the Feed ended (the worker is done) or failed (the
// run stops). x was reset; nothing is counted yet.
func (w *worker) target(x *Exchange, i int64) bool {
	if w.run.cfg.Feed == nil {
		x.Target = w.run.cfg.Order.Target(i)
		return true
	}
	return w.feed(x)
}

// feed is target with a Feed.
func (w *worker) feed(x *Exchange) bool {
	r := w.run
	if r.fedAll.Load() {
		return false
	}
	row, err := r.cfg.Feed(w.slot, x)
	switch {
	case err == nil:
		w.row, x.Target = row, w.slot
		return true
	case errors.Is(err, ErrFeedEnd):
		r.fedAll.Store(true)
	default:
		r.Stop(stats.StopError, err)
	}
	return false
}

// accountRow is the per-target account row x's request counts in.
func (w *worker) accountRow(x *Exchange) int {
	if w.run.cfg.Feed != nil {
		return w.row
	}
	return x.Target
}
