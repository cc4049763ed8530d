package h3

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
	"github.com/quic-go/quic-go/http3"
)

// BenchmarkStreams is one worker's requests with 8 streams in flight on
// one connection to a quic-go server in the same process: allocs/op and
// B/op are per request, the server's included (compare
// BenchmarkTransport, quic-go's own client doing the same).
func BenchmarkStreams(b *testing.B) {
	s := startServer(b, nil, hello)
	c := New(context.Background(), newConfig(b, s.addr, 8, 30*time.Second, nil))
	xs := make([]load.Exchange, 8)
	free := make([]*load.Exchange, 0, 8)
	for i := range xs {
		free = append(free, &xs[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	sent, inflight := 0, 0
	for sent < b.N || inflight > 0 {
		for sent < b.N && len(free) > 0 {
			x := free[len(free)-1]
			free = free[:len(free)-1]
			*x = load.Exchange{}
			sent++
			if _, done := c.Start(x); done {
				b.Fatal(x.Err)
			}
			inflight++
		}
		x, o := c.Next(time.Time{})
		if o != stats.OK {
			b.Fatal(o, x.Err)
		}
		inflight--
		free = append(free, x)
	}
	b.StopTimer()
	c.Close()
}

// BenchmarkTransport is BenchmarkStreams done by quic-go's own client
// (http3.Transport, net/http's RoundTripper): 8 goroutines, one
// connection, each body read to its end.
func BenchmarkTransport(b *testing.B) {
	s := startServer(b, nil, hello)
	_, pool := testCert(b)
	tr := &http3.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DisableCompression: true}
	defer tr.Close()
	cl := &http.Client{Transport: tr}
	url := "https://" + s.addr + "/"
	var left atomic.Int64
	left.Store(int64(b.N))
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				res, err := cl.Get(url)
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		})
	}
	wg.Wait()
}
