package stats

import (
	"encoding/json"
	"fmt"

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

// newTargetHist returns an empty target histogram: sparse, since a run
// may have tens of thousands of targets of a few requests each.
func newTargetHist() *hdrhistogram.PackedHistogram {
	return hdrhistogram.NewPacked(HistLowest, HistHighest, TargetDigits)
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
// (Merge): each must list the same targets, in the same order.
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
