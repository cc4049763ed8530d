package fault

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gb-bench/gb/internal/testserver/shape"
)

// closeWait bounds how long Close waits for connection goroutines to
// return after it has closed every connection.
const closeWait = 60 * time.Second

// maxRequestBody caps the request body bytes an exchange reads and
// discards.
const maxRequestBody = 1 << 30

// Options configure a Server. The zero value is ready: arrival times count
// from Serve, seeded lists use the server's own generators, nothing
// stalls.
type Options struct {
	// Origin is the time Exchange.Arrival counts from; zero means the time
	// Serve was called.
	Origin time.Time
	// Dice draws the weighted lists (status=, delay=, size=, kind=random);
	// nil gives the server generators of its own. Share one with another
	// listener so that one seed= gives one sequence across both.
	Dice *shape.Dice
	// Gate, if set, is waited on before every response (a server-wide
	// stall); nil never waits.
	Gate Gate
}

// Gate holds responses back: Wait blocks until responses may go on and
// reports true, or returns false once gone or done is closed (nil channels
// never are).
type Gate interface {
	Wait(gone, done <-chan struct{}) bool
}

// Counter is what the server asks of an accepted connection that a ledger
// counts, such as testserver's: ConnID, unique per ledger and from 1,
// names it in Exchange.Conn; CountRequest is called once for every request
// read in full. Connections without these methods get ids from the
// server. A connection may also offer NetConn() net.Conn (as *tls.Conn
// does) for the *net.TCPConn under it, which FIN and RST need.
type Counter interface {
	ConnID() uint64
	CountRequest()
}

// Server is a running fault listener. Its methods are safe for concurrent
// use.
type Server struct {
	ln     net.Listener
	origin time.Time
	dice   *shape.Dice
	gate   Gate
	done   chan struct{} // closed by Close; ends stalls, delays and holds
	book   book
	ids    atomic.Uint64 // ids of connections that are not Counters

	wg    sync.WaitGroup // the accept loop and the connection goroutines
	mu    sync.Mutex
	conns map[net.Conn]struct{} // open connections; guarded by mu
	shut  bool                  // Close was called; guarded by mu

	closeOnce sync.Once
	closeErr  error
}

// Serve serves the fault endpoints on ln until Close, which also closes
// ln. It returns at once.
func Serve(ln net.Listener, o Options) *Server {
	s := &Server{ln: ln, origin: o.Origin, dice: o.Dice, gate: o.Gate,
		done: make(chan struct{}), conns: make(map[net.Conn]struct{})}
	if s.origin.IsZero() {
		s.origin = time.Now()
	}
	if s.dice == nil {
		s.dice = new(shape.Dice)
	}
	if s.gate == nil {
		s.gate = open{}
	}
	s.wg.Add(1)
	go s.accept()
	return s
}

// open is the Gate that never waits.
type open struct{}

func (open) Wait(gone, done <-chan struct{}) bool { return true }

// Addr returns the listener's address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Exchanges returns a copy of the exchange rows, in arrival order, and the
// number of rows dropped because the book was full (maxExchanges).
func (s *Server) Exchanges() ([]Exchange, int64) { return s.book.snapshot() }

// ResetExchanges forgets every row; exchanges still open are no longer
// reported.
func (s *Server) ResetExchanges() { s.book.reset() }

// Close closes the listener and every open connection, ends stalls,
// delays and drips, and waits (at most closeWait) for the connection
// goroutines to return. Later calls return the first result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.done)
		err := s.ln.Close()
		if errors.Is(err, net.ErrClosed) {
			err = nil
		}
		s.mu.Lock()
		s.shut = true
		conns := make([]net.Conn, 0, len(s.conns))
		for c := range s.conns {
			conns = append(conns, c)
		}
		s.mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
		served := make(chan struct{})
		go func() { s.wg.Wait(); close(served) }()
		select {
		case <-served:
		case <-time.After(closeWait):
			err = errors.Join(err, errors.New("fault: connections still served after Close"))
		}
		s.closeErr = err
	})
	return s.closeErr
}

// closing reports whether Close has been called.
func (s *Server) closing() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// track registers c as open; it reports false (and closes c) once Close
// was called.
func (s *Server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shut {
		c.Close()
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

// untrack forgets c.
func (s *Server) untrack(c net.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// tcpOf returns the *net.TCPConn under c, or nil.
func tcpOf(c net.Conn) *net.TCPConn {
	for c != nil {
		switch v := c.(type) {
		case *net.TCPConn:
			return v
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			return nil
		}
	}
	return nil
}
