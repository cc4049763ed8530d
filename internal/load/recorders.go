package load

import (
	"runtime"

	"github.com/gb-bench/gb/internal/record"
)

// recorders are a run's record.Recorders. On the event loops the tasks of a
// loop run one at a time on its goroutine, so they share one recorder per
// loop (and one per loop for the warm-up): memory and the time series'
// per-interval flushes scale with the loops, not with -c. Goroutine workers
// each own one.
type recorders struct {
	main []*record.Recorder // distinct recorders of the measured requests
	warm []*record.Recorder // the warm-up's; nil without one
}

// newRecorders builds n recorders (and n warm-up ones when warm) over the
// run's groups, each sized for an equal share of the -g samples.
func (r *Run) newRecorders(n int, warm bool) recorders {
	r.groups = record.NewGroups(min(4*runtime.GOMAXPROCS(0), max(n, 1)))
	if warm {
		r.warmGroups = record.NewGroups(min(runtime.GOMAXPROCS(0), max(n, 1)))
	}
	hint := 0
	if r.cfg.KeepSamples && r.cfg.Requests > 0 {
		hint = int(r.cfg.Requests/int64(n)) + 1
	}
	rate := r.cfg.Pacer != nil
	var rs recorders
	for i := range n {
		rs.main = append(rs.main, record.NewRecorder(r.groups[i%len(r.groups)], rate, r.cfg.KeepSamples, hint))
		if warm {
			rs.warm = append(rs.warm, record.NewRecorder(r.warmGroups[i%len(r.warmGroups)], rate, false, 0))
		}
		if len(r.loops) > 0 { // loop i's tasks share recorder i: its flushes run on the loop's stack
			rs.main[i].FlushOn(r.loops[i].OnLoop)
			if warm {
				rs.warm[i].FlushOn(r.loops[i].OnLoop)
			}
		}
	}
	return rs
}

// recorderCount is how many recorders a run needs: one per loop, or one per worker.
func (r *Run) recorderCount() int {
	if len(r.loops) > 0 {
		return len(r.loops)
	}
	return r.cfg.Concurrency
}
