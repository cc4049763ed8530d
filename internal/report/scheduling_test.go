package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/fakerun"
	"github.com/gb-bench/gb/stats"
)

// starvedResult is a run whose diagnosis is what gb makes of gb serve's
// /slow/starved with --profile=cpu,trace.
func starvedResult() *stats.Result {
	r := fakerun.Build(fakerun.KeepAliveSpec())
	sp := fakerun.DiagnosedProfile(false)
	d := sp.Diagnosis
	d.Bound = "scheduling"
	d.Verdict = "scheduling: requests wait 10900us per request for a P behind the server's other goroutines (which ran 81 pct of the time; " +
		"every P was busy while goroutines waited 98 pct of the time; p99 wait for a P 411042us), most CPU in " +
		"github.com/gb-bench/gb/internal/testserver.spin; run fewer busy goroutines than GOMAXPROCS (a bounded worker pool) or make them yield"
	d.Scheduling = &stats.DiagnosisScheduling{Traced: 1417 * time.Millisecond, Procs: 2, Events: 48211, Waits: 549,
		WaitP50: 244740 * time.Nanosecond, WaitP99: 411041790 * time.Nanosecond, WaitMax: 666894330 * time.Nanosecond,
		STW: 3, STWTotal: 1314560 * time.Nanosecond, STWMax: 681220 * time.Nanosecond,
		ServingWait: 5403 * time.Millisecond, RequestWait: 13509220 * time.Nanosecond, Starving: 10900250 * time.Nanosecond,
		ServingShare: 0.037, OtherShare: 0.807, Busy: 0.993, IdleWhileRunnable: 0.007, Starved: 0.985}
	r.Profile = sp
	return r
}

// TestDiagnosisSchedulingGolden: the trace's lines (waits for a P, the
// Ps' time, stop-the-world) follow the goroutines and precede what is
// missing; without a per-request wait (no requests) the wait line gives
// the latencies alone.
func TestDiagnosisSchedulingGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, starvedResult(), Options{}); err != nil {
		t.Fatal(err)
	}
	_, sec, _ := strings.Cut(b.String(), "\ngb diagnosis:\n")
	golden(t, "text_diagnosis_scheduling.txt", []byte(sec))
	r := starvedResult()
	r.Profile.Diagnosis.Scheduling.RequestWait, r.Profile.Diagnosis.Scheduling.Starving = -1, -1
	b.Reset()
	if err := Text(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if want := "  sched wait:           p50=244.74us p99=411041.79us max=666894.33us over 549 waits for a P\n"; !strings.Contains(b.String(), want) {
		t.Errorf("no %q in\n%s", want, b.String())
	}
}
