package client

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/decode"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// decodedSize is the size of the bodies codedResponse codes.
const decodedSize = 10 << 10

// codedResponse is a keep-alive response whose body is decodedSize bytes
// of text coded as enc.
func codedResponse(tb testing.TB, enc string) string {
	body := testsupport.Compress(tb, enc, []byte(strings.Repeat("gb says hello ", decodedSize/14+1)[:decodedSize]))
	return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Encoding: %s\r\nContent-Length: %d\r\n\r\n%s", enc, len(body), body)
}

// compressedConfig returns a keep-alive --compressed client config for addr.
func compressedConfig(addr string) *Config {
	req := h1.Request{Host: addr, Headers: []h1.Header{{Name: "Accept-Encoding", Value: decode.AcceptEncoding}}}
	return &Config{Addr: addr, Request: req.Append(nil), KeepAlive: true,
		Decoding: Decoding{Compressed: true, Accept: decode.All}}
}

func TestZeroAllocationsPerCompressedRequest(t *testing.T) {
	for _, enc := range []string{"gzip", "zstd"} {
		addr := rawServer(t, codedResponse(t, enc))
		forEachEngine(t, func() *Config { return compressedConfig(addr) }, func(t *testing.T, f *Fast) {
			var x load.Exchange
			f.Do(&x) // connect and make the decoder outside the measurement
			allocs := testing.AllocsPerRun(200, func() {
				x = load.Exchange{}
				if o := f.Do(&x); o != stats.OK || x.Decoded != decodedSize {
					t.Fatalf("outcome %v, decoded %d: %v", o, x.Decoded, x.Err)
				}
			})
			if allocs != 0 {
				t.Errorf("%s: %.1f allocations per request, want 0", enc, allocs)
			}
		})
	}
}

// A body that does not decode is failed.decode and the connection stays.
func TestCompressedFailureKeepsConnection(t *testing.T) {
	resp := []byte(codedResponse(t, "gzip"))
	for i := len(resp) - 40; i < len(resp)-20; i++ {
		resp[i] ^= 0x33
	}
	addr := rawServer(t, string(resp))
	forEachEngine(t, func() *Config { return compressedConfig(addr) }, func(t *testing.T, f *Fast) {
		for i := range 5 {
			var x load.Exchange
			o := f.Do(&x)
			opened := 0
			if i == 0 {
				opened = 1
			}
			if o != stats.FailDecode || !decode.IsError(x.Err) || !x.KeepAlive || x.Opened != opened || x.Closed != 0 {
				t.Fatalf("request %d: %v (%v), keep-alive %v, opened %d, closed %d", i, o, x.Err, x.KeepAlive, x.Opened, x.Closed)
			}
		}
	})
}

// BenchmarkKeepAliveCompressedRequest is BenchmarkKeepAliveRequest with a
// 10 KiB body coded as gzip, br or zstd, decoded by the client.
func BenchmarkKeepAliveCompressedRequest(b *testing.B) {
	for _, enc := range []string{"gzip", "br", "zstd"} {
		addr := rawServer(b, codedResponse(b, enc))
		b.Run(enc, func(b *testing.B) {
			f := NewFast(b.Context(), compressedConfig(addr))
			defer f.Close()
			var x load.Exchange
			f.Do(&x)
			b.ReportAllocs()
			for b.Loop() {
				x = load.Exchange{}
				if o := f.Do(&x); o != stats.OK {
					b.Fatalf("outcome %v: %v", o, x.Err)
				}
			}
		})
	}
}

// TestDecodingDeadline: a coded body is decoded under its request's
// deadline, Config.Timeout from the request's start, which the decoder
// asks about between chunks (decode's TestDecodeExpired: it stops with a
// timeout): with the deadline ahead a 32 MiB bomb decodes whole, and
// expired says yes once the deadline is behind the clock (scripted: no
// test here depends on how fast this machine decodes).
func TestDecodingDeadline(t *testing.T) {
	const size = 32 << 20
	body := testsupport.Compress(t, "gzip", make([]byte, size))
	addr := rawServer(t, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
	forEachEngine(t, func() *Config {
		cfg := compressedConfig(addr)
		cfg.Timeout = time.Hour
		return cfg
	}, func(t *testing.T, f *Fast) {
		var x load.Exchange
		if o := f.Do(&x); o != stats.OK || x.Decoded != size {
			t.Fatalf("with the deadline ahead: %v, decoded %d: %v", o, x.Decoded, x.Err)
		}
		if f.due != x.Start.Add(time.Hour) || f.expired() {
			t.Fatalf("decoding deadline %v for a request started at %v under a 1 h timeout", f.due, x.Start)
		}
		f.due = clock.Read() - 1
		if !f.expired() {
			t.Fatal("a deadline behind the clock is not expired")
		}
	})
}
