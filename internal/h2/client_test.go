package h2

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/pace"
	"github.com/gb-bench/gb/stats"
)

// TestCountsEqualServer: closed loops over TLS (ALPN h2) and h2c, with
// several streams per connection, on both engines: every request is
// answered once, and the server counted exactly as many HTTP/2 requests.
func TestCountsEqualServer(t *testing.T) {
	for _, useTLS := range []bool{true, false} {
		for _, loops := range []int{0, 1} {
			gs := startGoServer(t, useTLS, nil)
			cfg := clientConfig(t, gs.addr, useTLS, nil, 10, 10*time.Second)
			res := run(t, cfg, load.Config{Concurrency: 4, Requests: 2003, Loops: loops})
			checkCounts(t, res)
			if res.Counts.Outcomes[stats.OK] != 2003 || gs.served.Load() != 2003 || gs.h1.Load() != 0 {
				t.Errorf("tls=%v loops=%d: ok %d, server counted %d h2 and %d h1; outcomes %v errors %v",
					useTLS, loops, res.Counts.Outcomes[stats.OK], gs.served.Load(), gs.h1.Load(), res.Counts.Outcomes, res.Counts.Errors)
			}
			if res.Counts.ConnsOpened != 4 {
				t.Errorf("tls=%v loops=%d: %d connections opened, want 4", useTLS, loops, res.Counts.ConnsOpened)
			}
		}
	}
}

// TestPostBodyOverWindows: 200 KB bodies, more than the server's initial
// stream window (64 KiB) and the connection's: gb waits for its
// WINDOW_UPDATEs and the server reads every byte of every body.
func TestPostBodyOverWindows(t *testing.T) {
	gs := startGoServer(t, false, nil)
	req := &h1.Request{Method: "POST", Target: "/", Host: gs.addr, Body: make([]byte, 200_000)}
	cfg := clientConfig(t, gs.addr, false, req, 4, 10*time.Second)
	res := run(t, cfg, load.Config{Concurrency: 2, Requests: 50})
	checkCounts(t, res)
	if res.Counts.Outcomes[stats.OK] != 50 || gs.body.Load() != 50*200_000 {
		t.Errorf("ok %d, server read %d body bytes; outcomes %v errors %v", res.Counts.Outcomes[stats.OK],
			gs.body.Load(), res.Counts.Outcomes, res.Counts.Errors)
	}
	if res.Counts.BytesOut < 50*200_000 {
		t.Errorf("bytes out %d, below the bodies' %d", res.Counts.BytesOut, 50*200_000)
	}
}

// TestRateModeStreams: -R with several streams per connection: requests
// go out on schedule (a free stream sends the next due one), each ends
// once, the server counts them all, and corrected latency is measured.
func TestRateModeStreams(t *testing.T) {
	for _, loops := range []int{0, 1} {
		gs := startGoServer(t, true, nil)
		cfg := clientConfig(t, gs.addr, true, nil, 8, 10*time.Second)
		res := run(t, cfg, load.Config{Concurrency: 2, Requests: 300, Loops: loops,
			Pacer: pace.Constant{Freq: 1000, Per: time.Second}})
		checkCounts(t, res)
		if res.Counts.Outcomes[stats.OK] != 300 || gs.served.Load() != 300 || res.Counts.Scheduled != 300 {
			t.Errorf("loops=%d: ok %d, served %d, scheduled %d", loops, res.Counts.Outcomes[stats.OK], gs.served.Load(), res.Counts.Scheduled)
		}
		if res.Latency[stats.Corrected].Count != 300 || res.Elapsed < 250*time.Millisecond {
			t.Errorf("loops=%d: %d corrected latencies, elapsed %v (300 at 1000/s take 0.3 s)", loops,
				res.Latency[stats.Corrected].Count, res.Elapsed)
		}
	}
}

