package client

import (
	"context"
	"testing"

	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
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
