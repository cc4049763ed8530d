package capacity

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Header writes the column names of the probe lines.
func Header(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%5s %10s %10s %9s %9s %7s %7s %6s  %s\n",
		"probe", "target/s", "achieved/s", "p50 ms", "p99 ms", "errors", "dropped", "conns", "verdict")
	return err
}

// Line writes probe number n (1-based) as one line, under Header's columns.
// Latencies are corrected.
func Line(w io.Writer, n int, p Probe) error {
	_, err := fmt.Fprintf(w, "%5d %10d %10.1f %9.3f %9.3f %7d %7d %6d  %s\n",
		n, p.Rate, p.Achieved, float64(p.P50)/1000, float64(p.P99)/1000, p.Errors, p.Dropped, p.Conns, p.Verdict())
	return err
}

// Verdict is p's verdict in words: "pass", "fail: p99 31.0 ms",
// "rerun (more connections): achieved 812 req/s" or "interrupted".
func (p *Probe) Verdict() string {
	switch {
	case p.Interrupted:
		return "interrupted"
	case p.Retry != "":
		return "rerun (" + p.Retry + "): " + p.Reason
	case !p.Pass:
		return "fail: " + p.Reason
	}
	return "pass"
}

// Answer writes the search's answer: the capacity line, then a line of
// confidence (the probes run and the bracket's width). slos are the SLO
// expressions as given.
func (o *Outcome) Answer(w io.Writer, slos []string) error {
	slo := "SLO " + strings.Join(slos, ", ")
	pass, fail := o.probeAt(o.Capacity, true), o.probeAt(o.Failed, false)
	var a, conf string
	n := len(o.Probes)
	switch o.Status {
	case Found:
		a = fmt.Sprintf("capacity: %s req/s at %s (%s); next probe %s req/s failed: %s",
			Group(o.Capacity), values(pass), slo, Group(o.Failed), fail.Reason)
		conf = fmt.Sprintf("confidence: %s; the capacity lies between %s and %s req/s, a bracket of %.1f%% (precision %.3g%%)",
			plural(n, "probe"), Group(o.Capacity), Group(o.Failed),
			100*float64(o.Failed-o.Capacity)/float64(o.Capacity), 100*o.Precision)
	case AboveMax:
		a = fmt.Sprintf("capacity: at least %s req/s, the highest rate asked for (--rate-max), at %s (%s)",
			Group(o.Capacity), values(pass), slo)
		conf = fmt.Sprintf("confidence: %s, all passed; raise --rate-max to find the limit", plural(n, "probe"))
	case BelowMin:
		a = fmt.Sprintf("capacity: none within the bounds: even the lowest rate, %s req/s, failed: %s (%s)",
			Group(o.RateMin), fail.Reason, slo)
		conf = fmt.Sprintf("confidence: %s; lower --rate-min, or check the SLO against the server's latency at light load", plural(n, "probe"))
	case ClientBound:
		last := o.Probes[n-1]
		why := fmt.Sprintf("gb used %.2f of its cores", last.ClientCPU)
		if !last.ClientBusy {
			why = fmt.Sprintf("gb sent late (lag p99 %s) though its pool sufficed", Millis(last.LagP99))
		}
		a = fmt.Sprintf("capacity: not determined: at %s req/s %s and the probe failed (%s), so the limit may be gb's, not the server's",
			Group(last.Rate), why, last.Reason)
		conf = "confidence: none; run gb from another machine or give it more cores (-G)"
		if o.Capacity > 0 {
			conf = fmt.Sprintf("confidence: the server sustained %s req/s (%s); run gb from another machine or give it more cores (-G)",
				Group(o.Capacity), values(pass))
		}
	default:
		a = "capacity: not determined: the search was interrupted"
		conf = fmt.Sprintf("confidence: %s run", plural(n, "probe"))
		if o.Capacity > 0 {
			conf += fmt.Sprintf("; the server sustained %s req/s (%s)", Group(o.Capacity), values(pass))
		}
	}
	_, err := fmt.Fprintf(w, "%s\n%s\n", a, conf)
	return err
}

// probeAt returns the last probe at rate with the verdict pass (reruns
// excluded), or an empty Probe.
func (o *Outcome) probeAt(rate int64, pass bool) Probe {
	for i := len(o.Probes) - 1; i >= 0; i-- {
		if p := o.Probes[i]; p.Rate == rate && p.Pass == pass && p.Retry == "" {
			return p
		}
	}
	return Probe{}
}

// values lists each SLO's measured value on p: "p99 17.8 ms, errors 0".
func values(p Probe) string {
	var vs []string
	for _, r := range p.SLOs {
		vs = append(vs, sloName(r.Threshold)+" "+measured(r.Result))
	}
	if len(vs) == 0 {
		return "p99 " + Millis(p.P99)
	}
	return strings.Join(vs, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Bracket is the relative width of the answer's bracket, (Failed -
// Capacity) / Capacity; +Inf when either is unknown.
func (o *Outcome) Bracket() float64 {
	if o.Capacity == 0 || o.Failed == 0 {
		return math.Inf(1)
	}
	return float64(o.Failed-o.Capacity) / float64(o.Capacity)
}
