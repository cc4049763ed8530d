package stats

import "time"

// RequestsPerSecond returns ab's "Requests per second": complete responses
// over the elapsed time; 0 when no time passed.
func (r *Result) RequestsPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Complete()) / r.Elapsed.Seconds()
}

// Percentile returns the latency of phase ph at or below which q percent
// (0..100) of the responses fall (within 0.1%); 0 when the phase has no
// samples (Corrected and Lag exist only in rate mode).
func (r *Result) Percentile(ph Phase, q float64) time.Duration {
	if ph >= NumPhases {
		return 0
	}
	return time.Duration(r.Latency[ph].Percentile(q)) * time.Microsecond
}

// ErrorRate returns the share (0..1) of the requests that ended that did
// not get a 2xx or 3xx response: non-2xx responses plus failures, over
// every request that ended (aborted and dropped ones excluded); 0 when
// none ended.
func (r *Result) ErrorRate() float64 {
	o := &r.Counts.Outcomes
	bad := o[Non2xx] + o.Failed()
	ended := o[OK] + bad
	if ended == 0 {
		return 0
	}
	return float64(bad) / float64(ended)
}
