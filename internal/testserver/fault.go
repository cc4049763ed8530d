package testserver

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Timeouts of the fault listener's connections. None of them decides a
// test: they only keep an idle or silent client from holding a goroutine
// forever.
const (
	headTimeout   = 30 * time.Second // to read a request head once its first byte arrived
	idleTimeout   = 2 * time.Minute  // to wait for the next request
	lingerTimeout = time.Second      // after a FIN, to drain what the client still sends
	drainTimeout  = time.Second      // before an RST, to let written bytes reach the client
)

// faultConn is one connection of the fault listener. It is owned by the
// goroutine that serves it.
type faultConn struct {
	s    *Server
	c    *conn
	br   *bufio.Reader
	seq  int           // exchanges read so far
	idle time.Duration // set by /idle-close: close after this long without a request
}

// acceptFault accepts fault-listener connections until Close.
func (s *Server) acceptFault() {
	defer s.wg.Done()
	for {
		nc, err := s.faultLn.Accept()
		if errors.Is(err, net.ErrClosed) || s.closing() {
			if nc != nil {
				nc.Close()
			}
			return
		}
		if err != nil { // EMFILE and the like: back off, do not spin
			if !sleep(10*time.Millisecond, nil, s.done) {
				return
			}
			continue
		}
		s.wg.Add(1)
		go s.serveFault(nc.(*conn))
	}
}

// serveFault runs the keep-alive loop of one connection.
func (s *Server) serveFault(c *conn) {
	defer s.wg.Done()
	defer c.Close()
	fc := &faultConn{s: s, c: c, br: bufio.NewReaderSize(c, maxLine)}
	for fc.next() {
	}
}

// next reads and serves one exchange; it reports whether the connection
// stays open for another.
func (fc *faultConn) next() bool {
	if !fc.await() {
		return false
	}
	fc.c.SetReadDeadline(time.Now().Add(headTimeout))
	req, err := readRequest(fc.br)
	fc.c.SetReadDeadline(time.Time{})
	if err != nil {
		var re *requestError
		if errors.As(err, &re) {
			fc.reject(re)
		}
		return false
	}
	fc.seq++
	fc.c.requests.Add(1)
	return fc.exchange(req)
}

// await waits for the first byte of the next request, at most the idle
// timeout (or the /idle-close time).
func (fc *faultConn) await() bool {
	d := idleTimeout
	if fc.idle > 0 {
		d = fc.idle
	}
	fc.c.SetReadDeadline(time.Now().Add(d))
	_, err := fc.br.Peek(1)
	return err == nil
}

// reject answers a request the reader refused, then closes with FIN.
func (fc *faultConn) reject(re *requestError) {
	msg := re.msg + "\n"
	fmt.Fprintf(fc.c, "HTTP/1.1 %d %s\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s",
		re.code, http.StatusText(re.code), len(msg), msg)
	fc.fin()
}

// fin closes the connection with FIN: it shuts down the write side, then
// drains what the client still sends for a while, so that unread input
// does not turn the close into an RST.
func (fc *faultConn) fin() {
	if tc, ok := fc.c.Conn.(*net.TCPConn); ok {
		tc.CloseWrite()
		fc.c.SetReadDeadline(time.Now().Add(lingerTimeout))
		io.Copy(io.Discard, io.LimitReader(fc.br, maxRequestBody))
	}
	fc.c.Close()
}

// rst aborts the connection with RST (SO_LINGER 0), after waiting (at most
// drainTimeout) for the bytes already written to leave the send buffer, so
// the client receives them before the reset.
func (fc *faultConn) rst() {
	if tc, ok := fc.c.Conn.(*net.TCPConn); ok {
		for deadline := time.Now().Add(drainTimeout); unsent(tc) > 0 && time.Now().Before(deadline); {
			if !sleep(time.Millisecond, nil, fc.s.done) {
				break
			}
		}
		tc.SetLinger(0)
	}
	fc.c.Close()
}
