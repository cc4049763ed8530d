package fault

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/gb-bench/gb/internal/testserver/shape"
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
	c    net.Conn
	tcp  *net.TCPConn // under c; nil if there is none (then FIN and RST are plain closes)
	id   uint64       // Exchange.Conn
	br   *bufio.Reader
	seq  int           // exchanges read so far
	idle time.Duration // set by /idle-close: close after this long without a request
}

// accept accepts connections until Close.
func (s *Server) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if errors.Is(err, net.ErrClosed) || s.closing() {
			if nc != nil {
				nc.Close()
			}
			return
		}
		if err != nil { // EMFILE and the like: back off, do not spin
			if !shape.Sleep(10*time.Millisecond, nil, s.done) {
				return
			}
			continue
		}
		if !s.track(nc) {
			return
		}
		s.wg.Add(1)
		go s.serve(nc)
	}
}

// serve runs the keep-alive loop of one connection.
func (s *Server) serve(c net.Conn) {
	defer s.wg.Done()
	defer s.untrack(c)
	defer c.Close()
	fc := &faultConn{s: s, c: c, tcp: tcpOf(c), br: bufio.NewReaderSize(c, maxLine)}
	if cn, ok := c.(Counter); ok {
		fc.id = cn.ConnID()
	} else {
		fc.id = s.ids.Add(1)
	}
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
	if cn, ok := fc.c.(Counter); ok {
		cn.CountRequest()
	}
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
	if tc := fc.tcp; tc != nil {
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
	if tc := fc.tcp; tc != nil {
		for deadline := time.Now().Add(drainTimeout); unsent(tc) > 0 && time.Now().Before(deadline); {
			if !shape.Sleep(time.Millisecond, nil, fc.s.done) {
				break
			}
		}
		tc.SetLinger(0)
	}
	fc.c.Close()
}
