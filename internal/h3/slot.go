package h3

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// slot runs one stream's requests, one at a time, on a goroutine of its
// own (quic-go's stream calls block). The worker writes the fields before
// it sends on work; the slot writes them before it sends itself on the
// Client's done channel: each side reads them only after the other's send.
type slot struct {
	c       *Client
	work    chan struct{}  // one signal per exchange; closed by Client.Close
	running bool           // the goroutine runs (worker-owned)
	x       *load.Exchange // in flight; nil = free
	o       stats.Outcome  // x's outcome, once it ended
	conn    *conn          // the connection x runs on
	fresh   bool           // x opened conn: x.Start and x.Connected are the dial's
	retried bool           // x was sent again after its connection never carried it (see Client.restart)
	requeue bool           // x never reached the server: send it on a new connection
	stale   bool           // with requeue: x met a connection that had silently died; its resend is a retry
	server  []byte         // the Server field of x's response
	buf     []byte         // the bodies' read buffer
	req     *http.Request  // with a request body: Config.req with body as its Body
	body    bytes.Reader
}

// phase is how far an exchange got, for the outcome of its failure.
type phase int

const (
	phaseOpen  phase = iota // waiting for a stream (the server's stream limit)
	phaseWrite              // sending the request
	phaseHead               // waiting for the response's header section
	phaseBody               // reading the body
)

// begin hands x, on cn, to the slot's goroutine, starting it if needed.
func (s *slot) begin(x *load.Exchange, cn *conn, fresh bool) {
	s.x, s.conn, s.fresh, s.o, s.requeue, s.stale = x, cn, fresh, stats.OK, false, false
	if !s.running {
		s.running = true
		s.work = make(chan struct{}, 1)
		go s.loop(s.work)
	}
	s.work <- struct{}{}
}

// stop ends the slot's goroutine (after its exchange, if one is in flight).
func (s *slot) stop() {
	if s.running {
		s.running = false
		close(s.work)
	}
}

func (s *slot) loop(work <-chan struct{}) {
	for range work {
		s.o = s.exchange()
		s.c.done <- s
	}
}

// exchange sends x's request on a new stream of its connection and reads
// the response, stamping x's times.
func (s *slot) exchange() stats.Outcome {
	x, cn, cfg := s.x, s.conn, s.c.cfg
	deadline := time.Now().Add(cfg.timeout)
	if cfg.body != nil {
		return s.roundTrip(deadline)
	}
	ctx, cancel := context.WithDeadline(s.c.ctx, deadline)
	str, err := cn.hc.OpenRequestStream(ctx)
	cancel()
	if err != nil {
		return s.failed(nil, err, phaseOpen)
	}
	if !s.fresh {
		x.Start = clock.Read()
		x.Connected = x.Start
	}
	_ = str.SetDeadline(deadline)
	if err := str.SendRequestHeader(cfg.req); err != nil {
		return s.failed(str, err, phaseWrite)
	}
	// The request's FIN. Its error is not the request's: a server that
	// answered from the header section alone may already have stopped the
	// stream's sending side (STOP_SENDING), and a connection that failed
	// fails the read below too.
	_ = str.Close()
	x.Written = clock.Read()
	var res *http.Response
	for {
		if res, err = str.ReadResponse(); err != nil {
			return s.failed(str, err, phaseHead)
		}
		if res.StatusCode >= 200 || res.StatusCode == http.StatusSwitchingProtocols {
			break
		}
		x.Info++
	}
	return s.response(str, res)
}

// roundTrip is exchange for a request with a body, which quic-go's
// RequestStream does not send with its own Content-Length: the
// ClientConn's RoundTrip sends it (its header, then the body). The
// request's write is then not seen apart: Written is Start.
func (s *slot) roundTrip(deadline time.Time) stats.Outcome {
	x, cn := s.x, s.conn
	if s.req == nil {
		s.req = new(http.Request)
		*s.req = *s.c.cfg.req
	}
	s.body.Reset(s.c.cfg.body)
	s.req.Body = io.NopCloser(&s.body)
	ctx, cancel := context.WithDeadline(s.c.ctx, deadline)
	defer cancel()
	if !s.fresh {
		x.Start = clock.Read()
		x.Connected = x.Start
	}
	x.Written = x.Start
	res, err := cn.hc.RoundTrip(s.req.WithContext(ctx))
	if err != nil {
		return s.failed(nil, err, phaseHead)
	}
	return s.response(nil, res)
}

// response reads res's body to its end and ends the exchange.
func (s *slot) response(str *http3.RequestStream, res *http.Response) stats.Outcome {
	x := s.x
	x.FirstByte = clock.Read()
	x.Status = res.StatusCode
	if v := res.Header["Server"]; len(v) > 0 {
		s.server = append(s.server[:0], v[0]...)
	} else {
		s.server = s.server[:0]
	}
	if s.buf == nil {
		s.buf = make([]byte, bufSize)
	}
	for {
		n, err := res.Body.Read(s.buf)
		x.Body += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			if str == nil {
				_ = res.Body.Close()
			}
			return s.failed(str, err, phaseBody)
		}
	}
	if str == nil {
		_ = res.Body.Close()
	}
	x.Done = clock.Read()
	if x.Status >= 200 && x.Status < 300 {
		return stats.OK
	}
	return stats.Non2xx
}

