package gb

import (
	"crypto/tls"
	"net"

	"github.com/gb-bench/gb/internal/load"
)

// Validate reports the first reason c cannot run, as a *ConfigError
// naming the field at fault, without touching the network or the file
// system: the load's shape, the protocol, every target's URL and
// headers, the routing, the TLS settings, the shard's share and the
// script's combinations. NewPlan calls it first; what only I/O finds (a
// host that does not resolve, a file that cannot be read, a script that
// does not compile, the first target of a Targeter) NewPlan finds after.
// nil means NewPlan will not refuse c for its shape.
func (c Config) Validate() error {
	if err := c.checkTargeter(); err != nil {
		return err
	}
	s, err := c.Sharded()
	if err != nil {
		return err
	}
	if err := s.check(); err != nil {
		return err
	}
	if err := c.checkScript(); err != nil {
		return err
	}
	if _, err := c.compileChecks(); err != nil {
		return err
	}
	if err := c.TLS.check(); err != nil {
		return err
	}
	if c.Targeter != nil && c.URL == "" && len(c.Targets) == 0 {
		return nil // its targets are checked as they come
	}
	return c.checkTargets()
}

// checkTargets parses every target and checks what applies to each: its
// protocol, request and route. Errors name a target of Targets by its
// Source.
func (c *Config) checkTargets() error {
	list := c.targetList()
	switch c.Order {
	case "", OrderRoundRobin, OrderRandom:
	default:
		return configErr("Order", "unknown {Order} %q (want %s or %s)", c.Order, OrderRoundRobin, OrderRandom)
	}
	if len(list) > 1 && c.Pipeline > 1 {
		return configErr("Pipeline", "{Pipeline} with several targets is not supported: pipeline one URL at a time")
	}
	for i := range list {
		tc := c.forTarget(&list[i])
		t, err := parseTarget(tc.URL)
		if err == nil {
			t.ownBody = i > 0 || c.URL == ""
			err = c.checkTarget(tc, t)
		}
		if err != nil && (i > 0 || c.URL == "") {
			return targetErr(list[i].source(i), tc.URL, err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkTarget checks one target t, cfg being the Config as it applies to
// it (Config.forTarget).
func (c *Config) checkTarget(cfg *Config, t *target) error {
	if err := c.checkProtocol(t); err != nil {
		return err
	}
	if _, err := buildRequest(cfg, t); err != nil {
		return err
	}
	return checkRoute(cfg, t)
}

// checkRoute checks where t's connections would go: the server name, a
// unix socket's combinations, --connect-to's rules and the proxy.
func checkRoute(cfg *Config, t *target) error {
	switch {
	case cfg.TLS.ServerName != "" && !t.tls:
		return configErr("TLS.ServerName", "{TLS.ServerName} needs an https:// URL")
	case cfg.TLS.ServerName != "" && cfg.TLS.NoSNI:
		return configErr("TLS.ServerName", "{TLS.ServerName} and {TLS.NoSNI} cannot be combined")
	case cfg.UnixSocket != "" || t.socket != "":
		return checkUnix(cfg, t.socket)
	}
	if _, _, err := connectTo(cfg.ConnectTo, t.host, t.port); err != nil {
		return err
	}
	if cfg.Proxy != "" && len(cfg.ConnectTo) > 0 && !t.tls {
		return configErr("ConnectTo", "{ConnectTo} cannot apply through {Proxy} with an http:// URL: the proxy makes the connection")
	}
	if _, _, err := net.SplitHostPort(cfg.Proxy); cfg.Proxy != "" && err != nil {
		return configErr("Proxy", "invalid {Proxy} %q: want proxy:port", hideCredentials(cfg.Proxy))
	}
	if cfg.LocalAddr != "" {
		if _, err := parseSources(cfg.LocalAddr); err != nil {
			return err
		}
	}
	return nil
}

// checkUnix refuses what cannot combine with a unix socket (Config's or
// urlSocket, the http+unix:// URL's).
func checkUnix(cfg *Config, urlSocket string) error {
	switch {
	case urlSocket != "" && cfg.UnixSocket != "" && cfg.UnixSocket != urlSocket:
		return configErr("UnixSocket", "{UnixSocket} %s and the http+unix:// URL's socket differ", cfg.UnixSocket)
	case cfg.Proxy != "":
		return configErr("Proxy", "{Proxy} cannot be combined with a unix socket")
	case len(cfg.ConnectTo) > 0:
		return configErr("ConnectTo", "{ConnectTo} cannot be combined with a unix socket")
	case cfg.LocalAddr != "":
		return configErr("LocalAddr", "{LocalAddr} cannot be combined with a unix socket (it has no local address to bind)")
	}
	return nil
}

// check refuses a TLS protocol or cipher suite Go does not know; the
// files are read when the Plan is made.
func (o TLS) check() error {
	var c tls.Config
	if err := setProtocol(&c, o.Protocol); err != nil {
		return err
	}
	return setCiphers(&c, o.Ciphers)
}

// check applies ab's checks, in ab's order, to the load's shape.
func (c *Config) check() error {
	if c.Concurrency < 0 || c.Concurrency > MaxConcurrency {
		return configErr("Concurrency", "{Concurrency} %d is out of range [1..%d]", c.Concurrency, MaxConcurrency)
	}
	if err := c.checkDecoding(); err != nil {
		return err
	}
	switch c.Engine {
	case "", EngineAuto, EngineLoop, EngineGoroutine, EngineLoopTasks:
	default:
		return configErr("Engine", "unknown {Engine} %q (want auto, loop, loop-tasks or goroutine)", c.Engine)
	}
	if c.Warmup < 0 {
		return configErr("Warmup", "invalid {Warmup} %v", c.Warmup)
	}
	if c.Rate.Freq < 0 || c.Rate.Per < 0 {
		return configErr("Rate", "invalid {Rate} %d/%v", c.Rate.Freq, c.Rate.Per)
	}
	if c.Pipeline > load.MaxPipeline {
		return configErr("Pipeline", "{Pipeline} %d is above the maximum depth, %d", c.Pipeline, load.MaxPipeline)
	}
	if c.Pipeline > 1 && c.Rate.Freq > 0 {
		return configErr("Pipeline", "{Pipeline} and {Rate} cannot be combined (pipelining is closed-loop)")
	}
	if c.Rate.Freq > 0 && c.Duration == 0 && c.Requests == 0 && c.Targeter == nil {
		return configErr("Rate", "{Rate} needs {Requests} or {Duration}: gb never runs unbounded")
	}
	if c.Rate.Freq > 0 && c.Duration > 0 && c.Rate.Within(c.Duration) == 0 {
		return configErr("Rate", "{Rate} %s sends no request within {Duration} %v: its first interval, 1/rate, ends after it", c.Rate.pacer(), c.Duration)
	}
	if (c.Duration > 0 || c.Targeter != nil) && c.Requests == 0 {
		return nil // bounded by the time or the Targeter's end
	}
	if c.Requests <= 0 {
		return configErr("Requests", "invalid {Requests} %d", c.Requests)
	}
	if int64(c.concurrency()) > c.Requests {
		return configErr("Concurrency", "{Concurrency} %d is greater than {Requests} %d", c.concurrency(), c.Requests)
	}
	return nil
}
