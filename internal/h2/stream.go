package h2

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/decode"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
	"golang.org/x/net/http2"
)

// stream is one request slot of a Client.
type stream struct {
	x        *load.Exchange
	req      *request // x's target's request (Config.request)
	state    streamState
	id       uint32
	deadline time.Time       // the earlier of total and the current phase's deadline
	total    time.Time       // the request's start + Timeout
	body     []byte          // request body still to send
	sendWin  int32           // the stream's send window
	recvUsed int             // DATA bytes received since our last WINDOW_UPDATE for it
	sent     bool            // the request's HEADERS were handed to the connection (false: held back, see Client.holdBack)
	written  bool            // the request is fully written
	started  bool            // a response frame arrived
	headers  bool            // the final response's header block is complete
	retried  bool            // sent again on a new connection (GOAWAY, REFUSED_STREAM)
	length   int64           // the response's content-length; noLength = none, -1 = invalid
	peerDone bool            // the server ended or reset the stream: no RST_STREAM back
	enc      decode.Encoding // the response's content-encoding (with Client.unz)
	zbuf     []byte          // its compressed body so far, reused by the slot's next responses
	zover    bool            // the body passed decode.DefaultMaxBuffered: zbuf stopped growing
	kfields  []byte          // with header checks: the response's fields, "name: value\n" each (see check.go)
	kbody    []byte          // with body checks: the body's first check.MaxBody bytes
	outcome  stats.Outcome
}

type streamState uint8

const (
	free   streamState = iota
	open               // on the connection
	queued             // waiting for a new connection
	ended              // in Client.done
)

// Errors the exchanges carry (Exchange.Err).
var (
	errNoStreams   = errors.New("http2: the server allows no streams (SETTINGS_MAX_CONCURRENT_STREAMS 0)")
	errWindow      = errors.New("http2: request body stalled: the server's flow-control window stayed closed")
	errHeaderList  = errors.New("http2: response header list too large")
	errNoStatus    = errors.New("http2: response without a valid :status")
	errGoAwayAgain = errors.New("http2: stream refused again after a retry (GOAWAY or REFUSED_STREAM)")
	errEarlyData   = errors.New("http2: DATA before the response headers")
	errNoSettings  = errors.New("http2: the server sent no SETTINGS frame (is it speaking HTTP/2?)")
)

// resetError is a stream the server reset (RST_STREAM).
type resetError struct{ code http2.ErrCode }

func (e resetError) Error() string { return "http2: stream reset by the server: " + e.code.String() }

// goAwayError is the error of streams a GOAWAY with an error code ended.
type goAwayError struct {
	code  http2.ErrCode
	debug string
}

func (e goAwayError) Error() string {
	if e.debug != "" {
		return fmt.Sprintf("http2: GOAWAY %s: %q", e.code, e.debug)
	}
	return "http2: GOAWAY " + e.code.String()
}

// freeStream returns a free slot; Start is only called with Room > 0, so
// there is one.
func (c *Client) freeStream() *stream {
	for i := range c.streams {
		if c.streams[i].state == free {
			return &c.streams[i]
		}
	}
	panic("h2: Start without Room")
}

// find returns the open stream id, or nil.
func (c *Client) find(id uint32) *stream {
	for i := range c.streams {
		if s := &c.streams[i]; s.id == id && s.state == open {
			return s
		}
	}
	return nil
}

// open sends s's request on the connection: its HEADERS frames with a new
// stream id, and as much of its body as the windows allow.
func (c *Client) open(s *stream) {
	id := c.nextID
	c.nextID += 2
	if c.nextID > 1<<31-1 {
		c.draining = true // ids spent: the next request opens a new connection
	}
	start := len(c.out.buf)
	s.req = c.cfg.request(s.x)
	c.out.buf = append(c.out.buf, s.req.frames...)
	for _, off := range s.req.ids {
		p := c.out.buf[start+off:]
		p[0], p[1], p[2], p[3] = byte(id>>24), byte(id>>16), byte(id>>8), byte(id)
	}
	s.x.BytesOut += int64(len(s.req.frames))
	s.state, s.id, s.body, s.sendWin = open, id, s.req.body, c.initWin
	s.total = s.x.Start.Time().Add(c.cfg.Client.Timeout)
	s.deadline = s.total
	s.sent, s.written, s.started, s.headers, s.peerDone, s.recvUsed = false, false, false, false, false, 0
	c.active++
	c.unsent = true
	c.unsentReqs++
	if len(s.body) > 0 {
		c.sendBodies()
	}
}

