package gb_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// TestProgressServer: with WithProfile, the progress snapshots carry the
// server's busy cores (from its CPU windows) and GC cycles (from its
// /debug/vars) during a load that allocates; without it they carry none.
func TestProgressServer(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	cfg := gb.Config{URL: srv.URL() + "/leftpad?str=x&len=20000&chr=0", KeepAlive: true, Concurrency: 4, Duration: 2500 * time.Millisecond}
	var mu sync.Mutex
	var last gb.Progress
	record := gb.WithProgress(100*time.Millisecond, func(p gb.Progress) {
		mu.Lock()
		last = p
		mu.Unlock()
	})
	res, err := gb.Run(context.Background(), cfg, record, gb.WithProfile(gb.Profile{Kinds: "cpu", Dir: t.TempDir()}),
		gb.WithWarnings(func(m string) { t.Log(m) }))
	if err != nil || res.Profile == nil {
		t.Fatalf("run: %v, profile %v", err, res.Profile)
	}
	mu.Lock()
	s := last.Server
	mu.Unlock()
	// The live figures are read every second or so: how many GC cycles a
	// busy machine lets them see is its speed's business. Each leftpad
	// request allocates about 200 MB, so the run's own reading of the
	// server's memstats must count cycles once a request was answered.
	if !s.Known || s.CPU <= 0 || s.GC < 0 || s.GCRecent > s.GC {
		t.Errorf("last progress of a profiled run: server %+v, want busy cores and consistent GC counts", s)
	}
	if rt := res.Profile.Runtime; res.Complete() > 0 && (rt == nil || rt.GCCycles <= 0) {
		t.Errorf("%d leftpad responses of 20000 runes, server runtime %+v: want GC cycles", res.Complete(), rt)
	}
	cfg.Duration = 300 * time.Millisecond
	if _, err := gb.Run(context.Background(), cfg, record); err != nil {
		t.Fatal(err)
	}
	if last.Server != (gb.ServerLive{}) {
		t.Errorf("progress without a profile: server %+v, want zero", last.Server)
	}
}
