package stats

import "testing"

// BenchmarkRecorderResponse is the recorder's share of one ok response, as
// a load worker calls it: Response, Body, Status and End. allocs/op must
// stay 0 (the hot path's rule).
func BenchmarkRecorderResponse(b *testing.B) {
	rec := NewRecorder(NewShards(1)[0], false, false, 0)
	server := []byte("nginx")
	b.ReportAllocs()
	var i int64
	for b.Loop() {
		i++
		tm := Timing{Connect: 0, Processing: 100 + i%900, Waiting: 50 + i%400, Total: 100 + i%900}
		rec.Response(&tm, 0)
		rec.Body(13, server, i)
		rec.Status(200)
		rec.End(OK)
	}
	rec.Flush()
}
