package htmlreport

import (
	"fmt"
	"strconv"

	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/stats"
)

// checksSection is the run's checks (gb --check), the block of the text
// report as a table: per check, in the run's order, ✓ (all passed), ✗
// (one failed) or - (none checked), the expression, the responses that
// passed and failed it and the share that passed; its headline says how
// many checks failed. A run without checks gets no section (ID "").
func checksSection(r *stats.Result) (s section, _ error) {
	if len(r.Checks) == 0 {
		return section{}, nil
	}
	t := table{Head: []string{"", "check", "passed", "failed", "passed share"}, Left: 2}
	failed := 0
	for _, c := range r.Checks {
		if c.Fails > 0 {
			failed++
		}
		share := "none checked"
		if n := c.Passes + c.Fails; n > 0 {
			share = pctOf(c.Passes, n)
		}
		t.Rows = append(t.Rows, []string{report.CheckMark(c), c.Expr, strconv.FormatInt(c.Passes, 10),
			strconv.FormatInt(c.Fails, 10), share})
	}
	s = section{ID: "checks", Title: "Checks", Tables: []table{t},
		Notes: []string{"Every complete response is checked against each check; a response that fails one ends as failed.check."}}
	s.Headline = "✓ No check failed."
	if failed > 0 {
		s.Headline = fmt.Sprintf("✗ %d of %d checks failed: %d responses ended as failed.check.", failed, len(r.Checks), r.Counts.Outcomes[stats.FailCheck])
	}
	return s, nil
}
