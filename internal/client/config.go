package client

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/tls"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gb-bench/gb/internal/check"
	"github.com/gb-bench/gb/internal/evloop"
	"github.com/gb-bench/gb/internal/h1"
)

// Config is what every worker's client shares. It is read-only once the
// run starts. The zero value of each field selects the default beside it.
type Config struct {
	Network    string        // "tcp" or "" (TCP to Addr), or "unix": Addr is then a socket's path
	Addr       string        // host:port to dial (the proxy's with -X), or the unix socket's path
	Tunnel     *Tunnel       // CONNECT through the proxy at Addr before TLS; nil = none
	TLS        *tls.Config   // nil = plain TCP
	Request    []byte        // the request's wire bytes, built once (h1.Request.Append)
	Head       bool          // the request is HEAD: responses have no body
	KeepAlive  bool          // reuse connections (-k); otherwise one request per connection
	Idempotent bool          // the method may be retried after the keep-alive close race
	Timeout    time.Duration // -s: deadline for connect, handshake and each request; 0 = 30 s

	// Phase limits inside Timeout; zero = none beyond Timeout. With any of
	// the last three set, a request's deadline is re-armed at each phase
	// (costlier), and a request that reaches Timeout itself ends as
	// failed.timeout.total.
	ConnectTimeout   time.Duration // dial and TLS handshake; 0 = Timeout
	FirstByteTimeout time.Duration // request written to first response byte
	HeaderTimeout    time.Duration // first byte to end of the header section
	IdleTimeout      time.Duration // longest wait for more body bytes
	SockBuf          int           // -b: SO_SNDBUF and SO_RCVBUF in bytes; 0 = the kernel's
	BufferSize       int           // read buffer per connection in bytes; 0 = h1.DefaultBufferSize
	Limits           h1.Limits     // response limits; zero = h1's defaults
	Decoding                       // --compressed: decode and check bodies (decode.go)
	Checks           *check.Set    // --check: each complete response is checked (check.go); nil = none

	// Targets, when set, are the requests of a run with several targets,
	// indexed by load.Exchange.Target; Request, Head and Idempotent are
	// then unused. nil = one target, Request. Not with pipelining.
	Targets []Target

	// LocalAddrs are -B's addresses (one, a list, a range, or the
	// automatic loopback spread): each worker's dialer takes the next one
	// in turn, so the connections spread over them. Nil = any.
	LocalAddrs []*net.TCPAddr

	tlsOnce    sync.Once
	nagleOnce  sync.Once
	nagle      bool // oneWrite's answer, found once
	tlsInfo    TLSInfo
	batchBytes atomic.Pointer[[]byte]        // the longest pipelined batch built so far
	nextLocal  atomic.Uint32                 // LocalAddrs' next index
	target     atomic.Pointer[evloop.Target] // Addr parsed for the event-loop dialers, once (loopTarget)
	tls12      atomic.Pointer[tls.Config]    // TLS capped at 1.2 once a handshake found the server speaks no TLS 1.3 (tlsConfig); nil = TLS as it is
}

func (c *Config) timeout() time.Duration {
	if c.Timeout <= 0 {
		return 30 * time.Second
	}
	return c.Timeout
}

func (c *Config) connectTimeout() time.Duration {
	if c.ConnectTimeout > 0 {
		return min(c.ConnectTimeout, c.timeout())
	}
	return c.timeout()
}

// phased reports whether requests need per-phase deadlines.
func (c *Config) phased() bool {
	return c.FirstByteTimeout > 0 || c.HeaderTimeout > 0 || c.IdleTimeout > 0
}

// control sets socket buffer sizes on each new socket when SockBuf is set.
func (c *Config) control(bind bool) func(network, address string, rc syscall.RawConn) error {
	if c.SockBuf <= 0 && !bind {
		return nil
	}
	return func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			if bind {
				noPortAtBind(fd)
			}
			if c.SockBuf <= 0 {
				return
			}
			serr = setSockBuf(fd, c.SockBuf)
		})
		if err != nil {
			return err
		}
		return serr
	}
}

// ContextDialer opens connections: *net.Dialer and *evloop.Dialer.
type ContextDialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// TLSInfo describes the first TLS session of a run, for ab's report lines.
type TLSInfo struct {
	Version    string // e.g. "TLSv1.3"
	Cipher     string // IANA name, e.g. "TLS_AES_128_GCM_SHA256"
	KeyBits    int    // server certificate's public key size
	TempKey    string // key exchange in ab's shape, e.g. "X25519 253 bits"; "" when none
	ServerName string // SNI sent; "" when none
}

// TLSSession returns the first handshake's details, and false before any
// handshake completed. Safe to call after the workers stopped.
func (c *Config) TLSSession() (TLSInfo, bool) {
	return c.tlsInfo, c.tlsInfo.Version != ""
}

