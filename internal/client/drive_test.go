//go:build linux

package client

import (
	"bytes"
	"net"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// splitServer answers every request with response; every third answer
// comes in two writes a millisecond apart, so a reader meets half of it.
func splitServer(t *testing.T, response string) string {
	resp := []byte(response)
	return testsupport.Serve(t, func(c net.Conn) {
		buf := make([]byte, 4096)
		n, answered := 0, 0
		for {
			k, err := c.Read(buf[n:])
			if err != nil {
				return
			}
			n += k
			for i := bytes.Index(buf[:n], []byte("\r\n\r\n")); i >= 0; i = bytes.Index(buf[:n], []byte("\r\n\r\n")) {
				n = copy(buf, buf[i+4:n])
				half := len(resp)
				if answered++; answered%3 == 0 {
					half = len(resp) / 2
				}
				_, _ = c.Write(resp[:half])
				if half < len(resp) {
					time.Sleep(time.Millisecond)
					_, _ = c.Write(resp[half:])
				}
			}
		}
	})
}

// driver runs exchanges on f's open connection the way a worker hands them
// to its loop (load's sendNext and step), calling check on each.
type driver struct {
	f        *Fast
	x        load.Exchange
	check    func(x *load.Exchange, o stats.Outcome)
	n, ran   int  // exchanges to run, and run so far
	finished bool // x ended on the loop
	partial  int  // Receive calls that found part of a response
	pieces   int  // of those, the ones for the exchange in flight
	stepFn   func() bool
}

func newDriver(f *Fast, check func(x *load.Exchange, o stats.Outcome)) *driver {
	d := &driver{f: f, check: check}
	d.stepFn = d.step
	return d
}

// run runs n exchanges and returns how many times the task came back
// (Park returned) meanwhile.
func (d *driver) run(n int) (parks int) {
	d.n, d.ran = n, 0
	for d.ran < d.n {
		d.x, d.pieces = load.Exchange{}, 0
		d.finished = false
		if d.f.Send(&d.x) {
			d.f.Park(d.stepFn)
			parks++
		}
		if !d.finished {
			d.check(&d.x, d.f.Finish(&d.x))
			d.ran++
		}
	}
	return parks
}

// step is the loop's handler (load's worker.step).
func (d *driver) step() bool {
	o, got := d.f.Receive(&d.x)
	switch got {
	case load.GotSome:
		d.partial++
		d.pieces++
		return true
	case load.GotStuck:
		return false
	}
	d.finished = true
	d.check(&d.x, o)
	if d.ran++; d.ran == d.n || !d.x.KeepAlive {
		return false
	}
	d.x, d.finished, d.pieces = load.Exchange{}, false, 0
	return d.f.Send(&d.x)
}

// keepAliveConfig is a keep-alive GET of addr.
func keepAliveConfig(addr string) *Config {
	req := h1.Request{Host: addr}
	return &Config{Addr: addr, Request: req.Append(nil), KeepAlive: true}
}

// TestDrivenExchangesMatchDo: exchanges run on the loop's stack record what
// Do records for the same response (status, body, bytes both ways, the
// Server header, keep-alive), with their times in order, whether the
// response came whole or in two parts; and the task comes back once, at
// the end, not per request. A response read whole ends when that read
// returned, which is also its first byte's time: gb's parsing is not the
// server's time.
func TestDrivenExchangesMatchDo(t *testing.T) {
	onLoop(t, keepAliveConfig(splitServer(t, benchResponse)), func(f *Fast) {
		var first load.Exchange
		if o := f.Do(&first); o != stats.OK {
			t.Fatalf("Do: %v (%v)", o, first.Err)
		}
		const n = 300
		var d *driver
		d = newDriver(f, func(x *load.Exchange, o stats.Outcome) {
			if o != stats.OK || x.Status != 200 || x.Body != first.Body || x.BytesIn != first.BytesIn ||
				x.BytesOut != first.BytesOut || !x.KeepAlive || string(x.Server) != "raw" || x.Opened != 0 {
				t.Fatalf("driven exchange: %v %+v\nDo's: %+v", o, x, first)
			}
			if x.Connected != x.Start || x.Written.Before(x.Start) || x.FirstByte.Before(x.Written) || x.Done.Before(x.FirstByte) {
				t.Fatalf("times out of order: start %v written %v first byte %v done %v", x.Start, x.Written, x.FirstByte, x.Done)
			}
			if d.pieces == 0 && d.finished && x.Done != x.FirstByte {
				t.Fatalf("a response read whole ended %v after its first byte, want 0", x.Done.Sub(x.FirstByte))
			}
		})
		parks := d.run(n)
		if d.ran != n {
			t.Errorf("%d exchanges, want %d", d.ran, n)
		}
		if parks != 1 || d.partial == 0 {
			t.Errorf("the task came back %d times for %d exchanges (want once, at the end); %d partial reads (want some)",
				parks, n, d.partial)
		}
	})
}

// TestDrivenStaleConnectionRetried: the server closes the kept-alive
// connection after each response; the driven exchange meets the close on
// the loop, gives the exchange back, and Finish retries it on a new
// connection, as Do does.
func TestDrivenStaleConnectionRetried(t *testing.T) {
	addr := staleServer(t)
	req := h1.Request{Host: addr}
	cfg := &Config{Addr: addr, Request: req.Append(nil), KeepAlive: true, Idempotent: true}
	onLoop(t, cfg, func(f *Fast) {
		var first load.Exchange
		if o := f.Do(&first); o != stats.OK {
			t.Fatalf("Do: %v", o)
		}
		time.Sleep(50 * time.Millisecond) // the server's FIN arrives
		newDriver(f, func(x *load.Exchange, o stats.Outcome) {
			if o != stats.OK || !x.Retried || x.Opened != 1 {
				t.Errorf("outcome %v retried %v opened %d (%v), want ok on a new connection", o, x.Retried, x.Opened, x.Err)
			}
		}).run(1)
	})
}

// TestZeroAllocationsPerDrivenRequest: Send, Park and Receive allocate
// nothing per request.
func TestZeroAllocationsPerDrivenRequest(t *testing.T) {
	onLoop(t, keepAliveConfig(rawServer(t, benchResponse)), func(f *Fast) {
		var x load.Exchange
		f.Do(&x)
		d := newDriver(f, func(x *load.Exchange, o stats.Outcome) {
			if o != stats.OK {
				t.Fatalf("outcome %v: %v", o, x.Err)
			}
		})
		d.run(10) // the loop's first buffers
		if allocs := testing.AllocsPerRun(20, func() { d.run(10) }); allocs != 0 {
			t.Errorf("%.1f allocations per 10 driven requests, want 0", allocs)
		}
	})
}
