package h2

import (
	"context"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// TestMultiRoutesByTarget: a Multi over two servers (targets 1 and 2 on
// the second) opens one connection per server and keeps both open, runs
// one exchange at a time (Room 0 while one is in flight), and allocates
// nothing per request. (Each server's count of its targets' requests:
// cmd/gb's TestH2SeveralAddresses.)
func TestMultiRoutesByTarget(t *testing.T) {
	cfg := clientConfig(t, "127.0.0.1:1", false, &h1.Request{Target: "/", Host: "a", UserAgent: "gb/test"}, 1, 10*time.Second)
	at := func() *client.Config {
		return &client.Config{Addr: cannedServer(t, len(cfg.reqs[0].frames), false), Timeout: 10 * time.Second, BufferSize: 16 << 10}
	}
	m := NewMulti(context.Background(), []*Config{cfg.ForAddress(at()), cfg.ForAddress(at())}, []int{0, 1, 1})
	var x load.Exchange
	opened := 0
	round := func() {
		for target := range 3 {
			x = load.Exchange{Target: target}
			if m.Room() != 1 {
				t.Fatalf("Room %d with nothing in flight", m.Room())
			}
			o, done := m.Start(&x)
			if done {
				t.Fatalf("target %d: %v %v", target, o, x.Err)
			}
			if m.Room() != 0 {
				t.Fatalf("Room %d with an exchange in flight", m.Room())
			}
			if y, o := m.Next(time.Time{}); y != &x || o != stats.OK {
				t.Fatalf("target %d: %v %v", target, o, x.Err)
			}
			opened += x.Opened
		}
	}
	round()
	if opened != 2 || !m.clients[0].Open() || !m.clients[1].Open() {
		t.Errorf("%d connections opened for two servers", opened)
	}
	if !raceEnabled {
		if n := testing.AllocsPerRun(100, round); n != 0 {
			t.Errorf("%.1f allocations per round of 3 requests", n)
		}
	}
	if n := m.CloseCount(); n != 2 {
		t.Errorf("CloseCount %d, want 2", n)
	}
}
