//go:build linux

// Command floor measures the cheapest a keep-alive HTTP/1.1 client can be
// on this machine: c connections, one request written and one response read
// per turn, no parsing beyond the first response's size, no timing, no
// statistics. It answers "how much of a client's CPU per request is the
// kernel's?" for bench/RESULTS.md, over epoll (one read and one write per
// response, as gb's event loop) or io_uring (send and recv submitted in
// batches, one io_uring_enter per turn of the loop). With -reconnect each
// request has a connection of its own (Connection: close, as ab without
// -k): connect, write, read, close, over epoll. With -measure the epoll
// loop also times, parses and records every response with gb's own parser
// and recorder, called from the loop (no coroutines): the cheapest a client
// that measures every request can be.
//
//	go run ./bench/cmd/floor -engine epoll -c 50 -n 200000 http://127.0.0.1:8080/6b
//	go run ./bench/cmd/floor -reconnect -c 20 -n 20000 http://127.0.0.1:8080/6b
//	go run ./bench/cmd/floor -c 5000 -d 5s http://127.0.0.1:8080/6b
//	go run ./bench/cmd/floor -measure -c 1000 -n 200000 http://127.0.0.1:8080/6b
//
// The target must answer every request with the same number of bytes (a
// static file: nginx, gb serve's /bytes/N). It prints ab's Complete,
// Failed and Requests per second lines, so bench/cmd/benchrun reads it as
// it reads ab. Linux only; loopback only.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/netip"
	"net/url"
	"os"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

// run parses args, runs the load and writes the report to stdout.
func run(args []string, stdout io.Writer) error {
	flag := flag.NewFlagSet("floor", flag.ContinueOnError)
	conns := flag.Int("c", 50, "connections")
	n := flag.Int("n", 100000, "requests")
	engine := flag.String("engine", "epoll", "epoll or uring")
	depth := flag.Int("pipeline", 1, "requests sent at once on each connection (HTTP/1.1 pipelining)")
	reconnect := flag.Bool("reconnect", false, "a new connection per request (Connection: close; epoll only)")
	dur := flag.Duration("d", 0, "send requests for this long, then finish those in flight (-n is ignored)")
	measure := flag.Bool("measure", false, "time, parse and record every response with gb's parser and recorder, as an engine without coroutines would (epoll only)")
	if err := flag.Parse(args); err != nil {
		return err
	}
	if *dur > 0 {
		*n = math.MaxInt
	}
	if flag.NArg() != 1 {
		return errors.New("usage: floor [-engine epoll|uring] [-c conns] [-n requests] http://127.x.x.x:port/path")
	}
	u, err := url.Parse(flag.Arg(0))
	if err != nil || u.Scheme != "http" {
		return fmt.Errorf("%q: want an http:// URL", flag.Arg(0))
	}
	ap, err := netip.ParseAddrPort(u.Host)
	if err != nil || !ap.Addr().Is4() || !ap.Addr().IsLoopback() {
		return fmt.Errorf("%q: want a 127.0.0.0/8 IP and a port", u.Host)
	}
	if *conns < 1 || *n < *conns || *depth < 1 {
		return errors.New("want -c >= 1, -n >= -c and -pipeline >= 1")
	}
	if *engine != "epoll" && *engine != "uring" {
		return fmt.Errorf("-engine %q: want epoll or uring", *engine)
	}
	if *reconnect && (*engine != "epoll" || *depth != 1 || *dur > 0) {
		return errors.New("-reconnect runs over epoll, without -pipeline and -d")
	}
	if *measure && (*engine != "epoll" || *depth != 1 || *reconnect) {
		return errors.New("-measure runs over epoll, without -pipeline and -reconnect")
	}
	head := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: floor\r\nAccept: */*\r\n"
	if *reconnect {
		head += "Connection: close\r\n"
	}
	req := []byte(head + "\r\n")
	size, err := responseSize(ap, req)
	if err != nil {
		return err
	}
	c := &client{req: req, batch: bytes.Repeat(req, *depth), depth: *depth, size: size, n: *n,
		have: make([]int, *conns), inflight: make([]int, *conns)}
	if *measure {
		c.meter = newMeter(*conns, 16<<10)
	}
	start := time.Now()
	if *dur > 0 {
		c.deadline = start.Add(*dur)
	}
	if err := c.run(ap, *engine, *reconnect); err != nil {
		return err
	}
	took := time.Since(start)
	_, err = fmt.Fprintf(stdout, "Response size:          %d bytes\nComplete requests:      %d\nFailed requests:        0\n"+
		"Requests per second:    %.2f [#/sec] (mean)\n", size, c.done, float64(c.done)/took.Seconds())
	if err == nil && c.meter != nil {
		err = c.meter.report(stdout)
	}
	return err
}

// run opens the connections (all at once, or one per request with
// reconnect) and drives them until every request is answered.
func (c *client) run(ap netip.AddrPort, engine string, reconnect bool) (err error) {
	if reconnect {
		c.fds = make([]int, len(c.have))
		for i := range c.fds {
			c.fds[i] = -1
		}
		defer func() { closeAll(c.fds) }()
		return c.reconnect(ap)
	}
	if c.fds, err = dialAll(ap, len(c.have)); err != nil {
		return err
	}
	defer closeAll(c.fds)
	if engine == "uring" {
		return c.uring()
	}
	if c.meter != nil {
		return c.epollMeasured(c.meter)
	}
	return c.epoll()
}

// client is the run's state: every connection has a batch of depth
// requests in flight until n have been sent.
type client struct {
	req      []byte
	batch    []byte // depth copies of req
	depth    int
	size     int   // bytes of one response, headers included
	fds      []int // one non-blocking socket per connection
	n        int   // requests to send
	sent     int
	done     int
	have     []int // per connection: bytes of the current response read so far
	inflight []int // per connection: requests sent and not yet answered

	deadline time.Time // -d: no request is sent after it; zero: none
	meter    *meter    // -measure; nil = none
}

// expire ends a -d run once its deadline has passed: nothing more is
// sent, and the loop ends when what is in flight has been answered.
func (c *client) expire() {
	if !c.deadline.IsZero() && c.n > c.sent && time.Now().After(c.deadline) {
		c.n = c.sent
	}
}

// next returns the bytes of connection i's next batch (nil when every
// request has been sent) and counts them as in flight.
func (c *client) next(i int) []byte {
	k := min(c.depth, c.n-c.sent)
	c.sent += k
	c.inflight[i] = k
	return c.batch[:k*len(c.req)]
}

// received counts k bytes read on connection i and reports whether they
// completed its batch, so the next one is due.
func (c *client) received(i, k int) bool {
	c.have[i] += k
	r := c.have[i] / c.size
	c.have[i] %= c.size
	c.done += r
	c.inflight[i] -= r
	return c.inflight[i] == 0
}
