package report

import (
	"cmp"
	"fmt"
	"time"

	"github.com/gb-bench/gb/internal/capacity"
	"github.com/gb-bench/gb/stats"
)

// writeRate writes the rate-mode keys: "target rate", "achieved rate",
// "late sends", "lag ms" and "corrected ms" (beside "latency ms", which is
// then the uncorrected service time), and with dropped requests
// "corrected includes", which says that they are in the corrected
// latency as censored values (see stats.Result.AddDropped).
func writeRate(line func(key, value string), r *stats.Result) {
	c := &r.Counts
	line("target rate", fmt.Sprintf("%.2f req/s", r.Load.Rate))
	line("achieved rate", fmt.Sprintf("%.2f req/s (sent=%d scheduled=%d dropped=%d)",
		achieved(r), c.Dispatched, c.Scheduled, c.Outcomes[stats.Dropped]))
	line("late sends", fmt.Sprintf("%d (started more than %v behind schedule)", c.Late, stats.LateAfter))
	line("lag ms", latencySummary(r.Latency[stats.Lag]))
	line("corrected ms", latencySummary(r.Latency[stats.Corrected]))
	if n := c.Outcomes[stats.Dropped]; n > 0 {
		line("corrected includes", fmt.Sprintf("%d dropped requests, each at (end of run - its intended send time): the corrected latencies are a lower bound", n))
	}
}

// achieved is the rate at which requests were sent, per second.
func achieved(r *stats.Result) float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Counts.Dispatched) / r.Elapsed.Seconds()
}

// clientCost describes what gb itself spent during the run: its peak RSS,
// and from minRSSConns connections on, when the baseline is known, the
// growth above it per connection (never the whole RSS divided by -c).
func clientCost(r *stats.Result) string {
	cl := &r.Client
	s := fmt.Sprintf("engine=%s cpu=%.2f cores (of %d) gc=%d pause=%.3fms allocated=%dB",
		cmp.Or(cl.Engine, "goroutine"), cores(r), cl.MaxProcs, cl.GCCycles, float64(cl.GCPause)/float64(time.Millisecond), cl.HeapAllocs)
	if cl.MaxRSS > 0 {
		s += fmt.Sprintf(" rss=%.1fMiB", float64(cl.MaxRSS)/(1<<20))
		if c := r.Load.Concurrency; cl.BaseRSS > 0 && c >= minRSSConns && cl.MaxRSS > cl.BaseRSS {
			s += fmt.Sprintf(" (%.1fMiB above the baseline, %.1fKiB per connection)",
				float64(cl.MaxRSS-cl.BaseRSS)/(1<<20), float64(cl.MaxRSS-cl.BaseRSS)/1024/float64(c))
		}
	}
	return s
}

// minRSSConns is the fewest connections for which the client line shows
// memory per connection: below it, what a run costs whatever its -c (the
// histograms, buffers and goroutines of the engine) outweighs them.
const minRSSConns = 256

// cores is gb's average CPU use during the run, in cores.
func cores(r *stats.Result) float64 { return r.Client.Cores(r.Elapsed) }

// minWarnTime is the shortest run the warnings judge: shorter runs are
// too short to judge.
const minWarnTime = 100 * time.Millisecond

// warnings says when the numbers should not be trusted as the server's:
// the rate was not reached or the pacer ran late, with the cause
// capacity.Diagnose finds (the same gb capacity gives), or gb was the
// bottleneck.
func warnings(r *stats.Result) []string {
	if r.Elapsed < minWarnTime {
		return nil
	}
	var out []string
	d := capacity.Diagnose(capacity.SignalsOf(r, r.Load.Concurrency))
	if r.Load.Rate > 0 {
		if a := achieved(r); d.Short {
			out = append(out, fmt.Sprintf("achieved %.2f req/s is below the target %.2f: %s", a, r.Load.Rate, d.Explain()))
		} else if d.Late {
			out = append(out, fmt.Sprintf("sends ran late (lag p99 %.3fms): %s", float64(d.LagP99)/1000, d.Explain()))
		}
	}
	if r.Client.MaxProcs > 0 && cores(r) >= capacity.BusyClient*float64(r.Client.MaxProcs) {
		out = append(out, fmt.Sprintf("gb used %.2f of its %d cores: the client may be the bottleneck, not the server", cores(r), r.Client.MaxProcs))
	}
	return out
}
