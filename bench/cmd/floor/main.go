// Command floor measures the cheapest a keep-alive HTTP/1.1 client can be
// on this machine: c connections, one request written and one response read
// per turn, no parsing beyond the first response's size, no timing, no
// statistics. It answers "how much of a client's CPU per request is the
// kernel's?" for bench/RESULTS.md, over epoll (one read and one write per
// response, as gb's event loop) or io_uring (send and recv submitted in
// batches, one io_uring_enter per turn of the loop).
//
//	go run ./bench/cmd/floor -engine epoll -c 50 -n 200000 http://127.0.0.1:8080/6b
//
// The target must answer every request with the same number of bytes (a
// static file: nginx, gb serve's /bytes/N). It prints ab's Complete,
// Failed and Requests per second lines, so bench/cmd/benchrun reads it as
// it reads ab. Linux only; loopback only.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
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
	if err := flag.Parse(args); err != nil {
		return err
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
	if *conns < 1 || *n < *conns {
		return errors.New("want -c >= 1 and -n >= -c")
	}
	req := []byte("GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: floor\r\nAccept: */*\r\n\r\n")
	size, err := responseSize(ap, req)
	if err != nil {
		return err
	}
	fds, err := dialAll(ap, *conns)
	if err != nil {
		return err
	}
	defer closeAll(fds)
	c := &client{req: req, size: size, fds: fds, n: *n}
	start := time.Now()
	switch *engine {
	case "epoll":
		err = c.epoll()
	case "uring":
		err = c.uring()
	default:
		err = fmt.Errorf("-engine %q: want epoll or uring", *engine)
	}
	if err != nil {
		return err
	}
	took := time.Since(start)
	_, err = fmt.Fprintf(stdout, "Response size:          %d bytes\nComplete requests:      %d\nFailed requests:        0\n"+
		"Requests per second:    %.2f [#/sec] (mean)\n", size, c.done, float64(c.done)/took.Seconds())
	return err
}

// client is the run's state: every connection has a request in flight
// until n have been sent.
type client struct {
	req  []byte
	size int   // bytes of one response, headers included
	fds  []int // one non-blocking socket per connection
	n    int   // requests to send
	sent int
	done int
	have []int // per connection: bytes of the current response read so far
}

// consume counts k bytes read on connection i and reports how many
// responses they completed.
func (c *client) consume(i, k int) int {
	c.have[i] += k
	r := c.have[i] / c.size
	c.have[i] %= c.size
	return r
}
