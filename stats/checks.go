package stats

import (
	"fmt"
	"slices"
)

// CheckStats is one check's account (gb --check): the complete responses
// that passed it and those that failed it. A response is counted in every
// check, passed or failed; one that failed any check ends as FailCheck.
type CheckStats struct {
	Expr   string `json:"check"` // the expression as given, trimmed
	Passes int64  `json:"passes"`
	Fails  int64  `json:"fails"`
}

// combineChecks sums the checks of results that ran the same ones.
func combineChecks(rs []*Result) ([]CheckStats, error) {
	out := slices.Clone(rs[0].Checks)
	for i, r := range rs[1:] {
		if !slices.EqualFunc(r.Checks, out, func(a, b CheckStats) bool { return a.Expr == b.Expr }) {
			return nil, fmt.Errorf("result %d ran other checks (%s, not %s)", i+2, checkList(r.Checks), checkList(out))
		}
		for j, c := range r.Checks {
			out[j].Passes += c.Passes
			out[j].Fails += c.Fails
		}
	}
	return out, nil
}

// checkList spells a result's checks for combineChecks' error.
func checkList(cs []CheckStats) string {
	if len(cs) == 0 {
		return "none"
	}
	s := ""
	for i, c := range cs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%q", c.Expr)
	}
	return s
}
