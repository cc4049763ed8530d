package h3

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/gb-bench/gb/internal/check"
	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/decode"
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
	req     *http.Request  // with a request body: the target's request with body as its Body
	body    bytes.Reader
	total   time.Time // x's deadline (-s from its start)

	src    bodySource     // x's response body as the slot reads it
	fields []byte         // with header checks: the response's fields, "Name: value\n" each
	kept   []byte         // with body checks: the body's first check.MaxBody bytes
	chk    check.Response // what the checks see
	unz    *decode.Body   // with content decoding: the slot's decoders; made on first use
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
	r := cfg.request(x.Target)
	s.total = time.Now().Add(cfg.timeout)
	if r.body != nil {
		return s.roundTrip(r)
	}
	ctx, cancel := context.WithDeadline(s.c.ctx, s.total)
	str, err := cn.hc.OpenRequestStream(ctx)
	cancel()
	if err != nil {
		return s.failed(nil, err, phaseOpen)
	}
	if !s.fresh {
		x.Start = clock.Read()
		x.Connected = x.Start
	}
	_ = str.SetDeadline(s.total)
	if err := str.SendRequestHeader(r.req); err != nil {
		return s.failed(str, err, phaseWrite)
	}
	// The request's FIN. Its error is not the request's: a server that
	// answered from the header section alone may already have stopped the
	// stream's sending side (STOP_SENDING), and a connection that failed
	// fails the read below too.
	_ = str.Close()
	x.Written = clock.Read()
	if cfg.phased {
		s.headPhase(str)
	}
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
	if cfg.phased && cfg.Client.IdleTimeout <= 0 {
		_ = str.SetReadDeadline(s.total) // the header phase's limit is over
	}
	return s.response(str, res)
}

// headPhase limits the wait for the response's header section: the
// request's FirstByteTimeout and HeaderTimeout from now (the request
// written), within its total. HTTP/3 carries the header section in one
// HEADERS frame, which quic-go reads whole: its first byte and its end
// are not seen apart, so the two limits add up over the one wait (see
// slot.timedOut for its outcome).
func (s *slot) headPhase(str *http3.RequestStream) {
	cc := s.c.cfg.Client
	d := cc.FirstByteTimeout + cc.HeaderTimeout
	if d <= 0 {
		return
	}
	if dl := time.Now().Add(d); dl.Before(s.total) {
		_ = str.SetReadDeadline(dl)
	}
}

