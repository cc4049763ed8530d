package stats

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// ShardID names one process's part of a load split over several
// processes (gb --shard I/N): shard Index of Count, Index from 0. The zero
// value means the load is not split. In a Target it records which share
// of the load the run carried; a merged result has the zero value.
type ShardID struct {
	Index int `json:"index"` // 0 ≤ Index < Count
	Count int `json:"count"` // how many shards the load is split into; 0 = not split
}

// ParseShardID parses "I/N" (0 ≤ I < N). The error is one line naming
// what is wrong.
func ParseShardID(s string) (ShardID, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return ShardID{}, fmt.Errorf("invalid shard %q: want I/N, e.g. 0/4", s)
	case n < 1:
		return ShardID{}, fmt.Errorf("invalid shard %q: N must be at least 1", s)
	case i < 0 || i >= n:
		return ShardID{}, fmt.Errorf("invalid shard %q: I must be from 0 to N-1 (%d)", s, n-1)
	}
	return ShardID{Index: i, Count: n}, nil
}

// IsZero reports whether s is the zero value (no sharding).
func (s ShardID) IsZero() bool { return s == ShardID{} }

// String returns "I/N", or "" for the zero value.
func (s ShardID) String() string {
	if s.IsZero() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Share returns this shard's part of total: total/Count, plus one for
// the first total%Count shards, so the shares of all Count shards sum to
// total exactly and differ by at most one. The zero ShardID's share is
// total.
func (s ShardID) Share(total int64) int64 {
	if s.Count <= 1 {
		return total
	}
	n := int64(s.Count)
	share := total / n
	if int64(s.Index) < total%n {
		share++
	}
	return share
}

// checkShards refuses a set of results that cannot be the shards of one
// load: shards of different splits, one shard twice, one result twice
// (the same start, to the nanosecond, end and count), and, unless
// partial, a split load
// with shards missing (a *MissingShardsError). It returns the shard
// indexes present, ascending (nil for an unsplit load).
func checkShards(rs []*Result, partial bool) ([]int, error) {
	seen := map[int]int{}
	for i, r := range rs {
		s := r.Load.Shard
		if s.Count != rs[0].Load.Shard.Count {
			return nil, fmt.Errorf("result %d: another shard (%s, not %s)", i+1, orNone(s), orNone(rs[0].Load.Shard))
		}
		for j, o := range rs[:i] {
			if !r.Start.IsZero() && o.Start.Equal(r.Start) && o.End.Equal(r.End) && o.Counts.Dispatched == r.Counts.Dispatched {
				return nil, fmt.Errorf("result %d is result %d again (the same start, end and count)", i+1, j+1)
			}
		}
		if s.IsZero() {
			continue
		}
		if j, dup := seen[s.Index]; dup {
			return nil, fmt.Errorf("result %d: shard %s again (result %d is shard %s too)", i+1, s, j+1, s)
		}
		seen[s.Index] = i
	}
	have := slices.Sorted(maps.Keys(seen))
	if n := rs[0].Load.Shard.Count; len(have) < n && !partial {
		e := &MissingShardsError{Count: n, Have: have}
		for i := range n {
			if _, ok := seen[i]; !ok {
				e.Missing = append(e.Missing, i)
			}
		}
		return nil, e
	}
	return have, nil
}

// MissingShardsError is Merge's error for some, not all, of the shards
// of a split load.
type MissingShardsError struct {
	Count   int   // the shards the load was split into
	Have    []int // the indexes given, ascending
	Missing []int // the indexes not given, ascending
}

// Error names the missing shards: "shard 2 of 4 missing (have 0,1,3)".
func (e *MissingShardsError) Error() string {
	what := "shard"
	if len(e.Missing) > 1 {
		what = "shards"
	}
	return fmt.Sprintf("%s %s of %d missing (have %s)", what, indexList(e.Missing), e.Count, indexList(e.Have))
}

// String names the shards merged: "shards 0,1,3 of 4".
func (p *Partial) String() string {
	what := "shards"
	if len(p.Shards) == 1 {
		what = "shard"
	}
	return fmt.Sprintf("%s %s of %d", what, indexList(p.Shards), p.Count)
}

// indexList writes shard indexes as "0,1,3".
func indexList(is []int) string {
	s := make([]string, len(is))
	for i, v := range is {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

func orNone(s ShardID) string {
	if s.IsZero() {
		return "none"
	}
	return s.String()
}

var errNothing = errors.New("nothing to combine")
