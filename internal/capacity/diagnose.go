package capacity

import (
	"fmt"
	"time"

	"github.com/gb-bench/gb/stats"
)

// Cause is why a rate-mode run fell short of its schedule (Diagnosis).
type Cause string

// The causes, from the client's side to the server's.
const (
	CauseNone      Cause = ""           // the run kept its schedule
	CausePool      Cause = "pool"       // too few connections for the mean service time (Little's law)
	CausePoolDry   Cause = "pool-dry"   // gb sent late: slow responses held every connection at once
	CauseClientCPU Cause = "client-cpu" // gb used (nearly) all its cores
	CauseClientLag Cause = "client-lag" // gb sent late though its pool and its cores sufficed: it was starved of CPU time
	CauseServer    Cause = "server"     // the server's service time kept the rate from being reached
)

// Signals is what the diagnosis reads from a rate-mode run. Latencies are
// µs; zero values mean "not measured".
type Signals struct {
	Rate        float64 // target rate, req/s; 0 = closed loop (no diagnosis)
	Achieved    float64 // requests sent per second
	Conns       int     // the connection pool (-c)
	SvcMean     float64 // mean service time (uncorrected latency)
	SvcP99      int64   // service time p99
	SvcMax      int64   // slowest service time
	LagP99      int64   // p99 of how late gb sent behind the schedule
	ClientCores float64 // gb's CPU use, cores
	MaxProcs    int     // cores gb could use; 0 = unknown
}

// SignalsOf reads the Signals of res; conns is the pool the run had.
func SignalsOf(res *stats.Result, conns int) Signals {
	s := Signals{Rate: res.Load.Rate, Conns: conns, MaxProcs: res.Client.MaxProcs}
	if d := res.Latency[stats.Total]; d != nil && d.Count > 0 {
		s.SvcMean, s.SvcP99, s.SvcMax = d.Mean(), d.Percentile(99), d.Max
	}
	if d := res.Latency[stats.Lag]; d != nil && d.Count > 0 {
		s.LagP99 = d.Percentile(99)
	}
	if sec := res.Elapsed.Seconds(); sec > 0 {
		// Elapsed ends with the last response: the sends took about
		// one service time less.
		s.Achieved = float64(res.Counts.Dispatched) / max(sec-s.SvcMean/1e6, sec/2)
		s.ClientCores = res.Client.CPU.Seconds() / sec
	}
	return s
}

// Diagnosis says whether a rate-mode run kept its schedule and, when it
// did not, whose the shortfall is. gb's report and gb capacity both use
// it, so they never disagree about the same run.
type Diagnosis struct {
	Signals
	Short bool    // achieved below MinAchieved of the target
	Late  bool    // lag p99 above MaxLag
	Busy  bool    // gb used at least 90% of its cores
	Need  float64 // connections the rate needs by Little's law on the mean service time
	Cause Cause   // CauseNone when neither Short nor Late
}

// Diagnose judges s. The rules, in order, when the run fell short or
// sent late:
//
//   - the pool is below Need with 25% headroom: CausePool (raise -c);
//   - the lag dominates (lag p99 above MaxLag and above the service p99,
//     so the server answered faster than gb sent): gb's cores busy is
//     CauseClientCPU; the slowest response long enough that the rate's
//     requests in its time fill the pool (rate × slowest >= pool) is
//     CausePoolDry (raise -c); otherwise CauseClientLag;
//   - gb's cores busy: CauseClientCPU;
//   - otherwise CauseServer: the service time itself kept the rate.
func Diagnose(s Signals) Diagnosis {
	d := Diagnosis{Signals: s}
	if s.Rate <= 0 {
		return d
	}
	d.Short = s.Achieved < MinAchieved*s.Rate
	d.Late = time.Duration(s.LagP99)*time.Microsecond > MaxLag
	d.Busy = s.MaxProcs > 0 && s.ClientCores >= BusyClient*float64(s.MaxProcs)
	d.Need = s.Rate * s.SvcMean / 1e6
	switch {
	case !d.Short && !d.Late:
	case d.Need*poolHeadroom > float64(s.Conns):
		d.Cause = CausePool
	case d.Late && s.LagP99 > s.SvcP99 && d.Busy:
		d.Cause = CauseClientCPU
	case d.Late && s.LagP99 > s.SvcP99 && s.Rate*float64(s.SvcMax)/1e6 >= float64(s.Conns):
		d.Cause = CausePoolDry
	case d.Late && s.LagP99 > s.SvcP99:
		d.Cause = CauseClientLag
	case d.Busy:
		d.Cause = CauseClientCPU
	default:
		d.Cause = CauseServer
	}
	return d
}

// GBs reports whether the cause is gb's (its pool or its CPU), not the
// server's: the run measured gb as much as the server.
func (d Diagnosis) GBs() bool { return d.Cause != CauseNone && d.Cause != CauseServer }

// Explain is the cause in words, one clause without a final period; ""
// for CauseNone.
func (d Diagnosis) Explain() string {
	s := d.Signals
	switch d.Cause {
	case CausePool:
		return fmt.Sprintf("too few connections (at a mean service time of %s the rate needs about %.0f; the pool is %d): raise -c",
			Millis(int64(s.SvcMean)), d.Need+1, s.Conns)
	case CausePoolDry:
		return fmt.Sprintf("gb sent late, not the server (lag p99 %s, service p99 %s): responses as slow as %s held all %d connections at once; raise -c",
			Millis(s.LagP99), Millis(s.SvcP99), Millis(s.SvcMax), s.Conns)
	case CauseClientLag:
		return fmt.Sprintf("gb sent late, not the server (lag p99 %s, service p99 %s) though its %d connections sufficed (about %.0f needed): gb was short of CPU time; run it where it has a core of its own",
			Millis(s.LagP99), Millis(s.SvcP99), s.Conns, d.Need+1)
	case CauseClientCPU:
		return fmt.Sprintf("the client is saturated (gb used %.2f of its %d cores)", s.ClientCores, s.MaxProcs)
	case CauseServer:
		return fmt.Sprintf("the server is too slow for this rate (service p99 %s)", Millis(s.SvcP99))
	}
	return ""
}
