// Package realrun runs a real, bounded load for tests: gb's test server on
// a loopback port driven by gb.Run, the same path a gb run takes. Test code
// only; no product binary imports it.
package realrun

import (
	"context"
	"testing"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// Run loads gb's test server on loopback with gb.Run (requests keep-alive
// requests over 4 connections) and returns the result. tune may change the
// Config (Rate, Duration, Interval, ...); with a time limit the run need
// not complete every request.
func Run(t testing.TB, requests int64, tune func(*gb.Config)) *stats.Result {
	t.Helper()
	srv := testsupport.Server(t, testserver.Options{})
	cfg := gb.Config{URL: srv.URL() + "/", Concurrency: 4, Requests: requests, KeepAlive: true}
	if tune != nil {
		tune(&cfg)
	}
	res, err := gb.Run(context.Background(), cfg, gb.WithCommand([]string{"gb", "-k", "-c", "4", cfg.URL}))
	if err != nil {
		t.Fatal(err)
	}
	if errs := res.Check(); len(errs) > 0 {
		t.Fatalf("inconsistent result: %v", errs)
	}
	if res.Complete() == 0 || cfg.Duration == 0 && res.Complete() != requests {
		t.Fatalf("%d of %d requests complete: %v", res.Complete(), requests, res.Counts.Errors)
	}
	return res
}
