package client

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/gb-bench/gb/internal/decode"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// failWrite classifies a failed request write. On a reused connection an
// EPIPE or reset is the keep-alive close race (the server closed the idle
// connection): the request may go again on a new connection.
func (f *Fast) failWrite(x *load.Exchange, err error, reused bool) (stats.Outcome, bool) {
	f.drop(x)
	x.Err = err
	if reused && !f.stop.Load() && isPeerGone(err) {
		return f.stale()
	}
	if isTimeout(err) {
		x.Err = errWriteTimeout
		return f.timeout(stats.FailWrite), false
	}
	return stats.FailWrite, false
}

// errWriteTimeout is the error of a request whose write did not finish
// in time: the server stopped reading it (a large body it never reads).
var errWriteTimeout = errors.New("request write timed out (the server stopped reading it)")

// failRead classifies a failed response read by how far the response got.
func (f *Fast) failRead(x *load.Exchange, err error, reused bool) (stats.Outcome, bool) {
	if f.cfg.Compressed && decode.IsError(err) { // errors.As runs deep: not on every failure
		return f.failDecode(x, err) // the response was whole: the connection may stay
	}
	f.drop(x)
	x.Err = err
	if !f.rd.Started() {
		switch {
		case isTimeout(err):
			return f.timeout(stats.TimeoutFirstByte), false
		case reused && !f.stop.Load() && (err == io.EOF || isPeerGone(err)):
			return f.stale()
		case err == io.EOF:
			return stats.FailProtocol, false // a new connection closed with no reply
		}
		return stats.FailReset, false
	}
	switch {
	case h1.IsProtocol(err):
		return stats.FailProtocol, false
	case errors.Is(err, h1.ErrTruncated):
		return stats.FailTruncated, false
	case isTimeout(err) && x.Status == 0:
		return f.timeout(stats.TimeoutHeaders), false
	case isTimeout(err):
		return f.timeout(stats.TimeoutBody), false
	}
	return stats.FailReset, false
}

// stale decides the keep-alive close race: idempotent requests are retried
// once (RFC 9112 §9.3.1), others fail as stale_conn.
func (f *Fast) stale() (stats.Outcome, bool) {
	return stats.FailStaleConn, f.idempotent()
}

// classifyDial maps a dial error to its outcome.
func classifyDial(err error) stats.Outcome {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return stats.FailDNS
	case isTimeout(err):
		return stats.TimeoutConnect
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE),
		errors.Is(err, syscall.EADDRNOTAVAIL), errors.Is(err, syscall.ENOBUFS):
		return stats.FailLocal
	}
	return stats.FailConnect
}

// isTimeout reports whether err is a deadline or timeout error.
func isTimeout(err error) bool {
	if oe, ok := err.(*net.OpError); ok && oe.Err == os.ErrDeadlineExceeded {
		return true // the common case (a deadline, a run's end) without errors.As, which runs deep
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isPeerGone reports whether err means the server closed or reset the
// connection.
func isPeerGone(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, io.EOF)
}
