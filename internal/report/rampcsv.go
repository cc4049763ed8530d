package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gb-bench/gb/internal/ramp"
	"github.com/gb-bench/gb/stats"
)

// rampColumns are the columns of RampCSV: ab+.sh's thirteen, then gb's.
var rampColumns = []string{
	"start_time", "concurrency", "complete_requests", "failed_requests", "requests_per_second",
	"min_ms", "mean_ms", "stddev_ms", "median_ms", "max_ms", "p90_ms", "p95_ms", "p99_ms",
	"target_rate", "achieved_rate", "p999_ms", "non2xx", "bytes_in",
}

// RampCSV writes one comma-separated row per step under a header line.
// The first thirteen columns are ab+.sh's, in its order: start time (RFC
// 3339), concurrency (the connection pool in rate steps), complete and
// failed requests, requests per second (complete over elapsed), then the
// min, mean, standard deviation, median, max, p90, p95 and p99 latency in
// ms. gb's columns follow: target rate (empty in a closed loop), achieved
// rate (requests sent per second), p99.9 in ms, non-2xx responses and bytes
// read. Latency is service time in concurrency steps and, in rate steps,
// latency from the intended send time (see latency). A step without a
// complete response has empty latency fields.
func RampCSV(w io.Writer, rp *ramp.Ramp) error {
	b := bufio.NewWriter(w)
	fmt.Fprintln(b, strings.Join(rampColumns, ","))
	for _, r := range rp.Steps {
		d := ramp.Latency(rp.By, r)
		row := []string{
			r.Start.Format(time.RFC3339), strconv.Itoa(r.Load.Concurrency),
			strconv.FormatInt(r.Complete(), 10), strconv.FormatInt(r.Failed(), 10), fixed2(r.RPS()),
		}
		row = append(row, latencyFields(d, func(d *stats.Dist) []float64 {
			return []float64{float64(d.Min), d.Mean(), d.StdDev(), float64(d.Percentile(50)), float64(d.Max),
				float64(d.Percentile(90)), float64(d.Percentile(95)), float64(d.Percentile(99))}
		})...)
		row = append(row, targetRate(r), fixed2(achieved(r)))
		row = append(row, latencyFields(d, func(d *stats.Dist) []float64 { return []float64{float64(d.Percentile(99.9))} })...)
		row = append(row, strconv.FormatInt(r.Counts.Outcomes[stats.Non2xx], 10), strconv.FormatInt(r.Counts.BytesIn, 10))
		fmt.Fprintln(b, strings.Join(row, ","))
	}
	return b.Flush()
}

// latencyFields formats the µs values that pick takes from d as ms, or
// as empty fields when d has no samples.
func latencyFields(d *stats.Dist, pick func(*stats.Dist) []float64) []string {
	if d == nil || d.Count == 0 {
		return make([]string, len(pick(&stats.Dist{})))
	}
	vals := pick(d)
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = ms(v)
	}
	return out
}

// targetRate is the step's target rate, empty in a closed loop.
func targetRate(r *stats.Result) string {
	if r.Load.Rate > 0 {
		return fixed2(r.Load.Rate)
	}
	return ""
}

func fixed2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// RampAutobench writes autobench's result file for rp, fields separated
// by sep (autobench's tsv is '\t', its csv ','), for bench2graph and the
// scripts written for autobench. The first ten columns keep autobench's
// names (with the target's host as the single-host suffix) and meanings:
// dem_req_rate, the demanded load (the target rate; in concurrency steps,
// which demand no rate, the concurrency, so column 1 is the load either
// way); req_rate and con_rate, requests sent and connections opened per
// second; min, avg, max and stddev of the reply rate, from one-second
// samples of requests ended (httperf samples every five seconds; a step
// shorter than a second has its mean rate and 0); resp_time, the mean time
// from the request written to the first response byte in ms (httperf's
// "Reply time: response"); net_io, KB (1024 bytes) sent and received per
// second; errors, failed requests as a percentage of replies (101 when there
// was no reply, as autobench). gb's columns follow: step, concurrency,
// target and achieved rate, p50, p90, p99, p99.9 and max latency in ms (as
// RampCSV), non-2xx responses, failed requests and bytes read.
func RampAutobench(w io.Writer, rp *ramp.Ramp, sep string) error {
	host := "host"
	if len(rp.Steps) > 0 && rp.Steps[0].Load.Host != "" {
		host = rp.Steps[0].Load.Host
	}
	var cols []string
	cols = append(cols, "dem_req_rate")
	for _, c := range []string{"req_rate", "con_rate", "min_rep_rate", "avg_rep_rate", "max_rep_rate", "stddev_rep_rate", "resp_time", "net_io", "errors"} {
		cols = append(cols, c+"_"+host)
	}
	cols = append(cols, "step", "concurrency", "target_rps", "achieved_rps", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms", "non2xx", "failed", "bytes_in")
	b := bufio.NewWriter(w)
	fmt.Fprintln(b, strings.Join(cols, sep))
	for i, r := range rp.Steps {
		var samples []float64
		if i < len(rp.ReplyRates) {
			samples = rp.ReplyRates[i]
		}
		lo, mean, hi, sd := replyRates(samples, r)
		var wait float64
		if d := r.Latency[stats.Waiting]; d != nil {
			wait = d.Mean()
		}
		errs := 101.0
		if n := r.Complete(); n > 0 {
			errs = 100 * float64(r.Failed()) / float64(n)
		}
		row := []string{ramp.FormatLevel(rp.By, r), fixed2(perSecond(float64(r.Counts.Dispatched), r)), fixed2(perSecond(float64(r.Counts.ConnsOpened), r)),
			fixed2(lo), fixed2(mean), fixed2(hi), fixed2(sd), ms(wait),
			fixed2(perSecond(float64(r.Counts.BytesIn+r.Counts.BytesOut)/1024, r)), fixed2(errs),
			strconv.Itoa(i + 1), strconv.Itoa(r.Load.Concurrency), targetRate(r), fixed2(achieved(r))}
		row = append(row, latencyFields(ramp.Latency(rp.By, r), func(d *stats.Dist) []float64 {
			return []float64{float64(d.Percentile(50)), float64(d.Percentile(90)), float64(d.Percentile(99)),
				float64(d.Percentile(99.9)), float64(d.Max)}
		})...)
		row = append(row, strconv.FormatInt(r.Counts.Outcomes[stats.Non2xx], 10), strconv.FormatInt(r.Failed(), 10), strconv.FormatInt(r.Counts.BytesIn, 10))
		fmt.Fprintln(b, strings.Join(row, sep))
	}
	return b.Flush()
}

// replyRates returns the min, mean, max and sample standard deviation of
// a step's per-second reply rates; without samples, the step's mean rate
// for the first three and 0.
func replyRates(samples []float64, r *stats.Result) (lo, mean, hi, sd float64) {
	if len(samples) == 0 {
		t := r.RPS()
		return t, t, t, 0
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range samples {
		lo, hi, mean = min(lo, v), max(hi, v), mean+v
	}
	mean /= float64(len(samples))
	if len(samples) > 1 {
		var m2 float64
		for _, v := range samples {
			m2 += (v - mean) * (v - mean)
		}
		sd = math.Sqrt(m2 / float64(len(samples)-1))
	}
	return lo, mean, hi, sd
}
