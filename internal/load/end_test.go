package load

import (
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/stats"
)

// TestEndCoversCountedResponses: a run stopped (by time, a signal, a
// context) counts the responses that raced the stop, so its End is the
// later of the stop and the last counted response; requests aborted by the
// stop (no response) do not stretch it.
func TestEndCoversCountedResponses(t *testing.T) {
	start := clock.Read()
	stop := start + clock.Mono(300*time.Millisecond)
	for _, tc := range []struct {
		name     string
		answered clock.Mono // the last response's end; 0 = none
		aborted  clock.Mono // the last request's end (aborted by the stop)
		want     clock.Mono
	}{
		{"a response after the stop", stop + clock.Mono(2*time.Millisecond), stop + clock.Mono(3*time.Millisecond), stop + clock.Mono(2*time.Millisecond)},
		{"responses before the stop, aborts after", stop - clock.Mono(time.Millisecond), stop + clock.Mono(5*time.Millisecond), stop},
		{"no response", 0, stop + clock.Mono(5*time.Millisecond), stop},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Run{start: start.Time(), startMono: start}
			r.workers = []*worker{{last: tc.aborted, answered: tc.answered}, {last: start + 1, answered: start + 1}}
			r.cause.Store(&stopCause{reason: stats.StopTime, at: stop.Time()})
			res := r.result(stats.Result{Start: start.Time()})
			if !res.End.Equal(tc.want.Time()) || res.Elapsed != res.End.Sub(res.Start) {
				t.Errorf("End %v after the start (elapsed %v), want %v", res.End.Sub(res.Start), res.Elapsed, tc.want.Time().Sub(start.Time()))
			}
		})
	}
}
