package capacity

import (
	"encoding/json"
	"io"
	"time"
)

// Report is a search with what it asked: the form gb capacity writes with
// --json and its HTML page reads. Latencies in Probes are µs, durations
// ns.
type Report struct {
	GBVersion string        `json:"gb_version"`
	Command   []string      `json:"command"` // argv with secrets redacted
	URL       string        `json:"url"`
	SLOs      []string      `json:"slos"` // the --slo expressions as given
	StepTime  time.Duration `json:"step_time_ns"`
	Warmup    time.Duration `json:"warmup_ns"`
	MaxErrors float64       `json:"max_errors"` // share of a probe's requests that may fail or be non-2xx (--max-errors)
	Outcome
}

// WriteJSON writes r as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
