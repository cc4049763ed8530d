package stats

import (
	"encoding/json"
	"fmt"
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// TargetStats is one target's share of a run with several targets (gb's
// --targets, or several URLs): what was sent to it and how it answered.
// Requests counts the requests sent to the target, so the Requests of all
// targets sum to Counts.Dispatched (dropped rate-mode requests were never
// sent, so belong to no target).
type TargetStats struct {
	URL      string   `json:"url"`    // without credentials
	Method   string   `json:"method"` // as sent
	Requests int64    `json:"requests"`
	Outcomes Outcomes `json:"outcomes"`  // as Counts.Outcomes; dropped is always 0
	BytesIn  int64    `json:"bytes_in"`  // headers and bodies read
	BodyIn   int64    `json:"body_in"`   // bodies only
	BytesOut int64    `json:"bytes_out"` // request lines, headers and bodies written
	// LengthMismatch counts the target's complete responses whose body
	// length differs from its first one's (ab's Length failures, judged
	// per target: targets may well differ from each other).
	LengthMismatch int64 `json:"length_mismatch"`
	// Latency is the total latency (request start to last byte, as
	// Latency's "total") of the target's complete responses (ok and
	// non2xx); nil without any. Its exact moments are exact; its
	// histogram has 2 significant digits (1%, where the run's phases
	// have 3) and is sparse: it holds only the buckets it uses (a few
	// hundred bytes for a target of one request, at most about 26 KiB),
	// so that a file of 50 000 targets stays affordable.
	Latency *Dist `json:"latency,omitempty"`
}

// UnmarshalJSON reads a target as MarshalJSON wrote it, keeping its
// latency histogram sparse, as a run does (a saved run of 50 000 targets
// is re-read by gb report, compare and merge).
func (t *TargetStats) UnmarshalJSON(b []byte) error {
	type plain TargetStats // without this method
	if err := json.Unmarshal(b, (*plain)(t)); err != nil {
		return err
	}
	if d := t.Latency; d != nil && d.Hist != nil {
		d.packed = newTargetHist()
		d.packed.MergeFrom(d.Hist)
		d.Hist = nil
	}
	return nil
}

// Failed returns the target's failed requests (Σfailed.*).
func (t *TargetStats) Failed() int64 { return t.Outcomes.Failed() }

// targetSample is one request of a target, batched in a Recorder until it
// is flushed into the run's targetTable.
type targetSample struct {
	target        int32
	outcome       Outcome
	us            int64 // total latency; used when outcome responded
	in, body, out int64
	responded     bool
}

// targetTable is a run's per-target account, shared by the shards of one
// NewShards call: every recorder flushes its batch of targetSamples into
// it under mu, one lock per batchLen requests. Its rows grow to the
// largest target index seen.
type targetTable struct {
	mu   sync.Mutex
	rows []targetRow
}

type targetRow struct {
	TargetStats
	doc   int64 // the body length of the first response flushed
	docd  bool  // doc is set
	exact Exact
	hist  *hdrhistogram.PackedHistogram // allocated on the first response (newTargetHist)
}

// targetDigits is the precision of a target's latency histogram.
const targetDigits = 2

// newTargetHist returns an empty target histogram: sparse, since a run
// may have tens of thousands of targets of a few requests each.
func newTargetHist() *hdrhistogram.PackedHistogram {
	return hdrhistogram.NewPacked(histLowest, histHighest, targetDigits)
}

// EndTarget records that the request just ended (with outcome o) went to
// target t (from 0): bytesIn, body and bytesOut are its bytes, totalUs its
// total latency in µs (read when o responded). Call it only in runs with
// several targets, once per request; it allocates only the recorder's
// batch, at its first call, and takes the run's lock once per batchLen
// calls.
func (r *Recorder) EndTarget(t int, o Outcome, bytesIn, body, bytesOut, totalUs int64) {
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
	tt := &r.shard.tl.targets
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
		_ = row.hist.RecordValue(min(max(s.us, histLowest), histHighest)) // clamped into range: cannot fail
	}
}

