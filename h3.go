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
	case c.LocalAddr != "":
		return configErr("LocalAddr", "{LocalAddr} is not supported with {Protocol=h3} yet: each QUIC connection binds its own UDP socket on any address")
	case c.SockBuf > 0:
		return configErr("SockBuf", "{SockBuf} is not supported with {Protocol=h3}: quic-go sizes its UDP socket buffers itself")
	case c.FirstByteTimeout > 0 || c.HeaderTimeout > 0 || c.IdleTimeout > 0:
		return configErr("FirstByteTimeout", "{FirstByteTimeout}, {HeaderTimeout} and {IdleTimeout} are not supported with HTTP/3 yet ({Timeout} applies to each request)")
	case len(c.targetList()) > 1:
		return configErr("Targets", "several targets are not supported with HTTP/3 yet: give one URL")
	case c.Compressed:
		return configErr("Compressed", "{Compressed} is not supported with HTTP/3 yet: its client does not decode bodies")
	case c.TLS.NoSNI:
		return configErr("TLS.NoSNI", "{TLS.NoSNI} is not supported with {Protocol=h3}")
	case c.TLS.Protocol != "" && c.TLS.Protocol != "ALL" && c.TLS.Protocol != "TLS1.3":
		return configErr("TLS.Protocol", "{TLS.Protocol} %s cannot apply to {Protocol=h3}: QUIC is TLS 1.3 only", c.TLS.Protocol)
	}
	return nil
}

// newH3 is the HTTP/3 clients' shared configuration, nil for other
// protocols.
func newH3(cfg *Config, req *h1.Request, cc *client.Config) (*h3.Config, error) {
	if !cfg.http3() {
		return nil, nil
	}
	hc, err := h3.NewConfig(cc, req, cfg.streams())
	if err != nil {
		return nil, configErr("", "%v", err)
	}
	return hc, nil
}

// useH3 makes lc's workers HTTP/3 clients when the Plan speaks HTTP/3.
// Their connections are not carried between steps.
func (p *Plan) useH3(lc *load.Config) {
	if p.h3 == nil {
		return
	}
	lc.KeepOpen = false
	lc.NewConn = func(ctx context.Context) load.Conn { return h3.New(ctx, p.h3) }
}
