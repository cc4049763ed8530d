package stats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Percentiles are the percentiles that JSON results spell out as plain
// numbers for every latency distribution, and that thresholds may name.
var Percentiles = []float64{50, 75, 90, 95, 99, 99.9, 99.99}

// PercentileName returns p's name as gb writes it in text and thresholds:
// "p99", "p99.9", "p99.99".
func PercentileName(p float64) string {
	return "p" + strconv.FormatFloat(p, 'f', -1, 64)
}

// percentileKey returns p's JSON key stem: the name with '_' for '.', so
// that jq can read it as a plain field (.p99_9_ms).
func percentileKey(p float64) string { return strings.ReplaceAll(PercentileName(p), ".", "_") }

// Totals are a run's request totals by kind of outcome, the plain numbers
// a JSON result carries under "totals".
type Totals struct {
	Dispatched int64 `json:"dispatched"` // requests sent or tried
	Complete   int64 `json:"complete"`   // responses received: ok + non2xx (ab's Complete requests)
	OK         int64 `json:"ok"`         // 2xx responses with complete bodies
	Non2xx     int64 `json:"non2xx"`     // other final statuses
	Failed     int64 `json:"failed"`     // Σ failed.* outcomes (connect, TLS, write, reset, truncated, protocol, timeouts)
	Aborted    int64 `json:"aborted"`    // Σ aborted.*: in flight when the run stopped
	Dropped    int64 `json:"dropped"`    // rate mode: due but never sent
	// ErrorRate is Result.ErrorRate: Failed ÷ (Complete + Failed), 0..1,
	// the share of the requests that ended on their own (not aborted by the
	// stop) that got no response. 0 when none ended.
	ErrorRate float64 `json:"error_rate"`
	// Non2xxRate is Non2xx ÷ (Complete + Failed), 0..1.
	Non2xxRate float64 `json:"non2xx_rate"`
}

// Totals returns r's request totals.
func (r *Result) Totals() Totals {
	o := &r.Counts.Outcomes
	t := Totals{Dispatched: r.Counts.Dispatched, Complete: r.Complete(), OK: o[OK], Non2xx: o[Non2xx],
		Failed: o.Failed(), Aborted: o.Aborted(), Dropped: o[Dropped]}
	t.ErrorRate, _ = r.ErrorRate()
	t.Non2xxRate, _ = r.Non2xxRate()
	return t
}

// ErrorRate is gb's error rate, the one definition that the JSON
// (totals.error_rate), --threshold and gb capacity's --slo 'errors<N%',
// gb compare's error rate row and the HTML report's card all use: the failed requests
// (Σ failed.*: DNS, connect, local, TLS, write, reset, truncated,
// protocol, decode and timeouts) over the requests that ended on their
// own, complete (ok and non-2xx) or failed. A non-2xx response is an
// answer, counted by Non2xxRate; requests aborted by the stop and
// requests never sent (dropped) are in neither part. ok is false (and the
// rate 0) when no request ended.
func (r *Result) ErrorRate() (rate float64, ok bool) {
	return r.shareOfEnded(r.Counts.Outcomes.Failed())
}

// Non2xxRate is the non-2xx responses over the requests that ended on
// their own, as ErrorRate's denominator; ok is false when none ended.
func (r *Result) Non2xxRate() (rate float64, ok bool) {
	return r.shareOfEnded(r.Counts.Outcomes[Non2xx])
}

// shareOfEnded is n over the requests that ended on their own (complete
// or failed).
func (r *Result) shareOfEnded(n int64) (float64, bool) {
	ended := r.Complete() + r.Counts.Outcomes.Failed()
	if ended <= 0 {
		return 0, false
	}
	return float64(n) / float64(ended), true
}

// RPS returns ab's Requests per second: complete responses ÷ Elapsed
// seconds; 0 when no time passed.
func (r *Result) RPS() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Complete()) / r.Elapsed.Seconds()
}

// resultAlias has Result's fields without its MarshalJSON.
type resultAlias Result

// resultJSON is Result's JSON form: the version, the plain numbers derived
// from the result, then every field of Result.
type resultJSON struct {
	Version   int     `json:"version"`
	RPS       float64 `json:"rps"`        // RPS()
	DurationS float64 `json:"duration_s"` // Elapsed in seconds
	Totals    Totals  `json:"totals"`
	*resultAlias
}

// MarshalJSON writes r with the plain numbers of format version 2 (rps,
// duration_s, totals) before its fields.
// Strings are written as they are: '<', '>' and '&' are not escaped (a
// URL's query stays readable).
func (r Result) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	err := e.Encode(resultJSON{Version: r.Version, RPS: r.RPS(), DurationS: r.Elapsed.Seconds(),
		Totals: r.Totals(), resultAlias: (*resultAlias)(&r)})
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), err
}

// ReadResult reads a JSON result written by any gb of format version 1 to
// FormatVersion. The numbers derived in version 2 are recomputed, not read,
// so a version 1 result comes back complete, with Version FormatVersion.
// The error names the problem in one line (a newer version, not a gb
// result, malformed JSON, a result gb cannot have written: see ReadRuns).
func ReadResult(rd io.Reader) (*Result, error) {
	var v struct {
		Version *int `json:"version"`
	}
	b, err := readLimited(rd)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("not a gb JSON result: %w", err)
	}
	switch {
	case v.Version == nil || *v.Version < 1:
		return nil, fmt.Errorf("not a gb JSON result: no format version")
	case *v.Version > FormatVersion:
		return nil, fmt.Errorf("result format version %d is newer than this gb reads (%d)", *v.Version, FormatVersion)
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("malformed gb JSON result: %w", err)
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	r.Version = FormatVersion
	return &r, nil
}
