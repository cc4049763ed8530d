package compare

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/gb-bench/gb/stats"
)

// Input is one file of a comparison: one or more runs of one
// configuration.
type Input struct {
	Name string          // how the table names it: the file name as given
	Path string          // where it was read from ("" when built in memory)
	Runs []*stats.Result // at least one
}

// Read reads the gb result file at path: a single run (`gb --json`) or
// several (stats.Runs). The error names the file.
func Read(path string) (Input, error) {
	b, err := stats.ReadResultFile(path)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		err = pe.Err // the path is named once, below
	}
	if err != nil {
		return Input{}, fmt.Errorf("%s: %w", path, err)
	}
	rs, err := stats.ReadRuns(bytes.NewReader(b))
	if err != nil {
		return Input{}, fmt.Errorf("%s: %w", path, err)
	}
	return Input{Name: path, Path: path, Runs: rs.Runs}, nil
}

// dir is the directory of the file the input came from, where relative
// profile paths are also looked for.
func (in Input) dir() string {
	if in.Path == "" {
		return "."
	}
	return filepath.Dir(in.Path)
}

// mismatch describes how the configuration of run b differs from a's in
// what makes runs comparable: target, method, concurrency and mode; ""
// when it does not.
func mismatch(a, b *stats.Result) string {
	var d []string
	add := func(what, x, y string) {
		if x != y {
			d = append(d, fmt.Sprintf("%s (%s vs %s)", what, x, y))
		}
	}
	add("target", a.Load.URL, b.Load.URL)
	add("method", a.Load.Method, b.Load.Method)
	add("concurrency", fmt.Sprint(a.Load.Concurrency), fmt.Sprint(b.Load.Concurrency))
	add("mode", mode(a), mode(b))
	return strings.Join(d, ", ")
}

// mode names how the load was offered.
func mode(r *stats.Result) string {
	m := "closed loop"
	if r.Load.Rate > 0 {
		m = fmt.Sprintf("rate %g/s", r.Load.Rate)
	}
	if r.Load.Pipeline > 1 {
		m += fmt.Sprintf(", pipeline %d", r.Load.Pipeline)
	}
	return m
}
