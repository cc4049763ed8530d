package stats

import (
	"encoding/json"
	"time"
)

// Series is a run's time series: what happened in each interval of
// length Interval, the first starting at Points[0].Start. Interval starts
// are whole multiples of Interval in Unix time (wall clock), so the series
// of several processes (shards of one load) line up point by point and can
// be merged. A long run keeps its memory flat: its older intervals are
// merged into points of 2, 4, 8, ... intervals (each point's Width, a
// power of two times Interval, its Start a whole multiple of its Width),
// the newest ones stay one interval each. A run without a series has a nil
// *Series.
type Series struct {
	Interval time.Duration `json:"interval_ns"` // the length of the finest points
	Points   []Point       `json:"points"`      // in time order, none skipped: each starts where the one before ends
}

// Point is one interval of a Series, or several merged (Width). Counts
// are of requests that ended in it, latencies of the responses that ended
// in it. The first and last points may cover only part of their interval
// (the run's start and end); RPS is over the part covered.
type Point struct {
	Start     time.Time        `json:"start"`               // wall clock; the point is [Start, Start+Width)
	Width     time.Duration    `json:"width_ns,omitempty"`  // the point's length: Interval, or a power of two times it for merged older intervals; 0 (format version 2 and before) = Interval
	Ended     int64            `json:"ended"`               // requests that ended, any outcome
	OK        int64            `json:"ok"`                  // 2xx and 3xx responses
	Non2xx    int64            `json:"non2xx"`              // other responses
	Failed    int64            `json:"failed"`              // failures of every class
	RPS       float64          `json:"rps"`                 // (OK + Non2xx) ÷ the point's covered length in seconds
	Errors    map[string]int64 `json:"errors,omitempty"`    // failures by outcome name, e.g. "failed.timeout.total"
	Latency   *Dist            `json:"latency,omitempty"`   // total (service) time of the responses; nil when none
	Corrected *Dist            `json:"corrected,omitempty"` // rate mode: latency from the intended send time
}

// Width returns point i's length: its Width, or Interval when that is 0
// (a file of format version 2 or before). 0 when there is no such point.
func (s *Series) Width(i int) time.Duration {
	if s == nil || i < 0 || i >= len(s.Points) {
		return 0
	}
	if w := s.Points[i].Width; w > 0 {
		return w
	}
	return s.Interval
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