// sendBodies writes request body DATA while the windows allow.
func (c *Client) sendBodies() {
	for i := range c.streams {
		s := &c.streams[i]
		for s.state == open && len(s.body) > 0 && c.sendWin > 0 && s.sendWin > 0 {
			n := min(len(s.body), int(c.sendWin), int(s.sendWin), c.maxFrame)
			_ = c.fr.WriteData(s.id, n == len(s.body), s.body[:n])
			s.body = s.body[n:]
			c.sendWin -= int32(n)
			s.sendWin -= int32(n)
			s.x.BytesOut += int64(frameHeaderLen + n)
			c.unsent = true
		}
	}
}

// end ends s's exchange with outcome o (err for a failure) and queues it
// for Next. An open stream the response has not finished is reset.
func (c *Client) end(s *stream, o stats.Outcome, err error) {
	x := s.x
	if s.state == open {
		c.active--
		if o != stats.OK && o != stats.Non2xx && o != stats.FailCheck && c.nc != nil && !s.peerDone {
			_ = c.fr.WriteRSTStream(s.id, http2.ErrCodeCancel)
			c.carryOut += frameHeaderLen + 4
		}
	}
	if s.state == queued {
		c.queued--
	}
	x.Done = clock.Of(c.now)
	if x.Done.Before(x.Start) {
		x.Done = clock.Read()
	}
	x.Err = err
	c.settle(x)
	x.KeepAlive = c.nc != nil && !c.draining
	if o == stats.OK || o == stats.Non2xx || o == stats.FailCheck {
		c.served++
	}
	if s.retried {
		x.Retried = true
	}
	s.state, s.outcome, s.body = ended, o, nil
	c.done = append(c.done, s)
}

// settle gives x the connection-level bytes and closes not yet counted.
func (c *Client) settle(x *load.Exchange) {
	x.BytesIn += c.carryIn
	x.BytesOut += c.carryOut
	x.Closed += c.carryClose
	c.carryIn, c.carryOut, c.carryClose = 0, 0, 0
}

// requeue takes s off the connection to send it again on a new one (the
// server did not process it: RFC 9113 §8.7), or fails it when it was
// already sent again once.
func (c *Client) requeue(s *stream, err error) {
	if s.retried || c.stop.Load() {
		c.end(s, stats.FailStaleConn, fmt.Errorf("%w: %v", errGoAwayAgain, err))
		return
	}
	c.active--
	c.queued++
	s.state, s.retried, s.body = queued, true, nil
}

// resend sends the queued streams: on the connection while it takes new
// streams, else on a new one once the old one has drained. When no
// connection can be opened they fail with the connect's outcome.
func (c *Client) resend() {
	if c.nc == nil || c.draining {
		if c.active > 0 {
			return // the old connection drains first
		}
		if c.nc != nil {
			c.closeConn()
		}
		var first *stream
		for i := range c.streams {
			if s := &c.streams[i]; s.state == queued {
				first = s
				break
			}
		}
		o, ok := stats.AbortedSignal, false
		if !c.stop.Load() {
			o, ok = c.connect(first.x)
		}
		if !ok {
			c.failQueued(o, first.x.Err)
			return
		}
		if c.maxStreams <= 0 {
			c.failQueued(stats.FailProtocol, errNoStreams)
			return
		}
	}
	for i := range c.streams {
		if s := &c.streams[i]; s.state == queued && c.active < c.maxStreams && !c.draining {
			c.queued--
			c.open(s)
		}
	}
}

// failQueued ends the queued streams with o.
func (c *Client) failQueued(o stats.Outcome, err error) {
	c.now = time.Now()
	for i := range c.streams {
		if s := &c.streams[i]; s.state == queued {
			c.end(s, o, err)
		}
	}
}

// expire ends the streams whose deadline passed, by the phase they were
// in, and resets them on the connection. A request held back for the
// next write is not due: its deadline starts when it is written.
func (c *Client) expire(now time.Time) {
	for i := range c.streams {
		s := &c.streams[i]
		if s.state != open || !s.sent || now.Before(s.deadline) {
			continue
		}
		c.now = now
		o, err := c.timedOut(s)
		c.end(s, o, err)
	}
}

