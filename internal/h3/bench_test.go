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

	"github.com/gb-bench/gb/internal/check"
	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/decode"
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
	benchStreams(b, newConfig(b, s.addr, 8, 30*time.Second, nil))
}

// BenchmarkStreamsChecked is BenchmarkStreams with a status, a header and
// a body check, content decoding and the phase timeouts on: what they add
// per request to BenchmarkStreams' allocs/op (the slots' buffers and
// decoders are reused).
func BenchmarkStreamsChecked(b *testing.B) {
	s := startServer(b, nil, hello)
	cfg := newConfig(b, s.addr, 8, 30*time.Second, nil)
	cs, err := check.ParseAll([]string{"status==200", "header[Content-Type] contains text", "body contains hello"})
	if err != nil {
		b.Fatal(err)
	}
	cc := cfg.Client
	cc.Checks, cc.Decoding = cs, client.Decoding{Compressed: true, Accept: decode.Accepted(decode.AcceptEncoding)}
	cc.FirstByteTimeout, cc.HeaderTimeout, cc.IdleTimeout = 10*time.Second, 10*time.Second, 10*time.Second
	cfg.phased = true
	benchStreams(b, cfg)
}

// benchStreams drives b.N requests through a client of cfg, 8 in flight.
func benchStreams(b *testing.B, cfg *Config) {
	c := New(context.Background(), cfg)
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
