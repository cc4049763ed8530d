package record

import (
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gb-bench/gb/stats"
)

// targetSample is one request of a target, batched in a Recorder until it
// is flushed into the run's targetTable.
type targetSample struct {
	target        int32
	outcome       stats.Outcome
	us            int64 // total latency; used when outcome responded
	in, body, out int64
	responded     bool
}

// targetTable is a run's per-target account, shared by the groups of one
// NewGroups call: every recorder flushes its batch of targetSamples into
// it under mu, one lock per batchLen requests. Its rows grow to the
// largest target index seen.
type targetTable struct {
	mu   sync.Mutex
	rows []targetRow
}

type targetRow struct {
	stats.TargetStats
	doc   int64 // the body length of the first response flushed
	docd  bool  // doc is set
	exact stats.Exact
	hist  *hdrhistogram.PackedHistogram // allocated on the first response (newTargetHist)
}

// newTargetHist returns an empty target histogram: sparse, since a run
// may have tens of thousands of targets of a few requests each.
func newTargetHist() *hdrhistogram.PackedHistogram {
	return hdrhistogram.NewPacked(stats.HistLowest, stats.HistHighest, stats.TargetDigits)
}

// EndTarget records that the request just ended (with outcome o) went to
// target t (from 0): bytesIn, body and bytesOut are its bytes, totalUs its
// total latency in µs (read when o responded). Call it only in runs with
// several targets, once per request; it allocates only the recorder's
// batch, at its first call, and takes the run's lock once per batchLen
// calls.
func (r *Recorder) EndTarget(t int, o stats.Outcome, bytesIn, body, bytesOut, totalUs int64) {
	if r.targetBatch == nil { // once per recorder: a run of one target never pays for it
		r.targetBatch = new([batchLen]targetSample)
	}
	if r.nTarget == batchLen {
		r.flushTargets()
	}
	r.targetBatch[r.nTarget] = targetSample{target: int32(t), outcome: o, us: totalUs,
		in: bytesIn, body: body, out: bytesOut, responded: o.Responded()}
	r.nTarget++
}

// flushTargets moves the batched per-target samples into the run's table.
func (r *Recorder) flushTargets() {
	if r.nTarget == 0 {
		return
	}
	tt := &r.group.tl.targets
	tt.mu.Lock()
	for _, s := range r.targetBatch[:r.nTarget] {
		tt.add(&s)
	}
	tt.mu.Unlock()
	r.nTarget = 0
}

// add folds one sample in. Call with mu held.
func (tt *targetTable) add(s *targetSample) {
	for int(s.target) >= len(tt.rows) {
		tt.rows = append(tt.rows, targetRow{})
	}
	row := &tt.rows[s.target]
	row.Requests++
	row.Outcomes[s.outcome]++
	row.BytesIn += s.in
	row.BodyIn += s.body
	row.BytesOut += s.out
	if s.responded {
		switch {
		case !row.docd:
			row.doc, row.docd = s.body, true
		case s.body != row.doc:
			row.LengthMismatch++
		}
		row.exact.Add(s.us)
		if row.hist == nil {
			row.hist = newTargetHist()
		}
		_ = row.hist.RecordValue(min(max(s.us, stats.HistLowest), stats.HistHighest)) // clamped into range: cannot fail
	}
}

// mergeTargets fills r.Targets' counts from the run's tables (one per
// distinct timeline). r.Targets already names the targets (the caller's
// base); a run with no such list gets none. With targets, the run's
// length mismatches are the sum of theirs.
func mergeTargets(r *stats.Result, tls []*timeline) {
	if len(r.Targets) == 0 {
		return
	}
	out := make([]stats.TargetStats, len(r.Targets))
	copy(out, r.Targets)
	sums := make([]targetRow, len(out))
	for _, tl := range tls {
		tt := &tl.targets
		tt.mu.Lock()
		for i := range tt.rows[:min(len(tt.rows), len(out))] {
			sums[i].addRow(&tt.rows[i])
		}
		tt.mu.Unlock()
	}
	r.Counts.LengthMismatch = 0
	for i := range out {
		addCounts(&out[i], &sums[i].TargetStats)
		if sums[i].exact.Count > 0 {
			out[i].Latency = stats.SparseDist(sums[i].exact, sums[i].hist)
		}
		r.Counts.LengthMismatch += out[i].LengthMismatch
	}
	r.Targets = out
}

// addRow adds o's counts and latency to row (whose doc it leaves alone).
func (row *targetRow) addRow(o *targetRow) {
	addCounts(&row.TargetStats, &o.TargetStats)
	if o.exact.Count == 0 {
		return
	}
	row.exact.Merge(&o.exact)
	if row.hist == nil {
		row.hist = newTargetHist()
	}
	row.hist.Merge(o.hist)
}

// addCounts adds b's counts (not its latency) to a.
func addCounts(a, b *stats.TargetStats) {
	a.Requests += b.Requests
	for i, v := range b.Outcomes {
		a.Outcomes[i] += v
	}
	a.BytesIn += b.BytesIn
	a.BodyIn += b.BodyIn
	a.BytesOut += b.BytesOut
	a.LengthMismatch += b.LengthMismatch
}
