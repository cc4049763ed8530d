package stats

import (
	"encoding/json"
	"time"
)

// Series is a run's time series: what happened in each interval of length
// Interval, the first starting at Points[0].Start. Interval starts are
// whole multiples of Interval in Unix time (wall clock), so the series of
// several processes (shards of one load) line up point by point and can be
// merged. A run without a series has a nil *Series.
type Series struct {
	Interval time.Duration `json:"interval_ns"` // length of each point
	Points   []Point       `json:"points"`      // in time order, one per interval, none skipped
}

// Point is one interval of a Series. Counts are of requests that ended in
// the interval, latencies of the responses that ended in it. The first and
// last points may cover only part of their interval (the run's start and
// end); RPS is over the part covered.
type Point struct {
	Start     time.Time        `json:"start"`               // wall clock; the interval is [Start, Start+Interval)
	Ended     int64            `json:"ended"`               // requests that ended, any outcome
	OK        int64            `json:"ok"`                  // 2xx and 3xx responses
	Non2xx    int64            `json:"non2xx"`              // other responses
	Failed    int64            `json:"failed"`              // failures of every class
	RPS       float64          `json:"rps"`                 // (OK + Non2xx) ÷ the interval in seconds
	Errors    map[string]int64 `json:"errors,omitempty"`    // failures by outcome name, e.g. "failed.timeout.total"
	Latency   *Dist            `json:"latency,omitempty"`   // total (service) time of the responses; nil when none
	Corrected *Dist            `json:"corrected,omitempty"` // rate mode: latency from the intended send time
}

// RPS returns point i's responses per second (Point.RPS); 0 when there
// is no such point.
func (s *Series) RPS(i int) float64 {
	if s == nil || i < 0 || i >= len(s.Points) {
		return 0
	}
	return s.Points[i].RPS
}

// pointAlias has Point's fields without its UnmarshalJSON.
type pointAlias Point

// UnmarshalJSON reads a point and keeps its histograms sparse.
func (p *Point) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, (*pointAlias)(p)); err != nil {
		return err
	}
	p.Latency.pack()
	p.Corrected.pack()
	return nil
}
