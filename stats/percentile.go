package stats

import "time"

// Percentile returns the latency of phase ph at or below which q percent
// (0..100) of the responses fall (within 0.1%); 0 when the phase has no
// samples (Corrected and Lag exist only in rate mode).
func (r *Result) Percentile(ph Phase, q float64) time.Duration {
	if ph >= NumPhases {
		return 0
	}
	return time.Duration(r.Latency[ph].Percentile(q)) * time.Microsecond
}