// mergeTargets fills r.Targets' counts from the run's tables (one per
// distinct timeline). r.Targets already names the targets (the caller's
// base); a run with no such list gets none. With targets, the run's
// length mismatches are the sum of theirs.
func mergeTargets(r *Result, tls []*timeline) {
	if len(r.Targets) == 0 {
		return
	}
	defer func() {
		r.Counts.LengthMismatch = 0
		for i := range r.Targets {
			r.Counts.LengthMismatch += r.Targets[i].LengthMismatch
		}
	}()
	out := make([]TargetStats, len(r.Targets))
	copy(out, r.Targets)
	for _, tl := range tls {
		tt := &tl.targets
		tt.mu.Lock()
		for i := range tt.rows {
			if i >= len(out) {
				break
			}
			addTarget(&out[i], &tt.rows[i].TargetStats, &Dist{Exact: tt.rows[i].exact, packed: tt.rows[i].hist})
		}
		tt.mu.Unlock()
	}
	r.Targets = out
}

// addTarget adds b's counts and the latency lat to a.
func addTarget(a, b *TargetStats, lat *Dist) {
	a.Requests += b.Requests
	for i, v := range b.Outcomes {
		a.Outcomes[i] += v
	}
	a.BytesIn += b.BytesIn
	a.BodyIn += b.BodyIn
	a.BytesOut += b.BytesOut
	a.LengthMismatch += b.LengthMismatch
	if lat == nil || lat.Count == 0 {
		return
	}
	if a.Latency == nil {
		a.Latency = &Dist{packed: newTargetHist()}
	}
	a.Latency.Exact.Merge(&lat.Exact)
	switch {
	case lat.packed != nil:
		a.Latency.packed.Merge(lat.packed)
	case lat.Hist != nil: // read from JSON
		a.Latency.packed.MergeFrom(lat.Hist)
	}
}

// combineTargets sums the per-target accounts of results of one load
// (Combine): each must list the same targets, in the same order.
func combineTargets(rs []*Result) ([]TargetStats, error) {
	first := rs[0].Targets
	if len(first) == 0 {
		for i, r := range rs {
			if len(r.Targets) > 0 {
				return nil, fmt.Errorf("result %d: another targets list (%d targets, not 1)", i+1, len(r.Targets))
			}
		}
		return nil, nil
	}
	out := make([]TargetStats, len(first))
	for i := range first {
		out[i] = TargetStats{URL: first[i].URL, Method: first[i].Method}
	}
	for i, r := range rs {
		if len(r.Targets) != len(first) {
			return nil, fmt.Errorf("result %d: another targets list (%d targets, not %d)", i+1, max(len(r.Targets), 1), len(first))
		}
		for j := range r.Targets {
			t := &r.Targets[j]
			if t.URL != first[j].URL || t.Method != first[j].Method {
				return nil, fmt.Errorf("result %d: another target %d (%s %s, not %s %s)", i+1, j+1, t.Method, t.URL, first[j].Method, first[j].URL)
			}
			addTarget(&out[j], t, t.Latency)
		}
	}
	return out, nil
}

// checkTargets checks a many-target result's accounts against the run's
// (Check): the targets' requests and outcomes sum to the run's sent ones,
// and each target's latency holds one sample per complete response.
func (r *Result) checkTargets() []error {
	if len(r.Targets) == 0 {
		return nil
	}
	var errs []error
	var sum Outcomes
	var reqs int64
	for i := range r.Targets {
		t := &r.Targets[i]
		reqs += t.Requests
		for o, v := range t.Outcomes {
			sum[o] += v
		}
		n := int64(0)
		if t.Latency != nil {
			n = t.Latency.Count
		}
		if n != t.Outcomes[OK]+t.Outcomes[Non2xx] || t.Requests != t.Outcomes.Sum() {
			errs = append(errs, fmt.Errorf("targets: %s has %d requests, %d outcomes, %d latency samples for %d complete responses",
				t.URL, t.Requests, t.Outcomes.Sum(), n, t.Outcomes[OK]+t.Outcomes[Non2xx]))
		}
	}
	sum[Dropped] = r.Counts.Outcomes[Dropped]
	if reqs != r.Counts.Dispatched || sum != r.Counts.Outcomes {
		errs = append(errs, fmt.Errorf("targets: requests sum to %d (dispatched %d), outcomes to %v (the run's %v)",
			reqs, r.Counts.Dispatched, sum, r.Counts.Outcomes))
	}
	return errs
}
