package gb_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/testsupport"
)

// sourceServer answers every request with a tiny 200 and records the
// remote address of each connection.
func sourceServer(t *testing.T) (url string, seen func() []string) {
	var mu sync.Mutex
	ips := map[string]int{}
	addr := testsupport.Serve(t, func(c net.Conn) {
		ip, _, _ := net.SplitHostPort(c.RemoteAddr().String())
		mu.Lock()
		ips[ip]++
		mu.Unlock()
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, req.Body)
			if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); err != nil {
				return
			}
		}
	})
	return "http://" + addr + "/", func() []string {
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for ip := range ips {
			out = append(out, ip)
		}
		slices.Sort(out)
		return out
	}
}

// TestSourcesSpread: with -B as a range the server sees connections from
// every address of it, on both engines, with keep-alive and without.
func TestSourcesSpread(t *testing.T) {
	for _, engine := range []gb.Engine{gb.EngineLoop, gb.EngineGoroutine} {
		for _, keep := range []bool{true, false} {
			url, seen := sourceServer(t)
			res, err := gb.Run(context.Background(), gb.Config{URL: url, Engine: engine, KeepAlive: keep,
				Concurrency: 6, Requests: 60, LocalAddr: "127.0.0.1-127.0.0.3"})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"}
			if got := seen(); res.Complete() != 60 || !slices.Equal(got, want) {
				t.Errorf("%s keep-alive=%v: %d complete, the server saw %v, want %v",
					engine, keep, res.Complete(), got, want)
			}
		}
	}
}
