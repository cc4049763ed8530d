package gb_test

import (
	"context"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// TestWithLive: a watcher reading a Live from its own goroutine while the
// load runs (as a metrics scrape does) sees counts that only grow and
// closed-interval latency that never counts more responses than the
// counters; after the run the Live holds exactly the Result's requests,
// latency samples of both phases, bytes and status classes. Run with
// -race, it shows the reads share nothing unguarded with the workers.
func TestWithLive(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	cfg := gb.Config{URL: srv.URL() + "/", KeepAlive: true, Concurrency: 4, Requests: 3000,
		Rate: gb.Rate{Freq: 3000}, Interval: 100 * time.Millisecond}
	var live *gb.Live
	got := make(chan *gb.Live, 1)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var problems []string
	wg.Go(func() {
		l := <-got
		var dst [2]*hdrhistogram.Histogram
		var last int64
		for {
			select {
			case <-stop:
				return
			default:
			}
			p := l.Progress()
			l.Latency(&dst)
			if p.Done < last {
				problems = append(problems, "the count went down")
			}
			last = p.Done
			p2 := l.Progress()
			if dst[0].TotalCount() > p2.OK+p2.Non2xx {
				problems = append(problems, "closed latency counts more than the counters")
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	res, err := gb.Run(context.Background(), cfg, gb.WithLive(func(l *gb.Live) { live = l; got <- l }))
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("while running: %v", problems[:1])
	}
	if live.Rate() != 3000 {
		t.Errorf("Rate %g, want 3000", live.Rate())
	}
	p := live.Progress()
	var dst [2]*hdrhistogram.Histogram
	c := live.Latency(&dst)
	if p.Outcomes != res.Counts.Outcomes || p.Done != 3000 {
		t.Errorf("live outcomes %v (done %d), result %v", p.Outcomes, p.Done, res.Counts.Outcomes)
	}
	if dst[0].TotalCount() != res.Latency[stats.Total].Hist.TotalCount() || dst[1].TotalCount() != res.Latency[stats.Corrected].Hist.TotalCount() {
		t.Errorf("live latency %d and %d samples, result %d and %d", dst[0].TotalCount(), dst[1].TotalCount(),
			res.Latency[stats.Total].Hist.TotalCount(), res.Latency[stats.Corrected].Hist.TotalCount())
	}
	if c.BytesIn != res.Counts.BytesIn || c.BytesOut != res.Counts.BytesOut || c.Status[2] != res.Counts.Status[200] {
		t.Errorf("live closed %+v, result bytes %d/%d status %v", c, res.Counts.BytesIn, res.Counts.BytesOut, res.Counts.Status)
	}
}
