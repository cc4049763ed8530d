package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/gb-bench/gb/internal/capacity"
	"github.com/gb-bench/gb/internal/ramp"
	"github.com/gb-bench/gb/stats"
)

// perSecond is n over the step's elapsed time in seconds; 0 when no time
// elapsed.
func perSecond(n float64, r *stats.Result) float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return n / r.Elapsed.Seconds()
}

// ms formats µs as milliseconds with three decimals.
func ms(us float64) string { return strconv.FormatFloat(us/1000, 'f', 3, 64) }

// RampHeader writes the header of the step lines (see RampStep).
func RampHeader(w io.Writer, by string) error {
	_, err := fmt.Fprintf(w, "%4s  %11s  %9s  %7s  %10s  %9s  %9s  %9s\n",
		"step", map[bool]string{true: "rate/s", false: "concurrency"}[by == ramp.ByRate],
		"complete", "failed", "req/s", "mean ms", "p50 ms", "p99 ms")
	return err
}

// RampStep writes the line of step n (1-based) under RampHeader: load,
// complete and failed requests, requests per second, and the mean, p50 and
// p99 latency in ms, plus why the step stopped when not by its request
// count.
func RampStep(w io.Writer, by string, n int, r *stats.Result) error {
	d := ramp.Latency(by, r)
	var mean float64
	if d != nil {
		mean = d.Mean()
	}
	note := ""
	if r.StoppedBy != stats.StopCount {
		note = "  stopped by " + stoppedBy(r)
	}
	_, err := fmt.Fprintf(w, "%4d  %11s  %9d  %7d  %10.2f  %9s  %9s  %9s%s\n",
		n, ramp.FormatLevel(by, r), r.Complete(), r.Failed(), r.RPS(),
		ms(mean), ms(float64(d.Percentile(50))), ms(float64(d.Percentile(99))), defuseControls(note))
	return err
}

// RampSummary writes the ramp's conclusion: the step in which the server
// stopped answering, if it did, then the saturation step, or that the
// ramp found none. For rate steps it names the first step that missed its
// target and how (see [ramp.Missed]), and the highest rate held; for a step
// saturated by its errors, how many (see [ramp.Overloaded]). The advice to
// raise the last step's load appears only when no step missed, none
// erred and the server answered to the end.
func RampSummary(w io.Writer, rp *ramp.Ramp) error {
	steps, n, stop := rp.Steps, rp.Saturation, rp.Stopped
	if stop < 1 || stop > len(steps) {
		stop = ramp.Stopped(steps) + 1 // a ramp read back may lack it
	}
	live := steps
	if stop > 0 {
		live = steps[:stop-1]
		if err := stoppedSummary(w, rp.By, steps[stop-1], stop); err != nil {
			return err
		}
	}
	if rp.By == ramp.ByRate && (n < 1 || n > len(live)) {
		n = ramp.Saturation(ramp.ByRate, steps, rp.MaxErrors) + 1 // a ramp read back may lack it; never advise more load past a miss
	}
	if n < 1 || n > len(live) {
		what := "throughput did not level off while p99 rose"
		if rp.By == ramp.ByRate {
			what = "every step served its target rate without a jump in corrected latency or lag"
		}
		advice := "; raise the last step's " + ramp.LevelName(rp.By)
		if stop > 0 {
			advice = " before the server stopped answering"
		}
		_, err := fmt.Fprintf(w, "saturation: none found: %s%s\n", what, advice)
		return err
	}
	why, missed := ramp.Overloaded(steps[n-1], rp.MaxErrors), ""
	if rp.By == ramp.ByRate {
		missed = ramp.Missed(steps, n-1)
	}
	switch {
	case missed != "" && why != "":
		return missedSummary(w, rp.By, live, n, " missed its target: "+missed+", and "+why)
	case missed != "":
		return missedSummary(w, rp.By, live, n, " missed its target: "+missed)
	case why != "":
		return missedSummary(w, rp.By, live, n, ": "+why)
	}
	s, last, later := steps[n-1], live[len(live)-1], live[n:]
	tputs := make([]float64, len(later))
	for i, t := range later {
		tputs[i] = t.RPS()
	}
	if len(tputs) == 0 {
		tputs = []float64{s.RPS()}
	}
	slices.Sort(tputs)
	_, err := fmt.Fprintf(w, "saturation: step %d, %s %s: %.2f req/s at p99 %s ms; up to %s %s throughput rose no further (later steps: median %.2f, best %.2f req/s) while p99 reached %s ms\n",
		n, ramp.LevelName(rp.By), ramp.FormatLevel(rp.By, s), s.RPS(), ms(float64(ramp.Latency(rp.By, s).Percentile(99))),
		ramp.LevelName(rp.By), ramp.FormatLevel(rp.By, last), tputs[(len(tputs)-1)/2], tputs[len(tputs)-1],
		ms(float64(ramp.Latency(rp.By, last).Percentile(99))))
	return err
}

// stoppedSummary writes the line of step n (1-based), s, in which the
// server stopped answering.
func stoppedSummary(w io.Writer, by string, s *stats.Result, n int) error {
	what := fmt.Sprintf("no response to %d requests", s.Counts.Dispatched)
	if s.Complete() > 0 {
		what = fmt.Sprintf("%d responses, then none", s.Complete())
	}
	_, err := fmt.Fprintf(w, "server stopped answering: step %d, %s %s: %s; %d failed to connect (%s); not a saturation point\n",
		n, ramp.LevelName(by), ramp.FormatLevel(by, s), what, s.Breakdown().Connect, defuseControls(cmp.Or(capacity.MostCommonError(s.Counts.Errors), "no message")))
	return err
}

// missedSummary writes the conclusion of a ramp whose step n (1-based)
// missed its target rate or erred, for the reason why (from its leading
// ": " or " missed its target: "), and the step before it, the highest
// load held.
func missedSummary(w io.Writer, by string, steps []*stats.Result, n int, why string) error {
	s := steps[n-1]
	held := "; no step held: start the ramp lower"
	if n > 1 {
		h := steps[n-2]
		held = fmt.Sprintf("; the highest %s held was %s (step %d: %.2f req/s at %s %s ms)",
			ramp.LevelName(by), ramp.FormatLevel(by, h), n-1, h.RPS(), p99Name(by), ms(float64(ramp.Latency(by, h).Percentile(99))))
	}
	_, err := fmt.Fprintf(w, "saturation: step %d, %s %s%s; %s %s ms%s\n",
		n, ramp.LevelName(by), ramp.FormatLevel(by, s), why, p99Name(by), ms(float64(ramp.Latency(by, s).Percentile(99))), held)
	return err
}

// p99Name names the p99 a ramp reports (see latency).
func p99Name(by string) string {
	if by == ramp.ByRate {
		return "corrected p99"
	}
	return "p99"
}

// RampJSON writes rp as indented JSON (two spaces) with a trailing
// newline; each step is a Result in the --json format of one run.
func RampJSON(w io.Writer, rp *ramp.Ramp) error { return writeJSON(w, rp, "ramp json") }
