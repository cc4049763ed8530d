// Package realrun runs a real, bounded load for tests: gb's test server on
// a loopback port, the real client and engine, and the result merged as a
// gb run merges it. Test code only; no product binary imports it.
package realrun

import (
	"context"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/pace"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// Run loads gb's test server on loopback with the real client and
// engine (requests keep-alive requests, 4 connections) and returns the
// result, as a gb run would produce it. tune may change the load config;
// with a time limit the run need not complete every request. A
// pace.Constant pacer makes it a rate-mode run (Target.Rate set).
func Run(t testing.TB, requests int64, tune func(*load.Config)) *stats.Result {
	t.Helper()
	srv := testsupport.Server(t, testserver.Options{})
	u, err := url.Parse(srv.URL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	req := h1.Request{Host: u.Host, Target: "/"}
	ccfg := &client.Config{Addr: u.Host, Request: req.Append(nil), KeepAlive: true, Idempotent: true}
	cfg := load.Config{Concurrency: 4, Requests: requests,
		NewConn: func(ctx context.Context) load.Conn { return client.NewFast(ctx, ccfg) }}
	if tune != nil {
		tune(&cfg)
	}
	run, err := load.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	base := stats.Result{GBVersion: "test", Command: []string{"gb", "-k", "-n", strconv.FormatInt(requests, 10), u.String()},
		Target: stats.Target{URL: u.String(), Method: "GET", Host: u.Hostname(), Port: port, Path: "/",
			Concurrency: cfg.Concurrency, Requests: requests, Timeout: 30 * time.Second, KeepAlive: true, Engine: "goroutine"}}
	if c, ok := cfg.Pacer.(pace.Constant); ok {
		base.Target.Rate = float64(c.Freq) / c.Per.Seconds()
	}
	res := run.Run(context.Background(), base)
	if errs := res.Check(); len(errs) > 0 {
		t.Fatalf("inconsistent result: %v", errs)
	}
	if res.Complete() == 0 || cfg.Duration == 0 && res.Complete() != requests {
		t.Fatalf("%d of %d requests complete: %v", res.Complete(), requests, res.Counts.Errors)
	}
	return res
}
