package htmlreport

import (
	"strconv"
	"strings"

	"github.com/gb-bench/gb/stats"
)

// ms formats µs as milliseconds with three decimals, as the text report
// does.
func ms(us float64) string { return strconv.FormatFloat(us/1000, 'f', 3, 64) }

// perSecond is n over r's elapsed time in seconds; 0 when no time
// elapsed.
func perSecond(n float64, r *stats.Result) float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return n / r.Elapsed.Seconds()
}

// defuseControls replaces control characters with '?'.
func defuseControls(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || (r >= 0x7f && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}
