package gb_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/stats"
)

// TestStepCarriesConnections: on the goroutine engine, Carry keeps a
// step's keep-alive connections for the next step, which opens none; a
// step may change only the load.
func TestStepCarriesConnections(t *testing.T) {
	srv := startServer()
	defer srv.Close()
	base := gb.Config{URL: srv.URL() + "/hello", KeepAlive: true, Concurrency: 4, Requests: 400, Engine: gb.EngineGoroutine}
	p, err := gb.NewPlan(base)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	first, err := p.Step(context.Background(), gb.Step{Requests: 400}, gb.Carry())
	if err != nil || first.Counts.ConnsOpened != 4 || first.Load.Concurrency != 4 || p.Held() != 4 {
		t.Fatalf("first step: %v, opened %d, held %d", err, first.Counts.ConnsOpened, p.Held())
	}
	second, err := p.Step(context.Background(), gb.Step{Concurrency: 2, Requests: 100})
	if err != nil || second.Counts.ConnsOpened != 0 || second.Complete() != 100 || p.Held() != 0 {
		t.Errorf("second step: %v, opened %d, complete %d, held %d", err, second.Counts.ConnsOpened, second.Complete(), p.Held())
	}
	if _, err := p.Step(context.Background(), gb.Step{Concurrency: 2}); err == nil || strings.HasPrefix(err.Error(), "gb: ") {
		t.Errorf("a step without a bound: %v, want a refusal without the CLI's prefix", err)
	}
}

// TestStepOfAShardIsItsShare: a sharded Plan's step runs the shard's share
// of the step's whole-load numbers, once (not a share of a share), and a
// zero Concurrency is the Plan's whole Concurrency, shared.
func TestStepOfAShardIsItsShare(t *testing.T) {
	srv := startServer()
	defer srv.Close()
	p, err := gb.NewPlan(gb.Config{URL: srv.URL() + "/hello", KeepAlive: true, Concurrency: 8, Requests: 80,
		Engine: gb.EngineGoroutine, Shard: gb.Shard{Index: 1, Count: 4}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res, err := p.Step(context.Background(), gb.Step{Requests: 40})
	if err != nil || res.Load.Concurrency != 2 || res.Load.Requests != 10 || res.Complete() != 10 {
		t.Errorf("step of shard 1/4: %v, concurrency %d requests %d complete %d, want 2, 10, 10",
			err, res.Load.Concurrency, res.Load.Requests, res.Complete())
	}
}

// TestStartAtStopped: a run stopped while it waits for Config.StartAt says
// so without the CLI's "gb: " prefix, which the CLI adds (no "gb: gb:").
func TestStartAtStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := gb.Run(ctx, gb.Config{URL: "http://127.0.0.1:1/", Requests: 1, StartAt: time.Now().Add(time.Hour)})
	if err == nil || strings.HasPrefix(err.Error(), "gb: ") || !strings.Contains(err.Error(), "start time") {
		t.Errorf("stopped before the start: %v", err)
	}
}

// TestRunStopsOnCancel: cancelling the context stops a load bounded only
// by time, as a signal does, and the result still accounts for every
// request. The cancel comes after the first response (not after a fixed
// 200 ms, which a busy machine may spend before one).
func TestRunStopsOnCancel(t *testing.T) {
	srv := startServer()
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelOnOK := gb.WithObserver(func(x gb.Exchange) {
		if x.Outcome == stats.OK {
			cancel()
		}
	})
	res, err := gb.Run(ctx, gb.Config{URL: srv.URL() + "/hello", KeepAlive: true, Concurrency: 2, Duration: time.Hour}, cancelOnOK)
	if err != nil {
		t.Fatal(err)
	}
	if res.StoppedBy != stats.StopSignal || res.Complete() == 0 || len(res.Check()) > 0 {
		t.Errorf("stopped by %q, complete %d, invariants %v", res.StoppedBy, res.Complete(), res.Check())
	}
}

// TestConfigErrors: a Config that cannot run is refused before any
// connection, with a *gb.ConfigError in ab's words.
func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  gb.Config
		want string
	}{
		{gb.Config{URL: "ftp://x/", Requests: 1}, `unsupported URL scheme "ftp" (supported: http, https, http+unix, https+unix)`},
		{gb.Config{URL: "http://127.0.0.1/"}, "invalid Config.Requests 0"},
		{gb.Config{URL: "http://127.0.0.1/", Requests: 2_000_000, Concurrency: 1_000_001}, "Config.Concurrency 1000001 is out of range [1..1000000]"},
		{gb.Config{URL: "http://127.0.0.1/", Rate: gb.Rate{Freq: 10}}, "Config.Rate needs Config.Requests or Config.Duration: gb never runs unbounded"},
		{gb.Config{URL: "http://127.0.0.1/", Rate: gb.Rate{Freq: 1, Per: 10 * time.Second}, Duration: 2 * time.Second, Requests: 5},
			"Config.Rate 1/10s sends no request within Config.Duration 2s: its first interval, 1/rate, ends after it"},
		{gb.Config{URL: "http://127.0.0.1/", Requests: 1, Engine: "fast"}, `unknown Config.Engine "fast" (want auto, loop, loop-tasks or goroutine)`},
		{gb.Config{URL: "http://127.0.0.1/", Requests: 1, Headers: []string{"Transfer-Encoding: chunked"}}, "Config.Headers Transfer-Encoding conflicts with the request framing gb sets"},
		{gb.Config{Requests: 1, Targeter: func(t *gb.Target) error { t.URL = "http://127.0.0.1:1/"; return nil }, Script: "s.lua", ScriptSource: []byte("")},
			"Config.Script and Config.Targets or Config.Targeter cannot be combined: the script makes the requests"},
	} {
		_, err := gb.NewPlan(tc.cfg)
		var ce *gb.ConfigError
		if !errors.As(err, &ce) || err.Error() != tc.want {
			t.Errorf("%+v: %v, want ConfigError %q", tc.cfg, err, tc.want)
		}
	}
}
