package stats

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Runs is the JSON form of K repeated runs of one configuration (--repeat):
// {"runs": [<Result>, ...]}, in the order they ran. A file holding a single
// Result is read as Runs of one.
type Runs struct {
	Runs []*Result `json:"runs"`
}

// Write writes rs as indented JSON (two spaces, HTML characters not
// escaped) with a trailing newline, as a single Result is written.
func (rs Runs) Write(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	e.SetEscapeHTML(false)
	if err := e.Encode(rs); err != nil {
		return fmt.Errorf("stats: runs: %w", err)
	}
	return nil
}

// ReadRuns reads either form gb writes: a single Result (`--json`) or Runs
// (`--repeat K --json`). It refuses an input larger than MaxResultBytes,
// an empty list, a run of a newer format version than FormatVersion or
// without a version, and a run gb cannot have written (no target, a
// negative count, counts that break the accounting invariants of
// Result.Check), each with one line naming the problem; the strings of
// the runs it returns are printable (see Printable).
func ReadRuns(r io.Reader) (Runs, error) {
	b, err := readLimited(r)
	if err != nil {
		return Runs{}, err
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return Runs{}, fmt.Errorf("not a gb result: %v", err)
	}
	var rs Runs
	if _, ok := probe["runs"]; ok {
		if err := json.Unmarshal(b, &rs); err != nil {
			return Runs{}, fmt.Errorf("not a gb result: %v", err)
		}
	} else {
		var res Result
		if err := json.Unmarshal(b, &res); err != nil {
			return Runs{}, fmt.Errorf("not a gb result: %v", err)
		}
		rs.Runs = []*Result{&res}
	}
	if len(rs.Runs) == 0 {
		return Runs{}, errors.New("no runs")
	}
	for i, res := range rs.Runs {
		switch {
		case res == nil || res.Version == 0:
			return Runs{}, fmt.Errorf("run %d: not a gb result (no version)", i+1)
		case res.Version > FormatVersion:
			return Runs{}, fmt.Errorf("run %d: format version %d is newer than this gb reads (%d)", i+1, res.Version, FormatVersion)
		case res.Version < 0:
			return Runs{}, fmt.Errorf("run %d: not a gb result (format version %d)", i+1, res.Version)
		}
		if err := res.Validate(); err != nil {
			return Runs{}, fmt.Errorf("run %d: %v", i+1, err)
		}
	}
	return rs, nil
}
