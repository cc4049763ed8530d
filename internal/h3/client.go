package h3

import (
	"context"
	"net"
	"sync/atomic"
	"time"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// Client is one worker's QUIC connection to each address it sends to
// (reopened as needed) with up to Config.Streams requests in flight on
// them. It implements load.Streamer
// (and load.Conn, one request at a time). Everything but Interrupt and
// the slots' goroutines runs on the worker's goroutine.
type Client struct {
	cfg  *Config
	ctx  context.Context // the run's: ends the slots' goroutines and dials when it stops
	stop atomic.Bool
	live []atomic.Pointer[conn] // the open connection to each address, for Interrupt

	cur      []*conn    // the connection to each address; nil = none
	slots    []slot     // Config.Streams slots
	free     []*slot    // slots not in flight
	done     chan *slot // slots whose exchange ended, for Next
	inflight int
	timer    *time.Timer // Next's wait for until; created at its first use
}

var _ load.Streamer = (*Client)(nil)

// conn is one QUIC connection and its HTTP/3 client. Its counters are
// the worker's.
type conn struct {
	udp      *net.UDPConn
	addr     int // its index in Config.addrs
	tr       *quic.Transport
	qc       *quic.Conn
	hc       *http3.ClientConn
	in       uint64 // bytes received, as far as exchanges were charged
	out      uint64 // bytes sent, likewise
	served   int    // exchanges ended on it
	active   int    // exchanges in flight on it
	draining bool   // no new streams on it (the server's GOAWAY)
}

// usable reports whether cn may take a new stream.
func (cn *conn) usable() bool { return !cn.draining && cn.qc.Context().Err() == nil }

// New returns a client for one worker. ctx ends dials and the slots'
// goroutines when the run stops. The connection is opened by the first
// request.
func New(ctx context.Context, cfg *Config) *Client {
	c := &Client{cfg: cfg, ctx: ctx, slots: make([]slot, cfg.Streams)}
	c.cur, c.live = make([]*conn, len(cfg.addrs)), make([]atomic.Pointer[conn], len(cfg.addrs))
	c.free = make([]*slot, 0, cfg.Streams)
	c.done = make(chan *slot, cfg.Streams)
	for i := range c.slots {
		c.slots[i].c = c
		c.free = append(c.free, &c.slots[i])
	}
	return c
}

// Interrupt makes the exchanges in flight end at once (the connection is
// closed under them); the worker counts them as aborted.
func (c *Client) Interrupt() {
	c.stop.Store(true)
	for i := range c.live {
		if cn := c.live[i].Load(); cn != nil {
			_ = cn.qc.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeRequestCanceled), "")
		}
	}
}

// Close closes the connections, ends the slots' goroutines and reports
// whether a connection was open. Nothing may be in flight.
func (c *Client) Close() bool {
	for i := range c.slots {
		c.slots[i].stop()
	}
	open := false
	for a := range c.cur {
		if c.cur[a] != nil {
			c.closeConn(a)
			open = true
		}
	}
	return open
}

// Open reports whether c holds a connection (between loads: a ramp's
// pool keeps c for its next step only then).
func (c *Client) Open() bool {
	for _, cn := range c.cur {
		if cn != nil {
			return true
		}
	}
	return false
}

// Room is how many more requests Start may begin; see load.Streamer.
func (c *Client) Room() int { return max(len(c.free), 0) }

// Do sends one request and waits for its response (load.Conn).
func (c *Client) Do(x *load.Exchange) stats.Outcome {
	if o, done := c.Start(x); done {
		return o
	}
	for {
		if y, o := c.Next(time.Time{}); y == x {
			return o
		}
	}
}

// Start begins request x; see load.Streamer. A connection that ended is
// closed (counted on x) and a new one opened.
func (c *Client) Start(x *load.Exchange) (stats.Outcome, bool) {
	x.Start = clock.Read()
	fresh, o := c.ensure(x)
	if o != stats.OK {
		x.Done = clock.Read()
		return o, true
	}
	s := c.free[len(c.free)-1]
	c.free = c.free[:len(c.free)-1]
	c.inflight++
	s.retried = false
	c.begin(s, x, c.cur[c.addrOf(x)], fresh)
	return stats.OK, false
}

// addrOf is the index of the address x's target goes to.
func (c *Client) addrOf(x *load.Exchange) int {
	return c.cfg.request(x.Target).addr
}

