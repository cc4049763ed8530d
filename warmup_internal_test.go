package gb

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
)

// TestWarmupMeasureWindow: with --warmup, gb's own cost and the server's
// profile cover the measured load only. gb's CPU readings are scripted to
// advance with the wall clock (a core busy all along), so the charged CPU
// is the length of the window it was read over: it must equal the
// recorded window and fit in the time after the warm-up's end. The
// profile, which --warmup used to drop, is there with its CPU windows and
// files. On both engines, and in a run stopped during its warm-up (which
// measured nothing: no CPU charged, nothing captured, no folder left).
func TestWarmupMeasureWindow(t *testing.T) {
	srv, err := testserver.Start(testserver.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	origin := time.Now()
	readSelf = func() selfSample { now := time.Now(); return selfSample{at: now, cpu: now.Sub(origin)} }
	defer func() { readSelf = readSelfNow }()
	for _, engine := range []Engine{EngineLoop, EngineGoroutine} {
		t.Run(string(engine), func(t *testing.T) {
			cfg := Config{URL: srv.URL() + "/hello", Concurrency: 2, Requests: 300, KeepAlive: true,
				Warmup: 300 * time.Millisecond, Engine: engine}
			dir := t.TempDir()
			began := time.Now()
			res, err := Run(context.Background(), cfg, WithProfile(Profile{Kinds: "cpu,allocs", Dir: dir}))
			after := time.Since(began) - cfg.Warmup
			if err != nil {
				t.Fatal(err)
			}
			c := res.Client
			if c.CPU <= 0 || c.CPU != c.CPUWindow || c.CPU > after {
				t.Errorf("gb's CPU %v over a window of %v; the run's %v after the warm-up's end", c.CPU, c.CPUWindow, after)
			}
			sp := res.Profile
			if sp == nil || sp.CPU == nil || sp.CPU.Windows == 0 || sp.Requests != cfg.Requests || len(sp.Files) != 2 || sp.Dir != dir {
				t.Fatalf("server profile after a warm-up: %+v", sp)
			}
			if res.Warmup == nil || res.Warmup.Counts.Dispatched == 0 {
				t.Errorf("warm-up %+v", res.Warmup)
			}
		})
	}
	t.Run("stopped in the warm-up", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		dir := t.TempDir() + "/p"
		cfg := Config{URL: srv.URL() + "/hello", Concurrency: 2, Requests: 300, KeepAlive: true, Warmup: time.Minute}
		res, err := Run(ctx, cfg, WithProfile(Profile{Kinds: "cpu", Dir: dir}))
		if err != nil {
			t.Fatal(err)
		}
		if res.Client.CPU != 0 || res.Client.CPUWindow != 0 || res.Complete() != 0 {
			t.Errorf("measured nothing, yet CPU %v over %v, %d responses", res.Client.CPU, res.Client.CPUWindow, res.Complete())
		}
		if sp := res.Profile; sp == nil || sp.CPU != nil || len(sp.Files) != 0 || len(sp.Notes) != 1 {
			t.Errorf("profile of a load stopped before measuring: %+v", sp)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("profile folder left: %v", err)
		}
	})
}
