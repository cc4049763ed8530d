// Package probe is gb's permanent adversarial suite: Server is a scripted
// hostile HTTP/1.1 server (each Script breaks the protocol the way a
// broken or malicious server does), and the package's tests drive gb's
// engine (internal/load with internal/client) against every script on
// both engines, asserting that gb does not crash, ends within its own
// timeouts, stays within a memory bound, and counts what the server
// counts. Nothing in a product binary imports it.
package probe

import (
	"bufio"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Script plays the server's side of one connection. The connection is
// closed when it returns.
type Script func(c *Conn)

// Server accepts connections on a free loopback port and runs its Script
// on each, counting the requests the scripts read.
type Server struct {
	ln     net.Listener
	script Script
	accept int          // connections to accept; 0 = all
	reads  atomic.Int64 // requests read, on every connection
	active atomic.Int64 // connections whose script has not returned
}

// Start listens on 127.0.0.1 and serves script until Close.
func Start(script Script) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, script: script}
	go s.serve()
	return s, nil
}

func (s *Server) serve() {
	for n := 1; s.accept == 0 || n <= s.accept; n++ {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.active.Add(1)
		go func() {
			defer s.active.Add(-1)
			defer nc.Close()
			s.script(&Conn{Conn: nc, br: bufio.NewReaderSize(nc, 4<<10), s: s})
		}()
	}
}

// Reads returns the number of requests read so far.
func (s *Server) Reads() int64 { return s.reads.Load() }

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops accepting; scripts still running end when their client
// closes.
func (s *Server) Close() error { return s.ln.Close() }

// Settle waits until every connection's script has returned (the client
// closed them all) and returns the number of requests read; it fails if
// some are still open after wait.
func (s *Server) Settle(wait time.Duration) (int64, error) {
	for deadline := time.Now().Add(wait); s.active.Load() > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			return s.reads.Load(), errors.New("probe: " + strconv.FormatInt(s.active.Load(), 10) + " connections still open")
		}
	}
	return s.reads.Load(), nil
}

// Conn is one connection as a Script sees it.
type Conn struct {
	net.Conn
	br *bufio.Reader
	s  *Server
	N  int // requests read on this connection so far
}

// ReadRequest reads one request (its header section and a Content-Length
// body) and counts it; false at EOF or on an error.
func (c *Conn) ReadRequest() bool {
	length := 0
	for {
		line, err := c.br.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			_, err = c.br.ReadSlice('\n') // a long header line
		}
		if err != nil {
			return false
		}
		s := strings.TrimSpace(string(line))
		if s == "" {
			break
		}
		if name, v, ok := strings.Cut(s, ":"); ok && strings.EqualFold(name, "content-length") {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if _, err := c.br.Discard(length); err != nil {
		return false
	}
	c.N++
	c.s.reads.Add(1)
	return true
}

// Send writes each part in turn; false once a write fails.
func (c *Conn) Send(parts ...string) bool {
	for _, p := range parts {
		if _, err := c.Write([]byte(p)); err != nil {
			return false
		}
	}
	return true
}

// Drip writes s one byte at a time, every apart; false once a write fails.
func (c *Conn) Drip(s string, every time.Duration) bool {
	for i := range len(s) {
		if !c.Send(s[i : i+1]) {
			return false
		}
		time.Sleep(every)
	}
	return true
}

// Repeat writes p over and over until n bytes are written (n < 0: until
// a write fails); false once a write fails.
func (c *Conn) Repeat(p []byte, n int64) bool {
	for n < 0 || n > 0 {
		k := int64(len(p))
		if n > 0 {
			k = min(k, n)
			n -= k
		}
		if _, err := c.Write(p[:k]); err != nil {
			return false
		}
	}
	return true
}

// Reset closes the connection with a TCP RST instead of a FIN.
func (c *Conn) Reset() {
	if tc, ok := c.Conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

// Hold reads and counts requests without answering them until the client
// closes the connection.
func (c *Conn) Hold() {
	for c.ReadRequest() {
	}
}

// Serve answers every request with response until the client closes.
func (c *Conn) Serve(response string) {
	for c.ReadRequest() && c.Send(response) {
	}
}
