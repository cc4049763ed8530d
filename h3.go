package gb

import (
	"context"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/h3"
	"github.com/gb-bench/gb/internal/load"
)

// ProtocolHTTP3 is HTTP/3 over QUIC (Config.Protocol): https:// URLs,
// UDP to the URL's port, ALPN "h3".
const ProtocolHTTP3 Protocol = "h3"

// http3 reports whether c speaks HTTP/3.
func (c *Config) http3() bool { return c.Protocol == ProtocolHTTP3 }

// checkHTTP3 refuses what HTTP/3 cannot do with t: each refusal says why
// the field cannot apply.
func (c *Config) checkHTTP3(t *target) error {
	switch {
	case !t.tls:
		return configErr("Protocol", "{Protocol=h3} needs an https:// URL: QUIC is always encrypted (TLS 1.3)")
	case c.UnixSocket != "":
		return configErr("UnixSocket", "{UnixSocket} cannot apply to {Protocol=h3}: QUIC runs over UDP to a host and port")
	case c.Proxy != "":
		return configErr("Proxy", "{Proxy} cannot apply to {Protocol=h3}: an HTTP proxy's CONNECT tunnel carries TCP, and QUIC runs over UDP")
	case c.Pipeline > 1:
		return configErr("Pipeline", "{Pipeline} is HTTP/1.1's: use {Streams} with HTTP/3")
	case (c.FirstByteTimeout > 0 || c.HeaderTimeout > 0 || c.IdleTimeout > 0) && c.sendsBody():
		return configErr("FirstByteTimeout", "{FirstByteTimeout}, {HeaderTimeout} and {IdleTimeout} cannot apply over {Protocol=h3} to a request with a body: quic-go's RoundTrip sends it and keeps its stream to itself, so only {Timeout} limits it")
	case c.TLS.NoSNI:
		return configErr("TLS.NoSNI", "{TLS.NoSNI} is not supported with {Protocol=h3}")
	case c.TLS.Protocol != "" && c.TLS.Protocol != "ALL" && c.TLS.Protocol != "TLS1.3":
		return configErr("TLS.Protocol", "{TLS.Protocol} %s cannot apply to {Protocol=h3}: QUIC is TLS 1.3 only", c.TLS.Protocol)
	}
	return nil
}

// sendsBody reports whether a target of c has a request body.
func (c *Config) sendsBody() bool {
	for _, t := range c.targetList() {
		if t.Body != nil {
			return true
		}
	}
	return false
}

// newH3 is the HTTP/3 clients' shared configuration, nil for other
// protocols: req sent to cc, or each of m's targets to its address.
func newH3(cfg *Config, req *h1.Request, cc *client.Config, m *multiTarget) (*h3.Config, error) {
	if !cfg.http3() {
		return nil, nil
	}
	ccs, targets := []*client.Config{cc}, []h3.Target{{Request: req, Idempotent: cc.Idempotent}}
	if m != nil {
		ccs, targets = m.clients, make([]h3.Target, len(m.h2))
		for i, t := range m.h2 {
			targets[i] = h3.Target{Request: t.Request, Addr: m.addrOf[i], Idempotent: t.Idempotent}
		}
	}
	hc, err := h3.NewConfigTargets(ccs, targets, cfg.streams())
	if err != nil {
		return nil, configErr("", "%v", err)
	}
	return hc, nil
}

// useH3 makes lc's workers HTTP/3 clients when the Plan speaks HTTP/3
// (each keeps a connection to each of the targets' addresses it sends
// to): the pool's when pooled (a ramp's steps: Carry, or connections the
// last step left), which carry them to the next run with carry.
func (p *Plan) useH3(lc *load.Config, pooled, carry bool) {
	if p.h3 == nil {
		return
	}
	if pooled {
		lc.KeepOpen, lc.NewConn = carry, p.pool.newConn
		return
	}
	lc.KeepOpen = false
	lc.NewConn = func(ctx context.Context) load.Conn { return h3.New(ctx, p.h3) }
}
