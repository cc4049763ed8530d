package record

import (
	"github.com/gb-bench/gb/stats"
	"testing"
	"time"
)

// BenchmarkRecorderResponse is the recorder's share of one ok response, as
// a load worker calls it: Response, Body, Status and End. allocs/op must
// stay 0 (the hot path's rule).
func BenchmarkRecorderResponse(b *testing.B) {
	benchResponses(b, NewRecorder(NewGroups(1)[0], false, false, 0), false)
}

// BenchmarkRecorderSeries is BenchmarkRecorderResponse with a time series
// of 100 ms intervals and EndAt, requests ending 1 µs apart (one recorder
// doing a million requests a second): the recorder and its group move to a
// new interval every 100 000 requests. allocs/op must stay 0.
func BenchmarkRecorderSeries(b *testing.B) {
	rec := NewRecorder(NewGroups(1)[0], false, false, 0)
	rec.StartSeries(100*time.Millisecond, time.Unix(1795269090, 0))
	benchResponses(b, rec, true)
}

// benchResponses records one ok response per iteration; timed makes it
// end with EndAt, 1 µs after the previous one.
func benchResponses(b *testing.B, rec *Recorder, timed bool) {
	server := []byte("nginx")
	b.ReportAllocs()
	var i int64
	for b.Loop() {
		i++
		tm := Timing{stats.Connect: 0, stats.Processing: 100 + i%900, stats.Waiting: 50 + i%400, stats.Total: 100 + i%900}
		rec.Response(&tm, 0)
		rec.Body(13, server, i)
		rec.Status(200)
		if timed {
			rec.EndAt(stats.OK, i*1000)
		} else {
			rec.End(stats.OK)
		}
	}
	rec.Flush()
}