// ensure makes the connection to x's address usable, retiring one that
// ended or drains (counted on x when it closes now) and opening a new
// one; fresh reports that x opened it. The outcome is stats.OK or the
// connect's failure.
func (c *Client) ensure(x *load.Exchange) (fresh bool, o stats.Outcome) {
	a := c.addrOf(x)
	if cn := c.cur[a]; cn != nil && !cn.usable() {
		c.cur[a] = nil
		c.live[a].Store(nil)
		if cn.active == 0 {
			closeConn(cn)
			x.Closed++
		} // else its last exchange closes it (see settle)
	}
	if c.cur[a] != nil {
		return false, stats.OK
	}
	if o, ok := c.connect(x, a); !ok {
		return true, o
	}
	return true, stats.OK
}

// begin hands x to slot s on connection cn.
func (c *Client) begin(s *slot, x *load.Exchange, cn *conn, fresh bool) {
	cn.active++
	s.begin(x, cn, fresh)
}

// settle takes s's exchange off its connection, closing a retired
// connection when it was the last one on it (counted on that exchange).
func (c *Client) settle(s *slot) {
	cn := s.conn
	cn.active--
	if cn != c.cur[cn.addr] && cn.active == 0 {
		closeConn(cn)
		s.x.Closed++
	}
}

// Next waits until an exchange in flight ends and returns it; see
// load.Streamer.
func (c *Client) Next(until time.Time) (*load.Exchange, stats.Outcome) {
	for c.inflight > 0 {
		s := c.wait(until)
		if s == nil {
			return nil, stats.OK
		}
		if s.requeue && c.restart(s) {
			continue
		}
		c.inflight--
		c.free = append(c.free, s)
		x, o := s.x, s.o
		if s.conn != nil {
			c.charge(s)
			c.settle(s)
		}
		s.x, s.conn = nil, nil
		return x, o
	}
	return nil, stats.OK
}

// wait returns the next slot to end, or nil when until (non-zero) passes
// first.
func (c *Client) wait(until time.Time) *slot {
	if until.IsZero() {
		return <-c.done
	}
	select {
	case s := <-c.done:
		return s
	default:
	}
	d := time.Until(until)
	if d <= 0 {
		return nil
	}
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Reset(d)
	}
	select {
	case s := <-c.done:
		c.timer.Stop()
		return s
	case <-c.timer.C:
		return nil
	}
}

// restart sends s's exchange, which its connection never carried (the
// server was shutting it down: GOAWAY, or it closed before the stream
// opened), on a new connection, once. It reports false when s ends
// instead (connect failed, or the run is stopping); s.o says how.
func (c *Client) restart(s *slot) bool {
	s.requeue = false
	if c.stop.Load() {
		return false
	}
	s.retried = true
	s.conn.draining = true
	c.charge(s)
	c.settle(s)
	x := s.x
	x.Retried = x.Retried || s.stale
	x.Start, x.Err, x.Status, x.Info, x.Body = clock.Read(), nil, 0, 0, 0
	fresh, o := c.ensure(x)
	if o != stats.OK {
		s.o, x.Done = o, clock.Read()
		return false
	}
	c.begin(s, x, c.cur[c.addrOf(x)], fresh)
	return true
}

// charge gives the exchange of s the bytes its connection moved since
// the last exchange ended on it: QUIC's packets, headers and
// acknowledgements included.
func (c *Client) charge(s *slot) {
	cn := s.conn
	st := cn.qc.ConnectionStats()
	s.x.BytesIn += int64(st.BytesReceived - cn.in)
	s.x.BytesOut += int64(st.BytesSent - cn.out)
	cn.in, cn.out = st.BytesReceived, st.BytesSent
	cn.served++
	if s.fresh && c.cfg.EarlyData {
		c.noteEarly(s.x, cn)
	}
	s.x.KeepAlive = cn.qc.Context().Err() == nil
	if len(s.server) > 0 {
		s.x.Server = s.server // valid until the slot's next exchange, which the worker starts after recording this one
	}
}

// closeConn closes the current connection to address a and its socket.
func (c *Client) closeConn(a int) {
	cn := c.cur[a]
	c.cur[a] = nil
	c.live[a].Store(nil)
	closeConn(cn)
}

// closeConn closes cn and its socket.
func closeConn(cn *conn) {
	_ = cn.qc.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "")
	_ = cn.tr.Close()
	_ = cn.udp.Close()
}

// noteEarly records, on x which opened cn with early data, whether the
// session was resumed: known only once the handshake completed, which it
// has when x's response came.
func (c *Client) noteEarly(x *load.Exchange, cn *conn) {
	select {
	case <-cn.qc.HandshakeComplete():
	default:
		return
	}
	st := cn.qc.ConnectionState()
	x.Resumed = st.TLS.DidResume || st.Used0RTT
	c.cfg.Client.NoteTLS(st.TLS)
}
