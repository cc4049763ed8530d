package client

import (
	"context"
	"testing"
)

// engine runs a test body with a Fast built from a Config, the way one of
// gb's engines runs a worker's client.
type engine struct {
	name string
	run  func(t *testing.T, cfg *Config, fn func(f *Fast))
}

// engines are the engines this platform has: goroutines everywhere, and the
// event loops on Linux (added by loop_test.go).
var engines = []engine{{"goroutine", onGoroutine}}

// onGoroutine runs fn on the test's goroutine, over Go's netpoller.
func onGoroutine(_ *testing.T, cfg *Config, fn func(f *Fast)) {
	f := NewFast(context.Background(), cfg)
	defer f.Close()
	fn(f)
}

// forEachEngine runs fn as a subtest on each engine, with a fresh Config
// from newCfg for each (the loops change the Config they run).
func forEachEngine(t *testing.T, newCfg func() *Config, fn func(t *testing.T, f *Fast)) {
	t.Helper()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			e.run(t, newCfg(), func(f *Fast) { fn(t, f) })
		})
	}
}
