package capacity

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

// TestDiagnose runs the one diagnosis gb's report and gb capacity share
// on scripted runs. Latencies are µs.
func TestDiagnose(t *testing.T) {
	for _, tc := range []struct {
		name  string
		s     Signals
		cause Cause
		words []string // in Explain
	}{
		{"kept the schedule", Signals{Rate: 2000, Achieved: 2000, Conns: 20, SvcMean: 2000, SvcP99: 2200, SvcMax: 4000, LagP99: 300}, CauseNone, nil},
		{"closed loop", Signals{Achieved: 10, Conns: 20, LagP99: 90000}, CauseNone, nil},
		// The run: -R 2000 -c 20 against a 2 ms endpoint, lag p99
		// 9.5 ms while the server answered within 2.2 ms. The slowest
		// responses (12 ms) at 2000/s hold 24 requests: the pool of 20
		// ran dry.
		{"issue 30: pool ran dry", Signals{Rate: 2000, Achieved: 1995, Conns: 20, SvcMean: 2000, SvcP99: 2200, SvcMax: 12000, LagP99: 9500, ClientCores: 0.3, MaxProcs: 2},
			CausePoolDry, []string{"gb sent late, not the server", "lag p99 9.50 ms", "service p99 2.20 ms", "raise -c"}},
		{"gb starved of CPU", Signals{Rate: 2000, Achieved: 1995, Conns: 200, SvcMean: 2000, SvcP99: 2200, SvcMax: 5000, LagP99: 9500, ClientCores: 0.3, MaxProcs: 2},
			CauseClientLag, []string{"gb sent late, not the server", "short of CPU time"}},
		{"gb used its cores", Signals{Rate: 2000, Achieved: 1500, Conns: 200, SvcMean: 2000, SvcP99: 2200, SvcMax: 5000, LagP99: 9500, ClientCores: 1.9, MaxProcs: 2},
			CauseClientCPU, []string{"client is saturated", "1.90 of its 2 cores"}},
		{"too few connections", Signals{Rate: 400, Achieved: 96, Conns: 2, SvcMean: 20800, SvcP99: 22000, SvcMax: 30000, LagP99: 900000},
			CausePool, []string{"too few connections", "needs about 9", "raise -c"}},
		{"the server queues", Signals{Rate: 2000, Achieved: 1500, Conns: 200, SvcMean: 50000, SvcP99: 90000, SvcMax: 120000, LagP99: 9000},
			CauseServer, []string{"server is too slow", "service p99 90.0 ms"}},
		{"short, no lag: the server", Signals{Rate: 1000, Achieved: 960, Conns: 50, SvcMean: 4000, SvcP99: 8000, SvcMax: 9000, LagP99: 100},
			CauseServer, []string{"server is too slow"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Diagnose(tc.s)
			if d.Cause != tc.cause {
				t.Fatalf("cause %q, want %q (%s)", d.Cause, tc.cause, d.Explain())
			}
			for _, w := range tc.words {
				if !strings.Contains(d.Explain(), w) {
					t.Errorf("%q lacks %q", d.Explain(), w)
				}
			}
			if gb := tc.cause != CauseNone && tc.cause != CauseServer; d.GBs() != gb {
				t.Errorf("GBs() = %v", d.GBs())
			}
		})
	}
}

// rateResult is a scripted rate-mode run: ok and non2xx responses and
// failed (reset) requests at rate over one second, service and lag in
// µs.
func rateResult(rate float64, ok, non2xx, failed int64, svc, lag int64) *stats.Result {
	r := &stats.Result{Load: stats.Load{Rate: rate, Concurrency: 50}, Elapsed: time.Second, StoppedBy: stats.StopCount}
	r.Counts.Dispatched = ok + non2xx + failed
	r.Counts.Scheduled = r.Counts.Dispatched
	r.Counts.Outcomes[stats.OK], r.Counts.Outcomes[stats.Non2xx], r.Counts.Outcomes[stats.FailReset] = ok, non2xx, failed
	r.Latency[stats.Total] = dist(ok+non2xx, svc)
	r.Latency[stats.Corrected] = dist(ok+non2xx, svc+lag)
	r.Latency[stats.Lag] = dist(ok+non2xx, lag)
	return r
}

// dist is n samples of us µs each.
func dist(n, us int64) *stats.Dist {
	d := &stats.Dist{Hist: stats.NewHistogram()}
	for range n {
		d.Add(us)
		_ = d.Hist.RecordValue(us)
	}
	return d
}

// TestJudgeErrors: a server that answers 503 fails the probe above
// --max-errors (1% by default) whatever the SLOs say; allowed errors do
// not.
func TestJudgeErrors(t *testing.T) {
	slos, err := SLOs([]string{"p99<50ms"})
	if err != nil {
		t.Fatal(err)
	}
	res := rateResult(800, 150, 650, 0, 2000, 100)
	p := Judge(res, 50, slos, DefaultMaxErrors)
	if p.Pass || p.Errors != 650 || p.Non2xx != 650 || !strings.Contains(p.Reason, "errors 81.2%") {
		t.Errorf("503s: pass %v errors %d non2xx %d reason %q", p.Pass, p.Errors, p.Non2xx, p.Reason)
	}
	if p := Judge(res, 50, slos, 1); !p.Pass {
		t.Errorf("errors allowed (--max-errors 100%%): %s", p.Reason)
	}
	res = rateResult(1000, 995, 0, 5, 2000, 100) // 0.5% failed: within the default
	if p := Judge(res, 50, slos, DefaultMaxErrors); !p.Pass || p.Errors != 5 {
		t.Errorf("0.5%% failed: pass %v errors %d: %s", p.Pass, p.Errors, p.Reason)
	}
	if p := Judge(res, 50, slos, 0); p.Pass {
		t.Error("--max-errors 0 passed a probe with failures")
	}
	res.StoppedBy = stats.StopSignal
	if p := Judge(res, 50, slos, DefaultMaxErrors); p.Pass || !p.Interrupted || p.Verdict() != "interrupted" {
		t.Errorf("interrupted probe: pass %v interrupted %v verdict %q", p.Pass, p.Interrupted, p.Verdict())
	}
}

// TestProbeJSON: a probe's JSON has snake_case keys and words, not Go
// field names and enum numbers, and reads back.
func TestProbeJSON(t *testing.T) {
	slos, _ := SLOs([]string{"p99<50ms", "errors<1%"})
	p := Judge(rateResult(800, 800, 0, 0, 2000, 9000), 5, slos, DefaultMaxErrors)
	p.Result = nil
	var buf bytes.Buffer
	if err := (&Report{Outcome: Outcome{Probes: []Probe{p}}}).WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	for _, bad := range []string{`"Expr"`, `"Kind"`, `"Phase"`, `"Measured"`, `"Threshold"`} {
		if strings.Contains(string(b), bad) {
			t.Errorf("JSON has Go field %s: %s", bad, b)
		}
	}
	for _, want := range []string{`"slo": "p99<50ms"`, `"metric": "corrected.p99<50ms"`, `"kind": "latency"`, `"unit": "us"`, `"kind": "errors"`, `"unit": "share"`, `"status": ""`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s: %s", want, b)
		}
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	back := rep.Probes[0]
	if back.SLOs[0].Measured != p.SLOs[0].Measured || back.SLOs[0].Canonical() != p.SLOs[0].Canonical() || back.SLOs[1].Pass != p.SLOs[1].Pass {
		t.Errorf("read back %+v, want %+v", back.SLOs, p.SLOs)
	}
}
