package client

import (
	"context"
	"testing"

	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// benchResponse is what rawServer answers: a small body, as nginx's 6-byte
// file or a "hello" handler, so the benchmark measures the client's
// per-request cost (write, read, parse, timestamps) rather than copying.
const benchResponse = "HTTP/1.1 200 OK\r\nServer: raw\r\nContent-Length: 13\r\n\r\nHello, World!"

// newBenchFast returns a connected keep-alive client for addr. It reports
// failure with Errorf, so RunParallel's goroutines may call it.
func newBenchFast(b *testing.B, addr string) *Fast {
	req := h1.Request{Host: addr}
	f := NewFast(context.Background(), &Config{Addr: addr, Request: req.Append(nil), KeepAlive: true})
	var x load.Exchange
	if o := f.Do(&x); o != stats.OK { // connect outside the measurement
		b.Errorf("first request: %v: %v", o, x.Err)
		f.Close()
		return nil
	}
	return f
}

// BenchmarkKeepAliveRequest is one request on a kept-alive connection
// against an in-process server that allocates nothing per request. Its
// allocs/op must stay 0; its ns/op includes the server's share of the
// loopback round trip.
func BenchmarkKeepAliveRequest(b *testing.B) {
	addr := rawServer(b, benchResponse)
	f := newBenchFast(b, addr)
	if f == nil {
		return
	}
	defer f.Close()
	var x load.Exchange
	b.ReportAllocs()
	for b.Loop() {
		x = load.Exchange{}
		if o := f.Do(&x); o != stats.OK {
			b.Fatalf("outcome %v: %v", o, x.Err)
		}
	}
}

// BenchmarkKeepAliveRequestParallel runs GOMAXPROCS (times -cpu) workers,
// each with its own kept-alive connection, as gb's engine does.
func BenchmarkKeepAliveRequestParallel(b *testing.B) {
	addr := rawServer(b, benchResponse)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		f := newBenchFast(b, addr)
		if f == nil {
			return
		}
		defer f.Close()
		var x load.Exchange
		for pb.Next() {
			x = load.Exchange{}
			if o := f.Do(&x); o != stats.OK {
				b.Errorf("outcome %v: %v", o, x.Err)
				return
			}
		}
	})
}