// noteTLS records the first completed handshake's details.
func (f *Fast) noteTLS(tc *tls.Conn) { f.cfg.noteTLS(tc) }

// noteTLS records the first completed handshake's details.
func (c *Config) noteTLS(tc *tls.Conn) {
	c.tlsOnce.Do(func() { c.setTLS(tc.ConnectionState()) })
}

// NoteTLS records st as the run's first completed handshake unless one
// was recorded: for clients of other transports over the same Config
// (internal/h3's QUIC connections). Called once per connection.
func (c *Config) NoteTLS(st tls.ConnectionState) {
	c.tlsOnce.Do(func() { c.setTLS(st) })
}

// setTLS records st's details for TLSSession.
func (c *Config) setTLS(st tls.ConnectionState) {
	c.tlsInfo = TLSInfo{
		Version:    tlsVersionName(st.Version),
		Cipher:     tls.CipherSuiteName(st.CipherSuite),
		ServerName: st.ServerName,
	}
	c.tlsInfo.TempKey = tempKey(st.CurveID)
	if len(st.PeerCertificates) > 0 {
		c.tlsInfo.KeyBits = keyBits(st.PeerCertificates[0].PublicKey)
	}
}

// tempKey describes a key exchange group as ab's "Server Temp Key" line.
func tempKey(id tls.CurveID) string {
	switch id {
	case 0:
		return ""
	case tls.X25519:
		return "X25519 253 bits"
	case tls.CurveP256:
		return "ECDH P-256 256 bits"
	case tls.CurveP384:
		return "ECDH P-384 384 bits"
	case tls.CurveP521:
		return "ECDH P-521 521 bits"
	}
	return id.String()
}

// keyBits returns the size of a certificate public key in bits.
func keyBits(pub any) int {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return k.N.BitLen()
	case *ecdsa.PublicKey:
		return k.Curve.Params().BitSize
	case ed25519.PublicKey:
		return 253
	}
	return 0
}

// tlsVersionName spells versions as OpenSSL does ("TLSv1.3"), as ab prints.
func tlsVersionName(v uint16) string {
	switch v {
	case tls.VersionTLS10:
		return "TLSv1"
	case tls.VersionTLS11:
		return "TLSv1.1"
	case tls.VersionTLS12:
		return "TLSv1.2"
	case tls.VersionTLS13:
		return "TLSv1.3"
	}
	return tls.VersionName(v)
}

// loopTarget returns c.Addr parsed once for every event-loop Dialer of
// the Config (nil when it is not an IP:port: the dial reports it).
func (c *Config) loopTarget() *evloop.Target {
	if tg := c.target.Load(); tg != nil {
		return tg
	}
	tg, err := evloop.ParseTarget(c.Addr)
	if err != nil {
		return nil
	}
	c.target.Store(tg)
	return tg
}

// maxOneWrite is the longest request oneWrite counts on sending in one
// write: far below any socket's initial send buffer (16 KiB by default).
const maxOneWrite = 4 << 10

// oneWrite reports whether every connection carries one request, sent in
// one write, and nothing else: no keep-alive (so no pipelining), no TLS
// or tunnel (whose handshakes write more than once) and no request longer
// than maxOneWrite. TCP_NODELAY changes nothing on such a connection:
// Nagle's algorithm only holds back a small segment while an earlier
// small one is unacknowledged, and the request is the first. Leaving it
// off, as ab does, saves a system call per request.
func (c *Config) oneWrite() bool {
	c.nagleOnce.Do(func() {
		if c.KeepAlive || c.TLS != nil || c.Tunnel != nil {
			return
		}
		c.nagle = len(c.Request) <= maxOneWrite
		for _, t := range c.Targets {
			c.nagle = c.nagle && len(t.Request) <= maxOneWrite
		}
	})
	return c.nagle
}

// dialer returns the dialer for a Fast whose dials use ctx, with the
// connect timeout, the next of LocalAddrs and SockBuf: an evloop.Dialer when ctx
// carries an event-loop task (load's event-loop engine), else a
// net.Dialer. The engine is chosen in one place, load.Config.Loops.
func (c *Config) dialer(ctx context.Context) ContextDialer {
	local := c.local()
	if t := evloop.FromContext(ctx); t != nil {
		d := &evloop.Dialer{Task: t, Timeout: c.connectTimeout(), LocalAddr: local, SockBuf: c.SockBuf, Nagle: c.oneWrite()}
		if c.Network != "unix" {
			d.Target = c.loopTarget()
		}
		d.Prepare()
		return d
	}
	d := &net.Dialer{Timeout: c.connectTimeout(), Control: c.control(local != nil)}
	if local != nil {
		d.LocalAddr = local
	}
	return d
}
