package record

import (
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gb-bench/gb/stats"
)

// Group holds the HdrHistograms that a group of Recorders flush into.
// It is safe for concurrent use.
//
// The series phases (Total, Corrected) are kept per interval of the time
// series: a group holds its newest interval and the one before, and hands
// older ones to the run's timeline (shared by the groups of one NewGroups
// call), which also sums them into the run's histograms. Without a series
// every sample is in one interval, handed over by Collect.
type Group struct {
	mu        sync.Mutex
	hist      [stats.NumPhases]*hdrhistogram.Histogram // the other phases; allocated on first use
	cur, prev interval                                 // the intervals the recorders flush into
	tl        *timeline
}

// NewGroups returns n groups for NewRecorder (n < 1 is taken as 1), the
// groups of one run.
func NewGroups(n int) []*Group {
	tl := &timeline{}
	s := make([]*Group, max(n, 1))
	for i := range s {
		s[i] = &Group{tl: tl}
	}
	return s
}

// slot returns the group's accumulator for interval idx, or nil when idx
// is older than both of the group's (a recorder that was idle for more than
// an interval); the caller then adds to the timeline directly. A newer idx
// retires the older of the two. Call with s.mu held.
func (s *Group) slot(idx int64) *interval {
	if !s.cur.used {
		s.cur.idx, s.cur.used = idx, true
	}
	switch {
	case idx == s.cur.idx:
		return &s.cur
	case s.prev.used && idx == s.prev.idx:
		return &s.prev
	case idx > s.cur.idx:
		s.retire(&s.prev)
		s.prev, s.cur = s.cur, s.prev
		s.cur.idx, s.cur.used = idx, true
		return &s.cur
	case !s.prev.used || idx > s.prev.idx:
		s.retire(&s.prev)
		s.prev.idx, s.prev.used = idx, true
		return &s.prev
	}
	return nil
}

// retire hands iv to the timeline and empties it. Call with s.mu held.
func (s *Group) retire(iv *interval) {
	if iv.used {
		s.tl.merge(iv)
	}
	iv.reset()
}

// retireAll hands both intervals to the timeline (Collect, after the run).
func (s *Group) retireAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retire(&s.prev)
	s.retire(&s.cur)
}
