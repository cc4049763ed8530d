package client

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"time"

	"github.com/gb-bench/gb/internal/evloop"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// Dialer returns the dialer a client whose dials use ctx should use: an
// evloop.Dialer when ctx carries an event-loop task, else a net.Dialer,
// both with the connect timeout, LocalAddr and SockBuf (see dialer). For
// clients of other protocols over the same Config (internal/h2).
func (c *Config) Dialer(ctx context.Context) ContextDialer { return c.dialer(ctx) }

// DialTimeout is the deadline of a dial plus its TLS handshake: the
// connect timeout, else Timeout, else 30 s.
func (c *Config) DialTimeout() time.Duration { return c.connectTimeout() }

// Dial opens a connection to Addr with d and, when TLS is set, runs the
// TLS handshake within the connect timeout, as Fast does: it counts the
// connection in x.Opened (and x.Closed when the handshake fails), sets
// x.Handshake and x.Err, notes the run's first TLS session, and returns
// the connection (a *tls.Conn with TLS) or the failure's outcome.
func (c *Config) Dial(ctx context.Context, d ContextDialer, x *load.Exchange) (net.Conn, stats.Outcome) {
	nc, err := d.DialContext(ctx, "tcp", c.Addr)
	if err != nil {
		x.Err = err
		return nil, classifyDial(err)
	}
	x.Opened++
	if c.TLS == nil {
		return nc, stats.OK
	}
	tc := tls.Client(nc, c.TLS)
	began := time.Now()
	if err = c.handshake(ctx, tc, nc); err != nil {
		_ = nc.Close()
		x.Closed++
		x.Err = err
		if isTimeout(err) || errors.Is(err, context.DeadlineExceeded) {
			return nil, stats.TimeoutTLS
		}
		return nil, stats.FailTLS
	}
	x.Handshake = max(time.Since(began), time.Nanosecond)
	c.noteTLS(tc)
	return tc, stats.OK
}

// handshake runs the TLS handshake within the connect timeout. On the
// event loops it is bounded by the connection's deadline: HandshakeContext
// would close the connection from another goroutine on cancellation, and
// the loop's Interrupt already ends it at a stop.
func (c *Config) handshake(ctx context.Context, tc *tls.Conn, nc net.Conn) error {
	if _, onLoop := nc.(*evloop.Conn); onLoop {
		_ = nc.SetDeadline(time.Now().Add(c.connectTimeout()))
		err := tc.Handshake()
		_ = nc.SetDeadline(time.Time{})
		return err
	}
	hctx, cancel := context.WithTimeout(ctx, c.connectTimeout())
	defer cancel()
	return tc.HandshakeContext(hctx)
}

// IsTimeout reports whether err is a deadline or timeout error.
func IsTimeout(err error) bool { return isTimeout(err) }

// IsPeerGone reports whether err means the server closed or reset the
// connection.
func IsPeerGone(err error) bool { return isPeerGone(err) }