// TestWarmupAndTimeLimitStreams: a warm-up then a time limit with 5
// streams in flight per connection: the warm-up's requests are counted
// apart, also those answered after it, the requests in flight at the stop
// end as aborted.deadline, and nothing is lost: outcomes sum to dispatched
// in both. The server is scripted, so that no account depends on its
// speed: it holds the warm-up's requests until the measured load begins
// (OnMeasure), answers them then, and holds every later request until the
// stop. So a measured request never ends ok, and a warm-up one ends ok or
// aborted.deadline (answered after the stop), in the warm-up's account.
func TestWarmupAndTimeLimitStreams(t *testing.T) {
	measuring, end := make(chan struct{}), make(chan struct{})
	defer close(end)
	gs := startGoServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-measuring: // a measured request: no answer before the stop
			select {
			case <-end:
			case <-r.Context().Done():
			}
			return
		default:
		}
		select {
		case <-measuring:
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, "warm")
	})
	cfg := clientConfig(t, gs.addr, false, nil, 5, 10*time.Second)
	res := run(t, cfg, load.Config{Concurrency: 2, Duration: 300 * time.Millisecond, Warmup: time.Second, Loops: 1, // a worker late by most of a second still sends in the warm-up
		OnMeasure: func() { close(measuring) }})
	checkCounts(t, res)
	o := res.Counts.Outcomes
	if res.StoppedBy != stats.StopTime || o[stats.AbortedDeadline] != res.Counts.Dispatched {
		t.Errorf("stopped by %s, %d dispatched, outcomes %v: want every measured one aborted.deadline", res.StoppedBy, res.Counts.Dispatched, o)
	}
	w := res.Warmup
	if w == nil {
		t.Fatal("no warm-up account")
	}
	wo := w.Counts.Outcomes
	var warm int64
	for _, n := range wo {
		warm += n
	}
	// A warm-up request ends ok if its answer came back before the stop,
	// else aborted.deadline: either way in the warm-up's account.
	if w.Counts.Dispatched == 0 || warm != w.Counts.Dispatched || wo[stats.OK]+wo[stats.AbortedDeadline] != warm {
		t.Errorf("warm-up %+v: outcomes sum to %d, want %d, each ok or aborted.deadline", w.Counts, warm, w.Counts.Dispatched)
	}
	if o[stats.AbortedDeadline]+wo[stats.AbortedDeadline] == 0 {
		t.Errorf("nothing in flight at the stop: outcomes %v, warm-up's %v", o, wo)
	}
	t.Logf("warm-up: %d ok, %d aborted; measured: %d aborted", wo[stats.OK], wo[stats.AbortedDeadline], o[stats.AbortedDeadline])
	if got := res.Counts.Dispatched + w.Counts.Dispatched; gs.served.Load() > got {
		t.Errorf("server served %d, gb dispatched %d", gs.served.Load(), got)
	}
}

// TestNotHTTP2: a TLS server that offers only http/1.1, and an HTTP/1.1
// server sent h2c's preface: the run stops at once with one line saying so.
func TestNotHTTP2(t *testing.T) {
	for _, useTLS := range []bool{true, false} {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		var p http.Protocols
		p.SetHTTP1(true)
		srv.Config.Protocols = &p
		if useTLS {
			srv.StartTLS()
		} else {
			srv.Start()
		}
		defer srv.Close()
		cfg := clientConfig(t, srv.Listener.Addr().String(), useTLS, nil, 1, 2*time.Second)
		res := run(t, cfg, load.Config{Concurrency: 2, Requests: 100})
		checkCounts(t, res)
		want := `the server did not negotiate HTTP/2 (ALPN gave "http/1.1")`
		if !useTLS {
			want = `the server does not speak HTTP/2: its first bytes are "HTTP/1.1 `
		}
		if res.StoppedBy != stats.StopError || !strings.HasPrefix(res.StopError, want) || res.Complete() > 0 {
			t.Errorf("tls=%v: stopped by %q: %q, %d complete", useTLS, res.StoppedBy, res.StopError, res.Complete())
		}
	}
}
