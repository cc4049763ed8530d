package h3

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
	"github.com/quic-go/quic-go"
)

// connect opens a QUIC connection to address a from a socket of its own
// and makes it current: x.Connected is when the handshake (QUIC's and TLS's, one
// exchange) completed, or, with early data, when the client could send
// its 0-RTT request; x.Handshake is the time it took. It reports false
// with the failure's outcome, x.Err set.
func (c *Client) connect(x *load.Exchange, a int) (stats.Outcome, bool) {
	if c.stop.Load() {
		return stats.AbortedSignal, false // the worker relabels it with the stop's cause
	}
	ad := &c.cfg.addrs[a]
	udp, err := net.ListenUDP("udp", c.cfg.localAddr())
	if err != nil {
		x.Err = err
		return stats.FailLocal, false
	}
	c.cfg.sizeBuffers(udp) // kept through the handshake when at least quic-go's own size
	tr := &quic.Transport{Conn: udp}
	ctx, cancel := context.WithTimeout(c.ctx, c.cfg.Client.DialTimeout())
	var qc *quic.Conn
	if c.cfg.EarlyData {
		qc, err = tr.DialEarly(ctx, ad.raddr, ad.tls, c.cfg.quic)
	} else {
		qc, err = tr.Dial(ctx, ad.raddr, ad.tls, c.cfg.quic)
	}
	cancel()
	if err != nil {
		_ = tr.Close()
		_ = udp.Close()
		return c.dialFailed(err, x), false
	}
	x.Connected = clock.Read()
	x.Handshake = x.Connected.Sub(x.Start)
	c.cfg.sizeBuffers(udp)
	x.Opened++
	st := qc.ConnectionState()
	x.Resumed = st.TLS.DidResume || st.Used0RTT
	if st.TLS.HandshakeComplete {
		c.cfg.Client.NoteTLS(st.TLS)
	}
	cn := &conn{udp: udp, addr: a, tr: tr, qc: qc, hc: c.cfg.tr.NewClientConn(qc)}
	c.cur[a] = cn
	c.live[a].Store(cn)
	if c.stop.Load() { // Interrupt ran before live was set
		_ = qc.CloseWithError(0, "")
	}
	x.Ready()
	return stats.OK, true
}

// dialFailed notes a failed QUIC dial's error in x and returns its
// outcome: the handshake's timeout (the server never answered: nothing
// listens on the UDP port, or packets are lost) is timeout.connect; a TLS
// alert (a certificate, no common ALPN protocol) is failed.tls; a server
// that refused is failed.connect.
func (c *Client) dialFailed(err error, x *load.Exchange) stats.Outcome {
	x.Err = err
	var hto *quic.HandshakeTimeoutError
	var ito *quic.IdleTimeoutError
	var te *quic.TransportError
	switch {
	case c.stop.Load():
		return stats.AbortedSignal
	case errors.As(err, &hto), errors.As(err, &ito), errors.Is(err, context.DeadlineExceeded):
		x.Err = errNoHandshake
		return stats.TimeoutConnect
	case errors.As(err, &te) && te.ErrorCode.IsCryptoError():
		if te.ErrorCode == alertNoALPN {
			x.Err = &load.Fatal{Err: fmt.Errorf("the server does not speak HTTP/3 (ALPN h3) on this port: %w", err)}
		}
		return stats.FailTLS
	case isTLSError(err):
		return stats.FailTLS
	}
	return stats.FailConnect
}

// alertNoALPN is the CRYPTO_ERROR of TLS's no_application_protocol alert
// (0x100 + 120, RFC 9001 §4.8).
const alertNoALPN = 0x100 + 120

var errNoHandshake = errors.New("no QUIC handshake in time (no answer on the UDP port)")

// isTLSError reports whether err is a certificate verification failure
// found by the client itself.
func isTLSError(err error) bool {
	var ve *tls.CertificateVerificationError
	return errors.As(err, &ve)
}

// localAddr is the local address of the next connection's UDP socket:
// Client.LocalAddrs' next one in turn (its port left to the system), or
// nil (any) without them.
func (c *Config) localAddr() *net.UDPAddr {
	l := c.Client.LocalAddrs
	if len(l) == 0 {
		return nil
	}
	a := l[int(c.local.Add(1)-1)%len(l)]
	return &net.UDPAddr{IP: a.IP, Zone: a.Zone}
}

// sizeBuffers gives udp the receive and send buffers of Client.SockBuf
// (gb -b; 0 = leave them). quic-go enlarges a new socket's buffers to its
// own size (7 MiB) when its first dial starts, so a smaller SockBuf is
// set again once the handshake completed: the requests run with it, the
// handshake with quic-go's. Errors are ignored, as quic-go ignores its
// own (the kernel caps the sizes at net.core.rmem_max and wmem_max).
func (c *Config) sizeBuffers(udp *net.UDPConn) {
	if n := c.Client.SockBuf; n > 0 {
		_ = udp.SetReadBuffer(n)
		_ = udp.SetWriteBuffer(n)
	}
}
