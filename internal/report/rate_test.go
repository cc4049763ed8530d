package report

import (
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/fakerun"
	"github.com/gb-bench/gb/internal/record"
	"github.com/gb-bench/gb/stats"
)

// lateRun is issue 30's run, scripted: -R 2000 -c 20 for a second against
// a 2 ms endpoint (service p99 2.2 ms) while gb sent late (lag 9.5 ms on
// the slowest sends; the slowest response took 12 ms).
func lateRun() *stats.Result {
	reqs := make([]fakerun.Req, 2000)
	for i := range reqs {
		svc, lag := int64(2000), int64(200)
		switch {
		case i%50 == 0:
			lag = 9500
		case i%97 == 0:
			svc = 2200
		}
		if i == 1000 {
			svc = 12000
		}
		reqs[i] = fakerun.Req{Outcome: stats.OK, Status: 200, T: record.Timing{stats.Total: svc, stats.Processing: svc,
			stats.Corrected: svc + lag, stats.Lag: lag}, KeepAlive: true, NewConn: i < 20}
	}
	tg := fakerun.Target("/", 20, 2000)
	tg.Rate, tg.KeepAlive = 2000, true
	return fakerun.Build(fakerun.Spec{Target: tg, Elapsed: time.Second, StoppedBy: stats.StopCount, Reqs: reqs})
}

// TestWarningsBlameGBWhenItSentLate: when gb's sends lag while the server
// answers within its service time, the report says so (and to raise -c
// when the pool can run dry), and never that the server is too slow.
func TestWarningsBlameGBWhenItSentLate(t *testing.T) {
	ws := strings.Join(warnings(lateRun()), "\n")
	if strings.Contains(ws, "server is too slow") || !strings.Contains(ws, "gb sent late, not the server") ||
		!strings.Contains(ws, "raise -c") {
		t.Errorf("warnings:\n%s", ws)
	}
}
