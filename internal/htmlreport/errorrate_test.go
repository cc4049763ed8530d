package htmlreport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/compare"
	"github.com/gb-bench/gb/internal/fakerun"
	"github.com/gb-bench/gb/internal/record"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/internal/threshold"
	"github.com/gb-bench/gb/stats"
)

// TestErrorRateOneDefinition: "error rate" is one number wherever gb
// shows it: the JSON's totals.error_rate, --threshold 'errors<N%', gb
// compare's error rate row and the HTML report's card: the failed
// requests over those that ended on their own (here 50 of 200: 100 ok, 50
// non-2xx, 50 failed; the 10 aborted by the stop are in neither part).
// Non-2xx responses have their own rate (50 of 200) in each.
func TestErrorRateOneDefinition(t *testing.T) {
	var reqs []fakerun.Req
	add := func(n int, o stats.Outcome, status int) {
		for range n {
			reqs = append(reqs, fakerun.Req{Outcome: o, Status: status, T: record.Timing{stats.Processing: 900, stats.Waiting: 800, stats.Total: 900}, Length: 10, KeepAlive: true})
		}
	}
	add(100, stats.OK, 200)
	add(50, stats.Non2xx, 503)
	add(30, stats.FailReset, 0)
	add(20, stats.TimeoutTotal, 0)
	add(10, stats.AbortedDeadline, 0)
	r := fakerun.Build(fakerun.Spec{Target: stats.Load{URL: "http://127.0.0.1:1/", Host: "127.0.0.1", Port: 1, Path: "/", Concurrency: 2}, Elapsed: time.Second, StoppedBy: stats.StopTime, Reqs: reqs})
	const want = 0.25

	var j bytes.Buffer
	if err := report.JSON(&j, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Totals struct {
			ErrorRate  float64 `json:"error_rate"`
			Non2xxRate float64 `json:"non2xx_rate"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(j.Bytes(), &doc); err != nil || doc.Totals.ErrorRate != want || doc.Totals.Non2xxRate != want {
		t.Errorf("JSON totals %+v (%v), want error_rate %v", doc.Totals, err, want)
	}
	th, _ := threshold.Parse("errors<30%")
	if v := th.Eval(r); v.Measured != want || !v.Pass {
		t.Errorf("threshold errors<30%%: measured %v pass %v", v.Measured, v.Pass)
	}
	in := compare.Input{Name: "a", Runs: []*stats.Result{r}}
	tb := compare.Compare(in, in)
	if row, ok := tb.Row("errors"); !ok || row.Cells[0].Summary.Center != want {
		t.Errorf("compare error rate row %+v", row)
	}
	if row, ok := tb.Row("non2xx"); !ok || row.Cells[0].Summary.Center != want {
		t.Errorf("compare non-2xx rate row %+v", row)
	}
	var h bytes.Buffer
	if err := Run(&h, r); err != nil {
		t.Fatal(err)
	}
	card := `<div class="label">error rate</div><div class="value">25.00%</div><div class="note">50 failed of 200 ended; non-2xx 50 (25.00%)</div>`
	if !strings.Contains(h.String(), card) {
		i := strings.Index(h.String(), `class="cards"`)
		t.Errorf("HTML lacks the error rate card %s in:\n%s", card, h.String()[i:min(i+1500, h.Len())])
	}
}
