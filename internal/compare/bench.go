package compare

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/gb-bench/gb/stats"
)

// BenchFormat writes runs as Go benchmark results
// (golang.org/design/14313-benchmark-format), one line per run, so that
// benchstat reads gb runs beside `go test -bench` output:
//
//	BenchmarkGB/<name>  <complete>  <ns> ns/op  <req/s> req/s  <ns> p50-ns ...
//
// ns/op is the run's wall time per complete response (1/throughput); the
// other values are the rows of gb compare (Metrics) that the run
// measured, times in nanoseconds: latency p50-ns, p90-ns, p99-ns,
// p99.9-ns (service time), in rate mode corrected-p50-ns ..., errors/op,
// with --profile server-cpu-ns/op, server-B/op and server-allocs/op and
// the diagnosis's rows (diag-cpu-user_cpu-ns/op, diag-wait-mutex-ns/op,
// ...: a run's diagnosis numbers, also those that are 0), and
// gb-cpu-ns/op. Unit lines first tell benchstat which way is better (a
// diagnosis row's only when a run measured it). name is cleaned to a
// benchmark name: white space becomes '_'. A run without complete
// responses is left out.
func BenchFormat(w io.Writer, name string, runs []*stats.Result) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "Unit req/s better=higher")
	for _, m := range Metrics() {
		if !m.HigherIsBetter && (!m.Diagnosis || measured(m, runs)) {
			fmt.Fprintf(bw, "Unit %s better=lower\n", m.Bench)
		}
	}
	name = BenchName(name)
	for _, r := range runs {
		n := r.Complete()
		if n == 0 || r.Elapsed <= 0 {
			continue
		}
		fmt.Fprintf(bw, "BenchmarkGB/%s\t%d\t%s ns/op", name, n, benchValue(float64(r.Elapsed.Nanoseconds())/float64(n)))
		for _, m := range Metrics() {
			v, ok := m.Value(r)
			if !ok {
				continue
			}
			if m.Unit == UnitTime {
				v *= 1e9
			}
			fmt.Fprintf(bw, "\t%s %s", benchValue(v), m.Bench)
		}
		fmt.Fprintln(bw)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}

// measured reports whether some run measured m.
func measured(m Metric, runs []*stats.Result) bool {
	for _, r := range runs {
		if _, ok := m.Value(r); ok {
			return true
		}
	}
	return false
}

// BenchName makes s a benchmark name's last part: white space and
// control characters become '_'; "" becomes "run".
func BenchName(s string) string {
	if s == "" {
		return "run"
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return '_'
		}
		return r
	}, s)
}

// benchValue writes v with six significant digits, without an exponent
// for values up to 10¹⁵.
func benchValue(v float64) string {
	if math.Abs(v) >= 1e6 && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
