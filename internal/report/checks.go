package report

import (
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/gb-bench/gb/stats"
)

// maxCheckWidth is the widest expression the checks block pads to; a
// longer one is followed by two spaces.
const maxCheckWidth = 40

// writeChecks writes the checks block (gb --check), k6's ✓/✗ list: an
// empty line, "gb checks:", then one line per check in the run's order:
// ✓ when every checked response passed it, ✗ when one failed, - when no
// response was checked; the expression (defused: no control byte, no ab
// label, no number followed by a percent sign), the responses that passed
// and failed it, and the share that passed in pct. Nothing without checks.
//
//	gb checks:
//	  ✓ status==200                 1000 passed       0 failed  100.00 pct
//	  ✗ body contains "ok":true      990 passed      10 failed   99.00 pct
func writeChecks(w io.Writer, r *stats.Result) {
	if len(r.Checks) == 0 {
		return
	}
	width := 0
	for _, c := range r.Checks {
		width = max(width, min(utf8.RuneCountInString(defuse(c.Expr)), maxCheckWidth))
	}
	fmt.Fprint(w, "\ngb checks:\n")
	for _, c := range r.Checks {
		e := defuse(c.Expr)
		pad := max(width-utf8.RuneCountInString(e), 0)
		fmt.Fprintf(w, "  %s %s%*s  %6d passed  %6d failed  %s\n", checkMark(c), e, pad, "", c.Passes, c.Fails, passShare(c))
	}
}

// checkMark is ✓ (all passed), ✗ (one failed) or - (none checked).
func checkMark(c stats.CheckStats) string {
	switch {
	case c.Fails > 0:
		return "✗"
	case c.Passes > 0:
		return "✓"
	}
	return "-"
}

// passShare is the share of the checked responses that passed, in pct.
func passShare(c stats.CheckStats) string {
	n := c.Passes + c.Fails
	if n == 0 {
		return "none checked"
	}
	return fmt.Sprintf("%6.2f pct", 100*float64(c.Passes)/float64(n))
}
