package gb

// MaxStreams is the most streams per HTTP/2 connection a Config may ask
// for (Config.Streams).
const MaxStreams = 1024

// protocol is c.Protocol spelled as Result.Load.Engine says it.
func (c *Config) protocol() string {
	if c.Protocol == "" {
		return string(ProtocolHTTP1)
	}
	return string(c.Protocol)
}

// http2 reports whether c speaks HTTP/2 (h2 or h2c).
func (c *Config) http2() bool { return c.Protocol == ProtocolHTTP2 || c.Protocol == ProtocolH2C }

// http3 reports whether c speaks HTTP/3.
func (c *Config) http3() bool { return c.Protocol == ProtocolHTTP3 }

// streams is the streams per connection the Result records: 0 for
// HTTP/1.1.
func (c *Config) streams() int {
	if !c.http2() && !c.http3() {
		return 0
	}
	return max(c.Streams, 1)
}

// keepAlive reports whether c's connections carry more than one request:
// KeepAlive, Pipeline and HTTP/2 and HTTP/3 always do.
func (c *Config) keepAlive() bool {
	return c.KeepAlive || c.Pipeline > 1 || c.http2() || c.http3()
}

// checkProtocol refuses what the protocol cannot do with t.
func (c *Config) checkProtocol(t *target) error {
	switch c.Protocol {
	case "", ProtocolHTTP1, ProtocolHTTP2, ProtocolH2C, ProtocolHTTP3:
	default:
		return configErr("Protocol", "unknown {Protocol} %q (want h1, h2, h2c or h3)", c.Protocol)
	}
	switch {
	case c.Streams < 0 || c.Streams > MaxStreams:
		return configErr("Streams", "{Streams} %d is out of range [1..%d]", c.Streams, MaxStreams)
	case c.http3():
		return c.checkHTTP3(t)
	case !c.http2() && c.Streams > 1:
		return configErr("Streams", "{Streams} is HTTP/2's and HTTP/3's: add {Protocol=h2} (https://), {Protocol=h2c} (http://) or {Protocol=h3} (https://)")
	case !c.http2():
		return nil
	case c.Protocol == ProtocolHTTP2 && !t.tls:
		return configErr("Protocol", "{Protocol=h2} needs an https:// URL (use {Protocol=h2c} for HTTP/2 over cleartext)")
	case c.Protocol == ProtocolH2C && t.tls:
		return configErr("Protocol", "{Protocol=h2c} needs an http:// URL (use {Protocol=h2} for HTTP/2 over TLS)")
	case c.Pipeline > 1:
		return configErr("Pipeline", "{Pipeline} is HTTP/1.1's: use {Streams} with HTTP/2")
	case c.Proxy != "" && !t.tls:
		return configErr("Proxy", "{Proxy} is not supported with {Protocol=h2c}: an http:// URL goes to the proxy as a forwarded HTTP/1.1 request, and gb tunnels (CONNECT) only https:// URLs; use {Protocol=h2} with an https:// URL")
	}
	return nil
}

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
