package h2

import (
	"bytes"
	"context"
	"net"
	"sync/atomic"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/decode"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Client is one worker's HTTP/2 connection (reopened as needed) with up
// to Config.Streams requests in flight on it. It implements load.Streamer
// (and load.Conn, one request at a time). Everything but Interrupt runs
// on the worker's goroutine or task.
type Client struct {
	cfg    *Config
	ctx    context.Context
	dialer client.ContextDialer
	stop   atomic.Bool
	live   atomic.Pointer[connRef] // the open connection, for Interrupt

	nc  net.Conn // nil = no connection
	fr  *http2.Framer
	dec *hpack.Decoder
	in  inbuf
	out outbuf

	streams []stream  // Config.Streams slots
	done    []*stream // ended, not yet returned by Next
	head    int       // next of done to return
	active  int       // streams open on the connection
	queued  int       // streams waiting for a new connection (GOAWAY, REFUSED_STREAM)

	nextID     uint32
	maxStreams int   // the server's SETTINGS_MAX_CONCURRENT_STREAMS
	initWin    int32 // the server's SETTINGS_INITIAL_WINDOW_SIZE: each new stream's send window
	sendWin    int32 // the connection's send window
	maxFrame   int   // the server's SETTINGS_MAX_FRAME_SIZE
	recvUsed   int   // DATA bytes received since our last connection WINDOW_UPDATE
	settings   bool  // the server's SETTINGS arrived
	draining   bool  // no new streams on this connection (GOAWAY, ids spent)
	lastID     uint32
	goAwayErr  error     // a GOAWAY's error code: the failure of what is still open when the connection ends
	served     int       // responses completed on this connection
	armed      time.Time // deadline set on nc; zero = none
	now        time.Time // when the last read returned
	unsent     bool      // streams were opened (or bodies queued) since the last flush
	unsentReqs int       // requests opened since the last flush
	acks       int       // PING and SETTINGS acknowledgements queued since the last write (see maxAcks)
	readErr    error     // the error of a read that also returned bytes, for the next fill
	carryIn    int64     // connection-level bytes read, for the next exchange to end
	carryOut   int64     // connection-level bytes written, likewise
	carryClose int       // connections closed, likewise

	// the header block being decoded
	cur       *stream // its stream; nil = discard (a stream that ended)
	curID     uint32
	curEnd    bool // the block's HEADERS frame had END_STREAM
	hdrBytes  int
	hdrFields int
	hdrBad    bool
	status    int
	blockLen  int             // encoded bytes of the block so far
	blockWire int             // bytes of the block's frames so far, frame headers included
	length    int64           // the block's content-length; noLength = none, -1 = invalid
	block     []byte          // a block that came in several frames, gathered (see decode)
	full      bool            // decode the whole block: the connection's first response
	server    []byte          // the Server field of the connection's first response
	hdrEnc    decode.Encoding // the block's content-encoding (with unz)
	fields    []byte          // with header checks (keepFields): the block's fields so far, see check.go

	keepFields bool // a check reads header fields: every block is decoded whole
	keepBodies bool // a check reads the body: each stream keeps its first check.MaxBody bytes
	firstDone  bool // the connection's first final response's block was decoded (its Server kept)

	// content decoding (--compressed); unz is nil without it
	unz  *decode.Body // decodes each body at its end, its decoders reused
	zrd  bytes.Reader // unz's view of the stream's compressed bytes
	zcur *stream      // the stream being decoded, for unz.Expired
	huff bytes.Buffer // a Huffman-coded content-encoding, decoded
}

var _ load.Streamer = (*Client)(nil)

// connRef publishes the open connection to Interrupt, which runs on another
// goroutine.
type connRef struct{ nc net.Conn }

// New returns a client for one worker. ctx ends dials when the run stops;
// when it carries an event-loop task the client dials and does all its
// I/O on that task (as client.NewFast). The connection is opened by the
// first request.
func New(ctx context.Context, cfg *Config) *Client {
	c := &Client{cfg: cfg, ctx: ctx, dialer: cfg.Client.Dialer(ctx), streams: make([]stream, cfg.Streams)}
	c.done = make([]*stream, 0, cfg.Streams)
	c.in.buf = make([]byte, max(cfg.Client.BufferSize, minFrameSize)+frameHeaderLen)
	c.fr = http2.NewFramer(&c.out, &c.in)
	c.fr.SetReuseFrames()
	c.fr.SetMaxReadFrameSize(minFrameSize)
	c.fr.MaxHeaderListSize = uint32(cfg.maxHeaderBytes())
	c.keepFields, c.keepBodies = cfg.Client.Checks.NeedsFields(), cfg.Client.Checks.NeedsBody()
	if d := cfg.Client.Decoding; d.Compressed {
		c.unz = &decode.Body{Accept: d.Accept, Max: d.MaxDecoded, Expired: c.decodeExpired}
	}
	return c
}

const frameHeaderLen = 9

// Our SETTINGS: a large stream window and connection window (h2load's
// defaults, 2^30-1), so that flow control never slows the responses.
const (
	recvWindow  = 1<<30 - 1
	initialConn = 65535 // every connection's window before WINDOW_UPDATE (RFC 9113 §6.9.2)
)

// Interrupt makes the current or next Next return with the exchanges in
// flight failed; the worker then counts them as aborted.
func (c *Client) Interrupt() {
	c.stop.Store(true)
	if ref := c.live.Load(); ref != nil {
		_ = ref.nc.SetDeadline(aLongTimeAgo)
	}
}

var aLongTimeAgo = time.Unix(1, 0)

// Open reports whether the client holds an open connection. Call it
// between loads only.
func (c *Client) Open() bool { return c.nc != nil }

// Close closes the connection and reports whether one was open.
func (c *Client) Close() bool {
	if c.nc == nil {
		return false
	}
	c.closeConn()
	c.carryClose = 0
	return true
}

// Room is how many more requests Start may begin; see load.Streamer.
func (c *Client) Room() int {
	inFlight := c.active + c.queued + len(c.done) - c.head
	n := c.cfg.Streams - inFlight
	if c.nc != nil {
		if c.draining {
			n = 0
		}
		n = min(n, c.maxStreams-c.active)
	}
	if inFlight == 0 {
		return max(n, 1)
	}
	return max(n, 0)
}

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

// Start begins request x; see load.Streamer.
func (c *Client) Start(x *load.Exchange) (stats.Outcome, bool) {
	x.Start = clock.Read()
	if c.nc != nil && c.draining && c.active == 0 {
		c.closeConn() // a drained connection: this request opens the next
	}
	if c.nc == nil {
		if o, ok := c.connect(x); !ok {
			x.Done = clock.Read()
			c.settle(x)
			return o, true
		}
	} else {
		x.Connected = x.Start
	}
	if c.maxStreams <= 0 {
		x.Err, x.Done = errNoStreams, clock.Read()
		c.draining = true // the next request tries a new connection
		c.settle(x)
		return stats.FailProtocol, true
	}
	s := c.freeStream()
	s.x, s.retried = x, false
	c.open(s)
	return stats.OK, false
}

// Next sends what Start queued and returns the next exchange to end; see
// load.Streamer.
func (c *Client) Next(until time.Time) (*load.Exchange, stats.Outcome) {
	for {
		if c.head < len(c.done) {
			s := c.done[c.head]
			c.head++
			if c.head == len(c.done) {
				c.done, c.head = c.done[:0], 0
			}
			x, o := s.x, s.outcome
			s.x, s.state = nil, free
			return x, o
		}
		if c.queued > 0 && c.canResend() {
			c.resend()
			if c.head < len(c.done) {
				continue
			}
		}
		if c.active == 0 {
			if c.queued == 0 {
				return nil, stats.OK
			}
			continue
		}
		if err := c.process(); err != nil {
			c.fail(err)
			continue
		}
		if c.head < len(c.done) || c.active == 0 || (c.queued > 0 && c.canResend()) {
			continue
		}
		// Nothing more to return before a read: write every request the
		// worker started since the last read (and the acknowledgements
		// and window updates) in one go.
		if len(c.out.buf) > 0 && !c.holdBack(until) {
			c.startHeld()
			c.arm(time.Time{}, true) // a write is bounded by the streams' deadlines, never by until
			if err := c.flush(); err != nil {
				c.fail(err)
				continue
			}
		}
		c.arm(until, false)
		err := c.fill()
		if err != nil && (!client.IsTimeout(err) || c.stop.Load()) {
			c.fail(err)
			continue
		}
		// A read that times out, or one that returned while the
		// deadline had already passed: the event loop checks its timers
		// only when the task parks, and a server sending faster than gb
		// parses keeps the task reading, so the deadline is also checked
		// here, once per read batch.
		if err != nil || (!c.armed.IsZero() && !c.now.Before(c.armed)) {
			now := c.now
			c.armed = aLongTimeAgo // it passed: re-arm
			c.expire(now)
			if !until.IsZero() && !now.Before(until) && c.head == len(c.done) {
				return nil, stats.OK
			}
		}
	}
}

// holdBack reports whether the requests started since the last write
// should wait for the next read, to go out together with those the
// streams it frees will start: in a closed loop, while more than half of
// the connection's streams are still on the wire. One write then carries
// several requests, as h2load's do, instead of one per response read. A
// request's latency counts from its write (see flush), as HTTP/1.1's
// does; in rate mode nothing waits.
func (c *Client) holdBack(until time.Time) bool {
	if !until.IsZero() || c.unsentReqs == 0 || c.acks > 0 {
		return false // acknowledgements go out before the next read
	}
	limit := min(c.cfg.Streams, c.maxStreams)
	return 2*(c.active-c.unsentReqs) > limit
}

// canResend reports whether queued streams can go now: on the
// connection (it takes new streams and has room), or on a new one (the
// old one has drained).
func (c *Client) canResend() bool {
	return c.active == 0 || (c.nc != nil && !c.draining && c.active < c.maxStreams)
}

// arm sets the connection's deadline to the earliest of the streams'
// deadlines and until: of the written streams for a read (a request held
// back is not due before it is written; a stream's phase deadline
// counts), of all for a write (their totals, -s: a write that outlives a
// stream's phase deadline is no timeout of the connection). In a closed
// loop the deadline only moves when it would be more than timeout/64
// early (as client.Fast does), so a busy connection rarely pays for a
// timer update; a read that times out before a stream's deadline only
// re-arms. c.armed is zero for no deadline, aLongTimeAgo for one that
// passed.
func (c *Client) arm(until time.Time, writing bool) {
	want := until
	for i := range c.streams {
		s := &c.streams[i]
		dl := s.deadline
		if writing {
			dl = s.total // a write is the connection's: a stream's phase limits its own reads only
		}
		if s.state == open && (s.sent || writing) && (want.IsZero() || dl.Before(want)) {
			want = dl
		}
	}
	d := c.cfg.Client.Timeout
	if want.Before(c.armed) || want.Sub(c.armed) > d/64 || (!until.IsZero() && !want.Equal(c.armed)) {
		_ = c.nc.SetDeadline(want)
		c.armed = want
	}
	if c.stop.Load() {
		_ = c.nc.SetDeadline(aLongTimeAgo)
	}
}

// flush writes what is queued for the connection and marks the streams
// whose request is now fully written.
func (c *Client) flush() error {
	if len(c.out.buf) == 0 {
		return nil
	}
	_, err := c.nc.Write(c.out.buf)
	c.out.buf = c.out.buf[:0]
	c.acks = 0
	if err != nil {
		c.markSent() // it was tried: the streams fail as written (in part)
		return err
	}
	if c.unsent {
		c.unsent, c.unsentReqs = false, 0
		now := clock.Read()
		for i := range c.streams {
			s := &c.streams[i]
			if s.state != open || s.written {
				continue
			}
			if !s.sent && c.cfg.phased {
				c.phase(s, c.cfg.Client.FirstByteTimeout, now.Time()) // from its HEADERS written
			}
			s.sent = true
			if len(s.body) == 0 {
				s.written = true
				s.x.Written = now
			}
		}
	}
	return nil
}

// startHeld starts the requests held back on a ready connection now,
// before the write that sends them: their latency and deadline count
// from it.
func (c *Client) startHeld() {
	if c.unsentReqs == 0 {
		return
	}
	sending := clock.Read()
	for i := range c.streams {
		s := &c.streams[i]
		if x := s.x; s.state == open && !s.sent && x.Connected == x.Start && sending.After(x.Start) {
			x.Start, x.Connected = sending, sending
			s.total = sending.Time().Add(c.cfg.Client.Timeout)
			s.deadline = s.total
		}
	}
}

// markSent marks every open stream's request as handed to the connection.
func (c *Client) markSent() {
	for i := range c.streams {
		if s := &c.streams[i]; s.state == open {
			s.sent = true
		}
	}
}

// fill reads what the connection has into the input buffer. A read that
// returns bytes and an error (a TLS connection's last record followed by
// its close_notify) returns the bytes now, for the frames they end to be
// processed, and the error on the next fill.
func (c *Client) fill() error {
	if err := c.readErr; err != nil {
		c.readErr = nil
		return err
	}
	if err := c.in.makeRoom(); err != nil {
		return err
	}
	n, err := c.nc.Read(c.in.buf[c.in.w:])
	c.in.w += n
	c.now = time.Now()
	if n > 0 && err != nil {
		c.readErr, err = err, nil
	}
	return err
}

// closeConn closes the connection; the next exchange to end counts it.
func (c *Client) closeConn() {
	_ = c.nc.Close()
	c.nc = nil
	c.live.Store(nil)
	c.carryClose++
	c.out.buf = c.out.buf[:0]
	c.unsent, c.unsentReqs, c.acks, c.readErr = false, 0, 0, nil
}
