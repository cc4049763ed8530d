package probe

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// headerLine is a response whose one extra header line is n bytes long,
// its CRLF included.
func headerLine(n int) string {
	return status + "X-Long: " + strings.Repeat("v", n-len("X-Long: \r\n")) + "\r\nContent-Length: 2\r\n\r\nok"
}

// TestLongHeaderLineWhateverConcurrency: the longest header line gb
// accepts is h1.MaxLine whatever the per-connection buffer, which gb sizes
// by -c (16 KiB up to -c 4096, 5592 bytes at -c 12000, never below 4 KiB):
// a 6000-byte line and a line of exactly MaxLine pass with each, a line
// one byte longer fails as failed.protocol with a reason that names the
// limit.
func TestLongHeaderLineWhateverConcurrency(t *testing.T) {
	buffers := map[string]int{"-c 12000": (64 << 20) / 12000, "-c 8000": (64 << 20) / 8000, "4 KiB": 4 << 10, "16 KiB": 16 << 10}
	lines := []struct {
		name string
		size int
		want stats.Outcome
	}{
		{"6000 bytes", 6000, stats.OK},
		{"MaxLine", h1.MaxLine, stats.OK},
		{"MaxLine+1", h1.MaxLine + 1, stats.FailProtocol},
	}
	forEachEngine(t, func(t *testing.T, e engine) {
		for bname, size := range buffers {
			for _, l := range lines {
				t.Run(bname+"/"+l.name, func(t *testing.T) {
					resp := headerLine(l.size)
					srv, err := Start(func(c *Conn) { c.Serve(resp) })
					if err != nil {
						t.Fatal(err)
					}
					defer srv.Close()
					req := h1.Request{Host: srv.Addr(), UserAgent: "gb-probe"}
					cc := &client.Config{Addr: srv.Addr(), Request: req.Append(nil), KeepAlive: true,
						Idempotent: true, Timeout: 30 * time.Second, BufferSize: size}
					res := run(t, context.Background(), cc, e.apply(load.Config{Concurrency: 2, Requests: 6, Duration: time.Minute}))
					if _, err := srv.Settle(time.Minute); err != nil {
						t.Fatal(err)
					}
					if got := res.Counts.Outcomes[l.want]; got != 6 {
						t.Fatalf("%d of 6 requests %v; outcomes %v, errors %v", got, l.want, res.Counts.Outcomes, res.Counts.Errors)
					}
					if l.want == stats.FailProtocol {
						for msg := range res.Counts.Errors {
							if !strings.Contains(msg, "longer than 16 KiB") {
								t.Errorf("error %q does not name the limit", msg)
							}
						}
					}
				})
			}
		}
	})
}

// TestAcceptThenReset: a server that accepts each connection and resets
// it at once. The connection was established, so no request is
// failed.connect, on any engine, with keep-alive or without: the reset
// reaches gb inside the dial, the write or the read, by timing, and is
// failed.reset (failed.write when it breaks the request's write). The
// run is not stopped as if nothing could connect.
func TestAcceptThenReset(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		for _, ka := range []bool{true, false} {
			srv, err := Start(func(c *Conn) { c.Reset() })
			if err != nil {
				t.Fatal(err)
			}
			req := h1.Request{Host: srv.Addr(), UserAgent: "gb-probe"}
			cc := &client.Config{Addr: srv.Addr(), Request: req.Append(nil), KeepAlive: ka, Idempotent: true,
				Timeout: 30 * time.Second}
			res := run(t, context.Background(), cc, e.apply(load.Config{Concurrency: 2, Requests: 40, Duration: time.Minute}))
			srv.Close()
			o := res.Counts.Outcomes
			if o[stats.FailReset]+o[stats.FailWrite] != 40 || res.StoppedBy != stats.StopCount {
				t.Errorf("keep-alive %v: outcomes %v (stopped by %s %q); want all 40 failed.reset or failed.write",
					ka, o, res.StoppedBy, res.StopError)
			}
			if errs := res.Check(); len(errs) > 0 {
				t.Errorf("invariants: %v", errs)
			}
		}
	})
}
