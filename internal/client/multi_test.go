package client

import (
	"context"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// newBenchMulti returns a Multi over two raw servers with three targets:
// GET /a and /b on the first, GET /c on the second.
func newBenchMulti(tb testing.TB) *Multi {
	addrs := []string{rawServer(tb, benchResponse), rawServer(tb, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nHello")}
	reqs := []h1.Request{{Host: addrs[0], Target: "/a"}, {Host: addrs[0], Target: "/b"}, {Host: addrs[1], Target: "/c"}}
	targets := make([]Target, len(reqs))
	for i := range reqs {
		targets[i] = Target{Request: reqs[i].Append(nil), Head: reqs[i].IsHead(), Idempotent: true}
	}
	cfgs := []*Config{{Addr: addrs[0], KeepAlive: true, Targets: targets}, {Addr: addrs[1], KeepAlive: true, Targets: targets}}
	return NewMulti(context.Background(), cfgs, []int{0, 0, 1})
}

// TestMultiSendsEachTargetToItsAddress: each target's request goes to its
// own server (the two answer different bodies),
// the first server's two targets share one connection, and requests after
// the first on each address allocate nothing.
func TestMultiSendsEachTargetToItsAddress(t *testing.T) {
	m := newBenchMulti(t)
	defer m.Close()
	want := []int64{13, 13, 5}
	opened := 0
	one := func(i int) {
		x := load.Exchange{Target: i % 3}
		if o := m.Do(&x); o != stats.OK || x.Body != want[i%3] {
			t.Fatalf("target %d: %v, body %d bytes (want %d): %v", i%3, o, x.Body, want[i%3], x.Err)
		}
		opened += x.Opened
	}
	for i := range 30 {
		one(i)
	}
	if opened != 2 {
		t.Errorf("%d connections opened for 2 addresses", opened)
	}
	if n := testing.AllocsPerRun(100, func() { one(0); one(1); one(2) }); n != 0 {
		t.Errorf("%v allocations per 3 requests", n)
	}
	if n := m.CloseCount(); n != 2 {
		t.Errorf("CloseCount %d, want 2", n)
	}
}

// BenchmarkMultiTarget is BenchmarkKeepAliveRequest for a run of three
// targets on two addresses, round-robin. allocs/op must stay 0.
func BenchmarkMultiTarget(b *testing.B) {
	m := newBenchMulti(b)
	defer m.Close()
	var x load.Exchange
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		x = load.Exchange{Target: i % 3}
		i++
		if o := m.Do(&x); o != stats.OK {
			b.Fatalf("outcome %v: %v", o, x.Err)
		}
	}
}

// TestStreamMultiInterruptReachesNewAddresses: Interrupt may come from the
// run's stop while the worker makes the Fast of a new address (a lazy
// stream learns its addresses on the way). A Fast made after Interrupt
// read the Multi's Fasts is interrupted too: its request against a server
// that never answers ends at once, not at the minute's timeout. And
// Interrupt beside a growing Multi shares nothing unsynchronised (go test
// -race: Interrupt read the slice the worker appended to).
func TestStreamMultiInterruptReachesNewAddresses(t *testing.T) {
	silent := testsupport.Serve(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	req := h1.Request{Host: silent, Target: "/"}
	targets := []Target{{Request: req.Append(nil), Idempotent: true}, {Request: req.Append(nil), Idempotent: true}}
	newMulti := func(addrs ...string) *Multi {
		cfgs := make([]*Config, len(addrs))
		for i, a := range addrs {
			cfgs[i] = &Config{Addr: a, KeepAlive: true, Targets: targets, Timeout: time.Minute}
		}
		var known atomic.Pointer[[]*Config]
		known.Store(&cfgs)
		addrOf := make([]int, len(addrs))
		for i := range addrOf {
			addrOf[i] = i
		}
		return NewStreamMulti(context.Background(), &known, addrOf)
	}

	m := newMulti(silent)
	defer m.Close()
	m.Interrupt() // before the worker made any Fast
	done := make(chan stats.Outcome, 1)
	go func() {
		var x load.Exchange
		done <- m.Do(&x)
	}()
	select {
	case o := <-done:
		if o.Responded() {
			t.Errorf("outcome %v after Interrupt, want none responded", o)
		}
	case <-time.After(30 * time.Second):
		m.Interrupt() // ends the request, so that the test ends
		t.Fatal("the Fast made after Interrupt was not interrupted: its request waited for the server")
	}

	served := rawServer(t, benchResponse)
	m = newMulti(served, served)
	defer m.Close()
	stopped := make(chan struct{})
	go func() { m.Interrupt(); close(stopped) }()
	for i := range 2 {
		x := load.Exchange{Target: i}
		m.Do(&x)
	}
	<-stopped
}