// timedOut is the outcome and error of stream s when its time ran out:
// the phase it was in.
func (c *Client) timedOut(s *stream) (stats.Outcome, error) {
	switch {
	case !s.written && len(s.body) > 0 && (c.sendWin <= 0 || s.sendWin <= 0):
		return stats.FailWrite, errWindow
	case !s.written:
		return stats.FailWrite, errWriteTimeout
	case c.cfg.phased && !c.now.Before(s.total):
		return stats.TimeoutTotal, errTimeout // as HTTP/1.1's with phase limits
	case !s.started:
		return stats.TimeoutFirstByte, errTimeout
	case !s.headers:
		return stats.TimeoutHeaders, errTimeout
	}
	return stats.TimeoutBody, errTimeout
}

// phase starts a phase of stream s at now that may last d (a phase
// timeout; 0 = none): its deadline becomes now + d, never past the
// request's total. Only with phase timeouts set (Config.phased); a
// field update, no timer: the connection's deadline follows the streams'
// (arm), and expire checks each stream after every read.
func (c *Client) phase(s *stream, d time.Duration, now time.Time) {
	s.deadline = s.total
	if d > 0 {
		if dl := now.Add(d); dl.Before(s.total) {
			s.deadline = dl
		}
	}
}

var (
	errTimeout      = errors.New("http2: stream timed out")
	errWriteTimeout = errors.New("http2: request write timed out (the server stopped reading it)")
)

// fail ends every open stream after the connection failed with err, by
// how far each got, and closes the connection. Queued streams stay queued
// for a new connection (unless the run is stopping).
func (c *Client) fail(err error) {
	if c.goAwayErr != nil {
		err = c.goAwayErr // the server said why before it closed
	}
	if c.nc != nil {
		c.closeConn()
	}
	c.now = time.Now()
	for i := range c.streams {
		s := &c.streams[i]
		switch {
		case s.state == open && !s.sent:
			c.unsend(s, err)
		case s.state == open && c.stale(s, err):
			c.requeue(s, err)
		case s.state == open:
			o, e := c.classify(s, err)
			c.end(s, o, e)
		case s.state == queued && c.stop.Load():
			c.end(s, stats.AbortedSignal, err)
		}
	}
	c.draining = false
}

// unsend takes s, whose request was held back and never written, off the
// failed connection: the server never saw it, so it goes on a new
// connection (not a retry), or is aborted when the run is stopping.
func (c *Client) unsend(s *stream, err error) {
	if c.stop.Load() {
		c.end(s, stats.AbortedSignal, err)
		return
	}
	c.active--
	c.queued++
	s.state, s.body = queued, nil
	s.x.BytesOut = 0 // open counts them again
}

// stale reports whether s met the keep-alive close race: the server
// closed a connection that had already served responses before a byte of
// s's answered. An idempotent request then goes once more on a new
// connection, as HTTP/1.1's does (RFC 9112 §9.3.1).
func (c *Client) stale(s *stream, err error) bool {
	return c.served > 0 && !s.started && !s.retried && s.req.idempotent &&
		!c.stop.Load() && client.IsPeerGone(err)
}

// classify is the outcome of stream s when its connection failed with
// err, and the error it records. A timeout (a write that outlived the
// streams' deadline) is the timeout of the phase s was in.
func (c *Client) classify(s *stream, err error) (stats.Outcome, error) {
	var ce http2.ConnectionError
	var ga goAwayError
	var pe *protocolError
	var fe *frameError
	switch {
	case c.stop.Load():
		return stats.AbortedSignal, err // the worker relabels it with the stop's cause
	case client.IsTimeout(err):
		return c.timedOut(s)
	case errors.As(err, &ce), errors.As(err, &ga), errors.As(err, &pe), errors.As(err, &fe), errors.Is(err, errFrameTooLarge), isHpack(err):
		return stats.FailProtocol, err
	case !s.written:
		return stats.FailWrite, err
	case !s.started && c.served > 0 && client.IsPeerGone(err):
		return stats.FailStaleConn, err
	case !s.started && errors.Is(err, io.EOF):
		return stats.FailProtocol, err // a new connection closed with no reply
	case errors.Is(err, io.EOF):
		return stats.FailTruncated, err
	}
	return stats.FailReset, err
}
