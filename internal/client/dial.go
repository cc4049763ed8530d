package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/gb-bench/gb/internal/evloop"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// Tunnel is an HTTP proxy's CONNECT tunnel (RFC 9110 §9.3.6): each new
// connection dials the proxy (Config.Addr), asks it to CONNECT to Target
// and, once it answers 2xx, speaks TLS to the target through it. A Tunnel
// is read-only once the run starts; the zero value of Auth sends no
// credentials.
type Tunnel struct {
	Target string // "host:port" the proxy connects to: CONNECT's request target and Host
	Auth   string // "user:password" sent as Basic Proxy-Authorization; "" = none

	once sync.Once
	req  []byte // the CONNECT request's bytes, built once
}

// request returns the CONNECT request's wire bytes.
func (t *Tunnel) request() []byte {
	t.once.Do(func() {
		b := []byte("CONNECT " + t.Target + " HTTP/1.1\r\nHost: " + t.Target + "\r\n")
		if t.Auth != "" {
			b = append(b, "Proxy-Authorization: Basic "+base64.StdEncoding.EncodeToString([]byte(t.Auth))+"\r\n"...)
		}
		t.req = append(b, "\r\n"...)
	})
	return t.req
}

// maxConnectReply bounds the proxy's answer to CONNECT, in bytes.
const maxConnectReply = 16 << 10

// Dial opens one connection as the run's connections are opened: with d
// (Dialer), to the socket Network and Addr name, through the Tunnel when
// one is set, then the TLS handshake when TLS is set, all within the
// connect timeout. It counts the connection in x.Opened once it is usable
// (a connection whose tunnel or handshake fails is closed and counted
// neither opened nor closed), sets x.Handshake, x.Resumed and x.Err, notes the
// run's first TLS session, and returns the connection (a *tls.Conn with
// TLS; the caller owns it) or the failure's outcome. Dial is what another
// protocol's client (internal/h2) calls to reach the server as Fast does.
func (c *Config) Dial(ctx context.Context, d ContextDialer, x *load.Exchange) (net.Conn, stats.Outcome) {
	nc, o := c.open(ctx, d, x)
	if tc, ok := nc.(*tls.Conn); ok {
		c.noteTLS(tc)
	}
	return nc, o
}

// Dialer returns the dialer a client whose dials use ctx should use: an
// evloop.Dialer when ctx carries an event-loop task, else a net.Dialer,
// both with the connect timeout, the local address and SockBuf. For
// clients of other protocols over the same Config (internal/h2).
func (c *Config) Dialer(ctx context.Context) ContextDialer { return c.dialer(ctx) }

// DialTimeout is the deadline of a dial plus its TLS handshake: the
// connect timeout, else Timeout, else 30 s.
func (c *Config) DialTimeout() time.Duration { return c.connectTimeout() }

// IsTimeout reports whether err is a deadline or timeout error.
func IsTimeout(err error) bool { return isTimeout(err) }

// IsPeerGone reports whether err means the server closed or reset the
// connection.
func IsPeerGone(err error) bool { return isPeerGone(err) }

// open dials with d, tunnels and handshakes a new connection, noting in x
// what it opened and closed, the handshake's duration and, on failure,
// the error. The outcome is stats.OK or the failure's. A plain TCP dial
// stays shallow (open, then the dialer): on the event loop it
// runs on the task's 2 KiB coroutine stack, which a deeper call would
// grow to 4 KiB for the rest of the run.
func (c *Config) open(ctx context.Context, d ContextDialer, x *load.Exchange) (net.Conn, stats.Outcome) {
	var nc net.Conn
	var err error
	if c.Network != "unix" {
		nc, err = d.DialContext(ctx, "tcp", c.Addr)
	} else {
		nc, err = c.dialUnix(ctx, d)
	}
	if err != nil {
		return nil, c.dialFailed(err, x)
	}
	if c.Tunnel == nil && c.TLS == nil {
		x.Opened++
		return nc, stats.OK
	}
	nc, o := c.secure(ctx, nc, x)
	if o == stats.OK {
		x.Opened++ // a connection the requests can use: its tunnel and handshake done
	}
	return nc, o
}

