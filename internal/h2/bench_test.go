package h2

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// cannedServer answers the client's requests with prebuilt bytes and no
// frame parsing, so that a benchmark's allocations are the client's: it
// reads the connection's setup (preface, SETTINGS, WINDOW_UPDATE and the
// SETTINGS acknowledgement), then per request exactly the request's
// frames, and writes a HEADERS (:status 200, server, content-length) and a DATA frame
// ("ok", END_STREAM) with the request's stream id. With literal its
// fields are never indexed, as nginx sends them (each one a string the
// decoder would allocate if gb decoded it).
func cannedServer(tb testing.TB, reqLen int, literal bool) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = ln.Close() })
	// The first response adds the server field to the decoder's table;
	// the others refer to it, as a server with a dynamic table does.
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	var canned [2][]byte
	var dataAt [2]int
	for i := range canned {
		block.Reset()
		_ = enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
		_ = enc.WriteField(hpack.HeaderField{Name: "server", Value: "canned", Sensitive: literal})
		_ = enc.WriteField(hpack.HeaderField{Name: "content-length", Value: "2", Sensitive: literal})
		if literal {
			_ = enc.WriteField(hpack.HeaderField{Name: "date", Value: "Wed, 25 Nov 2026 02:10:00 GMT", Sensitive: true})
			_ = enc.WriteField(hpack.HeaderField{Name: "content-type", Value: "text/plain", Sensitive: true})
		}
		var resp bytes.Buffer
		fr := http2.NewFramer(&resp, nil)
		_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block.Bytes(), EndHeaders: true})
		dataAt[i] = resp.Len()
		_ = fr.WriteData(1, true, []byte("ok"))
		canned[i] = resp.Bytes()
	}
	setup := len(http2.ClientPreface) + (9 + 3*6) + (9 + 4) + 9
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				out, at := bytes.Clone(canned[0]), dataAt[0]
				in := make([]byte, max(setup, reqLen))
				if _, err := nc.Write([]byte{0, 0, 0, 4, 0, 0, 0, 0, 0}); err != nil { // empty SETTINGS
					return
				}
				if _, err := io.ReadFull(nc, in[:setup]); err != nil {
					return
				}
				for {
					if _, err := io.ReadFull(nc, in[:reqLen]); err != nil {
						return
					}
					id := binary.BigEndian.Uint32(in[5:9])
					binary.BigEndian.PutUint32(out[5:9], id)
					binary.BigEndian.PutUint32(out[at+5:at+9], id)
					if _, err := nc.Write(out); err != nil {
						return
					}
					out, at = canned[1], dataAt[1]
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func benchConfig(b *testing.B, streams int) *Config {
	cfg := clientConfig(b, "127.0.0.1:1", false, &h1.Request{Target: "/", Host: "bench", UserAgent: "gb/bench"}, streams, 10*time.Second)
	cfg.Client.Addr = cannedServer(b, len(cfg.reqs[0].frames), false)
	return cfg
}

// BenchmarkDo is one request at a time on one connection: the request
// path's cost and allocations (the goal is 0 allocs/op).
func BenchmarkDo(b *testing.B) {
	c := New(context.Background(), benchConfig(b, 1))
	defer c.Close()
	var x load.Exchange
	if o := c.Do(&x); o != stats.OK {
		b.Fatalf("warm-up request: %v %v", o, x.Err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		x = load.Exchange{}
		if o := c.Do(&x); o != stats.OK {
			b.Fatalf("%v %v", o, x.Err)
		}
	}
}

// BenchmarkStreams10 keeps 10 streams in flight on one connection, as the
// streaming worker does.
func BenchmarkStreams10(b *testing.B) {
	c := New(context.Background(), benchConfig(b, 10))
	defer c.Close()
	xs := make([]load.Exchange, 10)
	if o := c.Do(&xs[0]); o != stats.OK {
		b.Fatalf("warm-up request: %v %v", o, xs[0].Err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	sent, inflight := 0, 0
	next := 0
	for sent < b.N || inflight > 0 {
		for sent < b.N && inflight < 10 {
			x := &xs[next%10]
			next++
			*x = load.Exchange{}
			if o, done := c.Start(x); done {
				b.Fatalf("%v %v", o, x.Err)
			}
			sent++
			inflight++
		}
		x, o := c.Next(time.Time{})
		if o != stats.OK {
			b.Fatalf("%v %v", o, x.Err)
		}
		inflight--
	}
}

// TestRequestPathAllocatesNothing: in steady state a request costs no
// allocation, one stream or ten in flight, whether the server indexes its
// fields (Go's) or not (nginx's); every response carries the Server
// field of the connection's first.
func TestRequestPathAllocatesNothing(t *testing.T) {
	for _, literal := range []bool{false, true} {
		for _, streams := range []int{1, 10} {
			cfg := clientConfig(t, "127.0.0.1:1", false, &h1.Request{Target: "/", Host: "a", UserAgent: "gb/test"}, streams, 10*time.Second)
			cfg.Client.Addr = cannedServer(t, len(cfg.reqs[0].frames), literal)
			c := New(context.Background(), cfg)
			xs := make([]load.Exchange, streams)
			round := func() {
				for i := range xs {
					xs[i] = load.Exchange{}
					if o, done := c.Start(&xs[i]); done {
						t.Fatalf("%v %v", o, xs[i].Err)
					}
				}
				for range xs {
					if x, o := c.Next(time.Time{}); o != stats.OK || string(x.Server) != "canned" || x.Body != 2 {
						t.Fatalf("%v %v: server %q, body %d", o, x.Err, x.Server, x.Body)
					}
				}
			}
			round()
			if n := testing.AllocsPerRun(200, round); n != 0 {
				t.Errorf("literal=%v streams=%d: %.1f allocations per round of %d requests", literal, streams, n, streams)
			}
			c.Close()
		}
	}
}
