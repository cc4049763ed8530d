package capacity

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/gb-bench/gb/internal/threshold"
)

// SLOResult is one SLO measured on a probe. Its JSON form names
// everything in words, as gb's other JSON does:
//
//	{"slo": "p99<20ms", "metric": "corrected.p99<20ms", "kind": "latency",
//	 "measured": 12000, "unit": "us", "known": true, "pass": true}
//
// measured is in the SLO's base unit: µs for a latency, a share 0..1 for
// errors or non2xx given in %, a count otherwise, req/s for rps.
type SLOResult struct {
	threshold.Result
}

// sloJSON is SLOResult's JSON form.
type sloJSON struct {
	SLO      string  `json:"slo"`    // the expression as given
	Metric   string  `json:"metric"` // as judged: canonical, latency on the corrected phase
	Kind     string  `json:"kind"`   // "latency", "errors", "non2xx" or "rps"
	Measured float64 `json:"measured"`
	Unit     string  `json:"unit"` // of measured: "us", "share", "count" or "req/s"
	Known    bool    `json:"known"`
	Pass     bool    `json:"pass"`
}

// kindNames are threshold kinds by name.
var kindNames = map[threshold.Kind]string{threshold.Latency: "latency", threshold.Errors: "errors",
	threshold.Non2xx: "non2xx", threshold.RPS: "rps"}

// MarshalJSON writes r's JSON form.
func (r SLOResult) MarshalJSON() ([]byte, error) {
	unit := "count"
	switch {
	case r.Kind == threshold.Latency:
		unit = "us"
	case r.Kind == threshold.RPS:
		unit = "req/s"
	case r.Rate:
		unit = "share"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "p99<20ms", not "p99\u003c20ms"
	err := enc.Encode(sloJSON{SLO: r.Expr, Metric: r.Canonical(), Kind: kindNames[r.Kind],
		Measured: r.Measured, Unit: unit, Known: r.Known, Pass: r.Pass})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// UnmarshalJSON reads the form MarshalJSON writes, parsing the SLO again.
func (r *SLOResult) UnmarshalJSON(b []byte) error {
	var j sloJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	ts, err := SLOs([]string{j.SLO})
	if err != nil {
		return fmt.Errorf("capacity: slo: %v", err)
	}
	r.Result = threshold.Result{Threshold: ts[0], Measured: j.Measured, Known: j.Known, Pass: j.Pass}
	return nil
}