// dialFailed notes a failed dial's error in x and returns its outcome. A
// dial that ends in a reset had its handshake done: the server accepted
// and reset the connection before the dial returned, which is
// failed.reset, as when the reset comes after it (both engines see either,
// by timing).
func (c *Config) dialFailed(err error, x *load.Exchange) stats.Outcome {
	x.Err = err
	if c.Network == "unix" {
		x.Err = &dialError{"cannot connect to unix socket " + c.Addr, cause(err)}
	}
	if errors.Is(err, syscall.ECONNRESET) {
		return stats.FailReset
	}
	return classifyDial(err)
}

// secure tunnels (CONNECT) and handshakes (TLS) the new connection nc, as
// the Config asks; on failure it closes nc.
func (c *Config) secure(ctx context.Context, nc net.Conn, x *load.Exchange) (net.Conn, stats.Outcome) {
	if c.Tunnel != nil {
		if err := c.Tunnel.open(ctx, nc, c.connectTimeout()); err != nil {
			_ = nc.Close()
			x.Err = err
			return nil, classifyDial(err)
		}
	}
	if c.TLS == nil {
		return nc, stats.OK
	}
	tcfg := c.tlsConfig()
	tc := tls.Client(nc, tcfg)
	began := time.Now()
	if err := c.handshake(ctx, tc, nc); err != nil {
		_ = nc.Close()
		x.Err = err
		if isTimeout(err) || errors.Is(err, context.DeadlineExceeded) {
			return nil, stats.TimeoutTLS
		}
		return nil, stats.FailTLS
	}
	x.Handshake = max(time.Since(began), time.Nanosecond)
	st := tc.ConnectionState()
	x.Resumed = st.DidResume
	if tcfg == c.TLS && st.Version < tls.VersionTLS13 {
		c.capTLS12()
	}
	return tc, stats.OK
}

// tlsConfig is the TLS configuration of the next handshake: c.TLS, or
// once a handshake found that the server speaks no TLS 1.3, c.TLS capped
// at TLS 1.2. A ClientHello that offers TLS 1.3 carries key shares (Go's
// X25519MLKEM768 and X25519: an ML-KEM and an X25519 key pair made for
// each), which a TLS 1.2 server ignores; with resumed TLS 1.2 handshakes,
// making them was most of gb's CPU per connection. The server negotiates
// the same TLS 1.2 handshake either way.
func (c *Config) tlsConfig() *tls.Config {
	if t := c.tls12.Load(); t != nil {
		return t
	}
	return c.TLS
}

// capTLS12 makes the next handshakes offer TLS 1.2 at most, when c.TLS
// offers TLS 1.3 and a handshake with it negotiated an earlier version:
// a server that speaks TLS 1.3 answers a ClientHello offering it with it
// (RFC 8446 §4.1.3: Go's client refuses a downgrade), so this one speaks
// 1.2 at most. Once per run; the clone shares c.TLS's session cache.
func (c *Config) capTLS12() {
	if m := c.TLS.MaxVersion; (m != 0 && m < tls.VersionTLS13) || c.tls12.Load() != nil {
		return
	}
	t := c.TLS.Clone()
	t.MaxVersion = tls.VersionTLS12
	c.tls12.CompareAndSwap(nil, t)
}

// dialUnix connects to the unix socket c.Addr. A listener whose backlog is
// full refuses a non-blocking connect at once (EAGAIN) where a blocking
// one would wait for room: such a dial is tried again, after a pause that
// doubles from 50 µs to 5 ms, until the connect timeout.
func (c *Config) dialUnix(ctx context.Context, d ContextDialer) (net.Conn, error) {
	nc, err := d.DialContext(ctx, "unix", c.Addr)
	deadline := time.Now().Add(c.connectTimeout())
	for wait := 50 * time.Microsecond; errors.Is(err, syscall.EAGAIN) && ctx.Err() == nil; wait = min(2*wait, 5*time.Millisecond) {
		if time.Now().Add(wait).After(deadline) {
			return nil, err // a timeout: EAGAIN is one
		}
		pause(ctx, wait)
		nc, err = d.DialContext(ctx, "unix", c.Addr)
	}
	return nc, err
}

