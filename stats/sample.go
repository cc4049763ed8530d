package stats

import "time"

// Sample is one response's timings, kept only when a run asks for
// per-request rows (ab's -g file; Result.Samples). Times are µs; Start is
// Unix µs.
type Sample struct {
	Start      int64
	Connect    int64
	Processing int64
	Total      int64
	Waiting    int64
}

// LateAfter is how far behind its intended time a rate-mode request may
// start before it counts as late (Counts.Late).
const LateAfter = time.Millisecond

// Closed is what a running load's closed intervals count besides outcomes
// and latency: the part of Counts a watcher reads while the load runs (a
// metrics scrape, through gb's Live.Latency). The zero value is empty.
type Closed struct {
	Status   [6]int64 // final responses by status class: [1] 1xx ... [5] 5xx; [0] any other code
	BytesIn  int64    // bytes read, headers included (Counts.BytesIn)
	BytesOut int64    // bytes written (Counts.BytesOut)
}
