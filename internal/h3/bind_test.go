package h3

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

// TestLocalAddrs: with Client.LocalAddrs (gb -B), each connection's UDP
// socket is bound to the next address in turn: four workers' connections
// reach the server from 127.0.0.2 and 127.0.0.3, two each.
func TestLocalAddrs(t *testing.T) {
	var mu sync.Mutex
	from := map[string]int{}
	s := startServer(t, nil, func(_ *server, w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		mu.Lock()
		from[host]++
		mu.Unlock()
		_, _ = w.Write([]byte("hello\n"))
	})
	cfg := newConfig(t, s.addr, 2, 30*time.Second, nil)
	cfg.Client.LocalAddrs = []*net.TCPAddr{{IP: net.IPv4(127, 0, 0, 2)}, {IP: net.IPv4(127, 0, 0, 3)}}
	for range 4 {
		if tl := drive(t, New(context.Background(), cfg), 10); tl.outcomes[stats.OK] != 10 || tl.opened != 1 {
			t.Fatalf("%+v %v", tl, tl.errs)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if from["127.0.0.2"] != 20 || from["127.0.0.3"] != 20 || len(from) != 2 {
		t.Errorf("requests by client address: %v, want 20 from each of 127.0.0.2 and 127.0.0.3", from)
	}
}