// pause waits for d or until ctx ends: on the event-loop task ctx carries
// (the loop runs its other tasks meanwhile), else on a timer.
func pause(ctx context.Context, d time.Duration) {
	if t := evloop.FromContext(ctx); t != nil {
		t.Sleep(d)
		return
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-ctx.Done():
	}
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

// open asks the proxy on nc for the tunnel and reads its answer, within
// timeout; off the event loops, ctx's end also ends the wait (on a loop,
// the loop's Interrupt does).
func (t *Tunnel) open(ctx context.Context, nc net.Conn, timeout time.Duration) error {
	_ = nc.SetDeadline(time.Now().Add(timeout))
	defer nc.SetDeadline(time.Time{})
	if _, onLoop := nc.(*evloop.Conn); !onLoop {
		stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(aLongTimeAgo) })
		defer stop()
	}
	_, err := nc.Write(t.request())
	if err == nil {
		err = readConnectReply(nc)
	} else {
		err = &dialError{"cannot send CONNECT to the proxy", cause(err)}
	}
	if err != nil && ctx.Err() != nil {
		return &dialError{"stopped during CONNECT", ctx.Err()}
	}
	return err
}

// errProxyClosed is a proxy that closed the connection without answering.
var errProxyClosed = errors.New("proxy closed the connection before answering CONNECT")

// readConnectReply reads the proxy's answer to CONNECT: its header
// section and, after a 2xx, which opens the tunnel, nothing more (the TLS
// server speaks only after the client's hello). Any other status is an
// error that names it; the body that may follow a refusal is not read.
func readConnectReply(nc net.Conn) error {
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= maxConnectReply {
				return errors.New("proxy's answer to CONNECT is over 16 KiB")
			}
			buf = slices.Grow(buf, len(buf))
		}
		n, err := nc.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if end := headerEnd(buf); end > 0 {
			if err := connectStatus(buf[:end]); err != nil {
				return err // a refusal may come with a body: it is not read
			}
			if end < len(buf) {
				return errors.New("proxy sent bytes after its answer to CONNECT")
			}
			return nil
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF) && len(buf) == 0:
			return errProxyClosed
		case errors.Is(err, io.EOF):
			return errors.New("proxy closed the connection inside its answer to CONNECT")
		default:
			return &dialError{"proxy did not answer CONNECT", cause(err)}
		}
	}
}

// headerEnd returns the length of the header section at the start of b,
// through its empty line (CRLF or a bare LF), or 0 when it is incomplete.
func headerEnd(b []byte) int {
	for i := bytes.IndexByte(b, '\n'); i >= 0; {
		rest := b[i+1:]
		switch {
		case bytes.HasPrefix(rest, []byte("\r\n")):
			return i + 3
		case bytes.HasPrefix(rest, []byte("\n")):
			return i + 2
		}
		j := bytes.IndexByte(rest, '\n')
		if j < 0 {
			return 0
		}
		i += j + 1
	}
	return 0
}

// connectStatus checks the status line of the proxy's answer.
func connectStatus(head []byte) error {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	version, rest, _ := bytes.Cut(line, []byte(" "))
	code, reason, _ := bytes.Cut(rest, []byte(" "))
	status, err := strconv.Atoi(string(code))
	if !bytes.HasPrefix(version, []byte("HTTP/1.")) || len(code) != 3 || err != nil {
		return errors.New("proxy's answer to CONNECT is not HTTP: " + strconv.QuoteToASCII(string(line)))
	}
	if status < 200 || status > 299 {
		return errors.New("proxy refused CONNECT: " + strconv.Itoa(status) + " " + stats.Printable(string(reason)))
	}
	return nil
}

// dialError is a failure to reach the server, told in gb's words (msg)
// around the system's cause. It unwraps to the cause, so that it
// classifies as the cause does, but not to the *net.OpError the cause came
// in, whose addresses the error tallies leave out.
type dialError struct {
	msg string
	err error
}

func (e *dialError) Error() string { return e.msg + ": " + e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// cause returns the system error inside err's *net.OpError and
// *os.SyscallError wrappers.
func cause(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		err = op.Err
	}
	var sc *os.SyscallError
	if errors.As(err, &sc) && sc.Err != nil {
		err = sc.Err
	}
	return err
}