// roundTrip is exchange for a request with a body, which quic-go's
// RequestStream does not send with its own Content-Length: the
// ClientConn's RoundTrip sends it (its header, then the body). The
// request's write is then not seen apart: Written is Start; and the
// stream is not the slot's, so only the request's total deadline (-s)
// applies, not the phase timeouts.
func (s *slot) roundTrip(r *request) stats.Outcome {
	x, cn := s.x, s.conn
	if s.req == nil {
		s.req = new(http.Request)
	}
	*s.req = *r.req
	s.body.Reset(r.body)
	s.req.Body = io.NopCloser(&s.body)
	ctx, cancel := context.WithDeadline(s.c.ctx, s.total)
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

// response reads res's body to its end (decoding it with content
// decoding on) and ends the exchange, checking the response against the
// run's checks.
func (s *slot) response(str *http3.RequestStream, res *http.Response) stats.Outcome {
	x, cfg := s.x, s.c.cfg
	x.FirstByte = clock.Read()
	x.Status = res.StatusCode
	if v := res.Header["Server"]; len(v) > 0 {
		s.server = append(s.server[:0], v[0]...)
	} else {
		s.server = s.server[:0]
	}
	if cfg.Client.Checks.NeedsFields() {
		s.fields = appendFields(s.fields[:0], res.Header)
	}
	s.kept = s.kept[:0]
	s.src = bodySource{s: s, str: str, r: res.Body}
	var o stats.Outcome
	var err error
	if cfg.Client.Decoding.Compressed {
		o, err = s.decodeBody(res.Header["Content-Encoding"])
	} else {
		err = s.readBody()
	}
	if str == nil {
		_ = res.Body.Close()
	}
	switch {
	case err != nil && o == stats.OK:
		return s.failed(str, err, phaseBody)
	case err != nil:
		x.Done, x.Err = clock.Read(), err
		s.cancel(str)
		return o
	}
	x.Done = clock.Read()
	return s.verdict()
}

// readBody reads the body to its end; its error is the stream's.
func (s *slot) readBody() error {
	if s.buf == nil {
		s.buf = make([]byte, bufSize)
	}
	for {
		_, err := s.src.Read(s.buf)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// verdict is the outcome of a complete response: ok or non2xx by its
// status, or failed.check (with the first failed check's error) when it
// fails one of the run's checks.
func (s *slot) verdict() stats.Outcome {
	x, cs := s.x, s.c.cfg.Client.Checks
	o := stats.Non2xx
	if x.Status >= 200 && x.Status < 300 {
		o = stats.OK
	}
	if cs == nil {
		return o
	}
	s.chk = check.Response{Status: x.Status, Size: x.Body, Fields: s.fields, Body: s.kept}
	fails, err := cs.Eval(&s.chk)
	x.Checks, x.CheckFails = uint8(len(cs.Checks)), fails
	if fails != 0 {
		x.Err = err
		return stats.FailCheck
	}
	return o
}

// appendFields appends h's fields to b as the checks read them, one
// "Name: value\n" line per value.
func appendFields(b []byte, h http.Header) []byte {
	for name, vs := range h {
		for _, v := range vs {
			b = append(append(append(append(b, name...), ": "...), v...), '\n')
		}
	}
	return b
}

// bodySource is a response body as the slot reads it: each read counts
// its bytes (Exchange.Body), keeps the first check.MaxBody of them for
// the body checks, and, with an IdleTimeout, gives the stream that long
// (within the request's total) to bring more.
type bodySource struct {
	s   *slot
	str *http3.RequestStream // nil on the RoundTrip path
	r   io.Reader
}

func (b *bodySource) Read(p []byte) (int, error) {
	s := b.s
	if idle := s.c.cfg.Client.IdleTimeout; idle > 0 && b.str != nil {
		dl := time.Now().Add(idle)
		if dl.After(s.total) {
			dl = s.total
		}
		_ = b.str.SetReadDeadline(dl)
	}
	n, err := b.r.Read(p)
	s.x.Body += int64(n)
	if n > 0 && s.c.cfg.Client.Checks.NeedsBody() && len(s.kept) < check.MaxBody {
		s.kept = append(s.kept, p[:min(n, check.MaxBody-len(s.kept))]...)
	}
	return n, err
}

// decodeBody reads the body through the slot's decoder for the
// response's Content-Encoding values enc and records its decoded size.
// The outcome is stats.OK with the stream's error (nil: the body decoded),
// or failed.decode, or the body's timeout when decoding outlived the
// request's deadline, with the decoder's error.
func (s *slot) decodeBody(enc []string) (stats.Outcome, error) {
	d := s.c.cfg.Client.Decoding
	if s.unz == nil {
		s.unz = &decode.Body{Accept: d.Accept, Max: d.MaxDecoded, Expired: s.expired}
	}
	e := decode.Identity
	for _, v := range enc {
		e = e.Add([]byte(v))
	}
	n, err := s.unz.Decode(e, &s.src)
	s.x.Decoded = n
	switch {
	case err == nil:
		return stats.OK, nil
	case err == decode.ErrExpired && s.c.cfg.phased:
		return stats.TimeoutTotal, err
	case err == decode.ErrExpired:
		return stats.TimeoutBody, err
	case decode.IsError(err):
		return stats.FailDecode, err
	}
	return stats.OK, err
}

// expired reports whether the exchange being decoded is past its
// deadline (decode.Body.Expired).
func (s *slot) expired() bool { return !time.Now().Before(s.total) }

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
	s.cancel(str)
	if !s.retried && !s.c.stop.Load() {
		if unsent(err, ph) {
			s.requeue = true
			return stats.FailWrite // unless the worker sends it again (Client.restart)
		}
		if !s.fresh && ph <= phaseHead && s.c.cfg.request(x.Target).idempotent && died(err) {
			s.requeue, s.stale = true, true
			return stats.FailStaleConn
		}
	}
	o, e := s.classify(err, ph)
	if e != nil {
		x.Err = e
	}
	return o
}

// cancel cancels str (nil = none) both ways, so that it frees its
// credit: its connection goes on.
func (s *slot) cancel(str *http3.RequestStream) {
	if str != nil {
		str.CancelRead(quic.StreamErrorCode(http3.ErrCodeRequestCanceled))
		str.CancelWrite(quic.StreamErrorCode(http3.ErrCodeRequestCanceled))
	}
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
func (s *slot) classify(err error, ph phase) (stats.Outcome, error) {
	var se *quic.StreamError
	var ae *quic.ApplicationError
	var te *quic.TransportError
	var sr *quic.StatelessResetError
	switch {
	case s.c.stop.Load():
		return stats.AbortedSignal, nil // the worker relabels it with the stop's cause
	case isTimeout(err):
		return s.timedOut(ph)
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

// timedOut is the outcome of a request that timed out in phase ph. With
// phase timeouts, a request that reached its total (-s) is
// failed.timeout.total, as HTTP/1.1's; the wait for the header section is
// failed.timeout.ttfb, or failed.timeout.headers when only HeaderTimeout
// limits it (see headPhase); the body's, failed.timeout.body.
func (s *slot) timedOut(ph phase) (stats.Outcome, error) {
	cfg := s.c.cfg
	switch {
	case ph == phaseOpen:
		return stats.FailWrite, errNoStream
	case ph == phaseWrite:
		return stats.FailWrite, errWriteTimeout
	case cfg.phased && !time.Now().Before(s.total):
		return stats.TimeoutTotal, errTimeout
	case ph == phaseHead && cfg.Client.FirstByteTimeout <= 0 && cfg.Client.HeaderTimeout > 0:
		return stats.TimeoutHeaders, errTimeout
	case ph == phaseHead:
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
