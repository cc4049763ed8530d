package gb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/stats"
)

// TestWarmup: the warm-up opens the connections and sends requests that
// are counted apart; the measured run then has exactly -n requests, opens
// no connection of its own (keep-alive) and starts when the warm-up ends.
// In rate mode the measured schedule starts at the warm-up's end and
// nothing is dropped at a rate the server keeps up with.
func TestWarmup(t *testing.T) {
	srv := startServer()
	defer srv.Close()
	for _, tc := range []struct {
		name string
		cfg  gb.Config
	}{
		{"closed", gb.Config{Concurrency: 4, Requests: 400}},
		{"rate", gb.Config{Concurrency: 4, Requests: 40, Rate: gb.Rate{Freq: 200}}},
		{"goroutine", gb.Config{Concurrency: 2, Requests: 100, Engine: gb.EngineGoroutine}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.URL, cfg.KeepAlive, cfg.Warmup = srv.URL()+"/hello", true, 300*time.Millisecond
			began := time.Now()
			res, err := gb.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			w := res.Warmup
			if w == nil || w.Duration != cfg.Warmup || w.Counts.Dispatched == 0 || w.Counts.Outcomes.Sum() != w.Counts.Dispatched || w.Counts.ConnsOpened != int64(cfg.Concurrency) {
				t.Fatalf("warm-up %+v", w)
			}
			if res.Complete() != cfg.Requests || res.Counts.Dispatched != cfg.Requests || res.Counts.ConnsOpened != 0 || len(res.Check()) > 0 {
				t.Errorf("measured: complete %d dispatched %d opened %d check %v", res.Complete(), res.Counts.Dispatched, res.Counts.ConnsOpened, res.Check())
			}
			if res.Start.Before(began.Add(cfg.Warmup)) {
				t.Errorf("measuring began %v after the call, before the warm-up's end", res.Start.Sub(began))
			}
			var text strings.Builder
			if err := report.Text(&text, res, report.Options{}); err != nil || !strings.Contains(text.String(), "warm-up:") || !strings.Contains(text.String(), "300ms before measuring, not counted above: ") {
				t.Errorf("the report does not show the warm-up: %v", err)
			}
			kept := fmt.Sprintf("connections:          opened=0 closed=%d (+%d opened in the warm-up and kept)\n", res.Counts.ConnsClosed, cfg.Concurrency)
			if !strings.Contains(text.String(), kept) {
				t.Errorf("the report does not say which connections the measured run used; want %q in\n%s", kept, text.String())
			}
			if cfg.Rate.Freq > 0 && (res.Counts.Outcomes[stats.Dropped] != 0 || res.Latency[stats.Corrected].Count != cfg.Requests) {
				t.Errorf("rate: dropped %d, corrected samples %d", res.Counts.Outcomes[stats.Dropped], res.Latency[stats.Corrected].Count)
			}
		})
	}
}