// bufSize is each slot's body buffer.
const bufSize = 16 << 10

// failed ends x after err in phase ph: the stream (when one opened) is
// cancelled both ways, so that it frees its credit, and the outcome is
// the error's (see classify). A request its connection never carried
// (the connection closed, or announced its shutdown, before the stream
// opened; or the server rejected the stream unprocessed) is set to go
// again on a new connection, once.
func (s *slot) failed(str *http3.RequestStream, err error, ph phase) stats.Outcome {
	x := s.x
	x.Done, x.Err = clock.Read(), err
	if str != nil {
		str.CancelRead(quic.StreamErrorCode(http3.ErrCodeRequestCanceled))
		str.CancelWrite(quic.StreamErrorCode(http3.ErrCodeRequestCanceled))
	}
	if !s.retried && !s.c.stop.Load() {
		if unsent(err, ph) {
			s.requeue = true
			return stats.FailWrite // unless the worker sends it again (Client.restart)
		}
		if !s.fresh && ph <= phaseHead && s.c.cfg.Client.Idempotent && died(err) {
			s.requeue, s.stale = true, true
			return stats.FailStaleConn
		}
	}
	o, e := s.c.classify(err, ph)
	if e != nil {
		x.Err = e
	}
	return o
}

// unsent reports whether err means the server never processed the
// request: no stream opened, or the server rejected the stream
// (H3_REQUEST_REJECTED, RFC 9114 §4.1.1).
func unsent(err error, ph phase) bool {
	if ph == phaseOpen && !isTimeout(err) {
		return true
	}
	var he *http3.Error
	return errors.As(err, &he) && he.Remote && he.ErrorCode == http3.ErrCodeRequestRejected
}

// died reports whether err means the connection ended without the
// server saying why: its idle timeout (the server had dropped it
// silently), a stateless reset (the server forgot it), or a close without
// an error. On a connection that served before, before any response
// byte, this is QUIC's keep-alive close race: the request goes once more,
// on a new connection, as a retry (as HTTP/1.1's, RFC 9112 §9.3.1).
func died(err error) bool {
	var ie *quic.IdleTimeoutError
	var sr *quic.StatelessResetError
	var ae *quic.ApplicationError
	return errors.As(err, &ie) || errors.As(err, &sr) ||
		errors.As(err, &ae) && ae.Remote && ae.ErrorCode == quic.ApplicationErrorCode(http3.ErrCodeNoError)
}

// classify is the outcome of an exchange that failed with err in phase
// ph, and the error to record instead of err (nil = err).
//
// As HTTP/2's client does: the server's reset of the stream (RESET_STREAM
// or STOP_SENDING) is failed.reset; the server's CONNECTION_CLOSE with an
// error code (HTTP/3's or QUIC's) is failed.protocol, as a GOAWAY with an
// error is; a connection that closed without an error under a request is
// failed.reset before the response and failed.truncated inside the body.
// A deadline (-s) or the connection's idle timeout (no packet from the
// server for that long) is the timeout of the phase the request was in;
// a request whose stream or write never completed is failed.write.
// Malformed responses (frames, QPACK, Content-Length) are failed.protocol.
func (c *Client) classify(err error, ph phase) (stats.Outcome, error) {
	var se *quic.StreamError
	var ae *quic.ApplicationError
	var te *quic.TransportError
	var sr *quic.StatelessResetError
	switch {
	case c.stop.Load():
		return stats.AbortedSignal, nil // the worker relabels it with the stop's cause
	case isTimeout(err):
		return timedOut(ph)
	case errors.As(err, &se) && se.Remote:
		return stats.FailReset, nil
	case errors.As(err, &ae) && ae.Remote && ae.ErrorCode != quic.ApplicationErrorCode(http3.ErrCodeNoError),
		errors.As(err, &te) && te.Remote && te.ErrorCode != quic.NoError:
		return stats.FailProtocol, nil
	case errors.As(err, &ae), errors.As(err, &te), errors.As(err, &sr):
		if ph == phaseBody {
			return stats.FailTruncated, nil
		}
		if ph <= phaseWrite {
			return stats.FailWrite, nil
		}
		return stats.FailReset, nil
	case ph <= phaseWrite:
		return stats.FailWrite, nil
	case errors.Is(err, io.ErrUnexpectedEOF):
		return stats.FailTruncated, nil
	}
	return stats.FailProtocol, nil
}

// timedOut is the outcome of a request that timed out in phase ph.
func timedOut(ph phase) (stats.Outcome, error) {
	switch ph {
	case phaseOpen:
		return stats.FailWrite, errNoStream
	case phaseWrite:
		return stats.FailWrite, errWriteTimeout
	case phaseHead:
		return stats.TimeoutFirstByte, errTimeout
	}
	return stats.TimeoutBody, errTimeout
}

var (
	errNoStream     = errors.New("http3: no stream in time (the server's stream limit)")
	errWriteTimeout = errors.New("http3: request write timed out (the server stopped reading it)")
	errTimeout      = errors.New("http3: stream timed out")
)

// isTimeout reports whether err is a deadline's or the connection's idle
// timeout.
func isTimeout(err error) bool {
	var ie *quic.IdleTimeoutError
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ie)
}
