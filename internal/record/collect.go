package record

import (
	"slices"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gb-bench/gb/stats"
)

// Collect folds a run's recorders and groups into base and returns it. base
// carries what the recorders do not know (Version, Command, Target, Start,
// End, Elapsed, StoppedBy, Counts.Dispatched). Collect flushes each recorder
// first; call it once, after every worker has stopped. When the recorders
// kept a series (StartSeries), the result has one: its points run from the
// interval of base.Start to that of base.End, none skipped.
func Collect(base stats.Result, recs []*Recorder, groups []*Group) *stats.Result {
	r := base
	if r.Version == 0 {
		r.Version = stats.FormatVersion
	}
	c := &r.Counts
	c.Status = map[int]int64{}
	var first *firstResponse
	var exact [stats.NumPhases]stats.Exact
	var every time.Duration
	all := append([]*Group(nil), groups...)
	r.Checks = slices.Clone(base.Checks)
	for _, rec := range recs {
		mergeChecks(&r, rec)
		rec.Flush()
		all = append(all, rec.group)
		if rec.every > 0 {
			every = time.Duration(rec.every)
		}
		for i, v := range rec.Outcomes {
			c.Outcomes[i] += v
		}
		c.Retries += rec.Retries
		c.Late += rec.Late
		c.KeepAlive += rec.KeepAlive
		c.Info += rec.Info
		c.ConnsOpened += rec.ConnsOpened
		c.ConnsClosed += rec.ConnsClosed
		c.BytesIn += rec.BytesIn
		c.BodyIn += rec.BodyIn
		c.DecodedIn += rec.DecodedIn
		c.BytesOut += rec.BytesOut
		for i := 0; i < rec.nCodes; i++ {
			c.Status[rec.codes[i]] += rec.counts[i]
		}
		c.OtherStatus += rec.other
		mergeErrors(c, rec)
		for p := range exact {
			exact[p].Merge(&rec.exact[p])
		}
		if rec.first.at != 0 && (first == nil || rec.first.at < first.at) {
			first = &rec.first
		}
		r.Samples = append(r.Samples, rec.samples...)
	}
	if first != nil {
		r.Server.Software = first.server
		r.Server.DocumentLength = first.length
		c.LengthMismatch = lengthMismatches(recs, first.length)
	}
	tls := retireAll(all)
	mergeTargets(&r, tls)
	for p := range exact {
		if exact[p].Count == 0 {
			continue
		}
		d := &stats.Dist{Exact: exact[p], Hist: stats.NewHistogram()}
		for _, h := range phaseHists(stats.Phase(p), all, tls) {
			d.Hist.Merge(h)
		}
		r.Latency[p] = d
	}
	for _, t := range tls {
		if every > 0 && t.keep {
			r.Series = t.series(every, r.Start, r.End)
			break
		}
	}
	return &r
}

// retireAll hands every group's intervals to its timeline and returns the
// distinct timelines (one per NewGroups call), each group once.
func retireAll(groups []*Group) []*timeline {
	var tls []*timeline
	seen := map[*Group]bool{}
	for _, s := range groups {
		if s == nil || seen[s] {
			continue
		}
		seen[s] = true
		s.retireAll()
		if !slices.Contains(tls, s.tl) {
			tls = append(tls, s.tl)
		}
	}
	return tls
}

// phaseHists returns the histograms that hold phase p's samples: the
// timelines' run-wide ones for a series phase, else the groups'.
func phaseHists(p stats.Phase, groups []*Group, tls []*timeline) []*hdrhistogram.Histogram {
	var hs []*hdrhistogram.Histogram
	for s, sp := range seriesPhases {
		if sp == p {
			for _, t := range tls {
				hs = append(hs, t.total[s])
			}
			return nonNil(hs)
		}
	}
	seen := map[*Group]bool{}
	for _, s := range groups {
		if s != nil && !seen[s] {
			seen[s] = true
			hs = append(hs, s.hist[p])
		}
	}
	return nonNil(hs)
}

// nonNil returns hs without its nil entries.
func nonNil(hs []*hdrhistogram.Histogram) []*hdrhistogram.Histogram {
	return slices.DeleteFunc(hs, func(h *hdrhistogram.Histogram) bool { return h == nil })
}

// lengthMismatches counts the responses whose body length is not doc.
func lengthMismatches(recs []*Recorder, doc int64) int64 {
	var n int64
	for _, rec := range recs {
		n += rec.exact[stats.Total].Count
		for i := 0; i < rec.nLengths; i++ {
			if rec.lengths[i].length == doc {
				n -= rec.lengths[i].n
			}
		}
	}
	return n
}

// mergeErrors adds a recorder's error messages, keeping at most
// maxRunErrors distinct ones.
func mergeErrors(c *stats.Counts, rec *Recorder) {
	c.OtherErrors += rec.errOther
	for msg, n := range rec.errs {
		if c.Errors == nil {
			c.Errors = map[string]int64{}
		}
		if _, ok := c.Errors[msg]; ok || len(c.Errors) < maxRunErrors {
			c.Errors[msg] += n
		} else {
			c.OtherErrors += n
		}
	}
}
