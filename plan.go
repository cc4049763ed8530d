package gb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/gb-bench/gb/internal/check"
	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/evloop"
	"github.com/gb-bench/gb/internal/h2"
	"github.com/gb-bench/gb/internal/h3"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/profile"
	"github.com/gb-bench/gb/internal/script"
	"github.com/gb-bench/gb/stats"
)

// A Plan is a Config checked and made ready to run: the URL parsed, the
// host resolved (so no request waits on DNS), the request's bytes built,
// TLS configured and the engine chosen. NewPlan does all the checking
// that can be done before the first connection; Run then only fails on
// what happens under load. A Plan may run several loads in turn (Run,
// Step) but only one at a time; Close releases the connections it keeps
// between them.
type Plan struct {
	cfg    Config
	whole  Config // cfg before its shard's share was taken (Step's base)
	opts   options
	target *target
	req    []byte
	client *client.Config
	loops  int // event loops; 0 = a goroutine per connection
	pool   *connPool
	multi  *multiTarget    // several targets (multi.go); nil = one
	lazy   *lazyTargets    // Config.Targeter's (lazy.go); nil = none
	h2     *h2.Config      // HTTP/2 clients' configuration; nil = HTTP/1.1
	h3     *h3.Config      // HTTP/3 clients' configuration; nil = not HTTP/3
	script *script.Program // Config.Script compiled; nil = none
	checks *check.Set      // Config.Checks parsed; nil = none
}

// Run checks cfg, runs its load until its budget, its time limit or ctx
// ends it, and returns the result. Cancelling ctx stops the load as a
// signal does: the result is still complete. Errors are those of NewPlan;
// once the load starts, failures are counted in the Result, not returned.
func Run(ctx context.Context, cfg Config, opts ...Option) (*Result, error) {
	p, err := NewPlan(cfg, opts...)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.Run(ctx)
}

// NewPlan checks cfg and prepares it. Its errors are one line each; a
// *ConfigError is the caller's mistake (the command line exits 22 on it).
// The options apply to every run of the Plan.
func NewPlan(cfg Config, opts ...Option) (*Plan, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	lazy, err := cfg.startLazy()
	if err != nil {
		return nil, err
	}
	if lazy != nil {
		if err := cfg.checkTargets(); err != nil { // the Targeter's first target
			return nil, err
		}
	}
	t, err := cfg.parseFirst()
	if err != nil {
		return nil, err
	}
	whole := cfg
	if cfg, err = cfg.Sharded(); err != nil {
		return nil, err
	}
	p := &Plan{cfg: cfg, whole: whole, target: t}
	if p.script, err = cfg.compileScript(t); err != nil {
		return nil, err
	}
	if p.checks, err = cfg.compileChecks(); err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(&p.opts)
	}
	if err := p.opts.checkProfile(t, cfg.TLS); err != nil {
		return nil, err
	}
	if n := runtime.NumCPU(); cfg.CPUs > n {
		p.opts.warn(fmt.Sprintf("Config.CPUs %d: this machine has %d cores; using %d", cfg.CPUs, n, n))
		p.cfg.CPUs, p.whole.CPUs = n, n
	}
	if err := checkFileLimit(cfg.concurrency()); err != nil {
		return nil, err
	}
	req, err := buildRequest(cfg.firstTarget(), t)
	if err != nil {
		return nil, cfg.firstErr(err)
	}
	p.req = req.Append(nil)
	if p.client, err = p.clientConfig(cfg.firstTarget(), t); err != nil {
		return nil, cfg.firstErr(err)
	}
	if p.multi, err = prepareTargets(&p.cfg, cfg.firstTarget(), p.client, p.clientConfig); err != nil {
		return nil, err
	}
	lazy.attach(&p.cfg, p.target, p.client, p.clientConfig)
	p.lazy = lazy
	if p.h2, err = newH2(&cfg, t, req, p.client, p.multi); err != nil {
		return nil, err
	}
	if p.h3, err = newH3(&cfg, req, p.client, p.multi); err != nil {
		return nil, err
	}
	if err := p.chooseEngine(); err != nil {
		return nil, err
	}
	p.pool = newConnPool(p.client, p.h2, p.h3)
	return p, nil
}

// Request returns the request's wire bytes (headers and body) as every
// worker sends them (the first target's, with several), credentials
// included. The caller must not modify it.
func (p *Plan) Request() []byte { return p.req }

// Config returns the Config the Plan was made from; with Config.Shard
// set, its Requests, Rate and Concurrency are this shard's share.
func (p *Plan) Config() Config { return p.cfg }

// Load describes the load the Plan asks for, as its Results will
// (Result.Load).
func (p *Plan) Load() stats.Load { return p.base(&p.cfg, &p.opts).Load }

// Addr returns the address the load connects to: the target's (or the
// proxy's, or the --connect-to address's) IP and port, or the unix
// socket's path.
func (p *Plan) Addr() string { return p.client.Addr }

// UnixSocket returns the path of the unix socket the Plan's connections
// go to (Config.UnixSocket, or the http+unix:// URL's), or "" over TCP.
func (p *Plan) UnixSocket() string {
	if p.client.Network == "unix" {
		return p.client.Addr
	}
	return ""
}

// Targets returns the Plan's targets as "METHOD URL" (the URL without
// credentials), in the load's order; one for a Plan of one target.
func (p *Plan) Targets() []string {
	if p.multi == nil {
		return []string{p.cfg.firstTarget().method() + " " + p.target.url.Redacted()}
	}
	out := make([]string, len(p.multi.names))
	for i, n := range p.multi.names {
		out[i] = n.Method + " " + n.URL
	}
	return out
}

// Engine returns the engine the Plan runs on: EngineLoop, EngineLoopTasks
// or EngineGoroutine.
func (p *Plan) Engine() Engine {
	if p.loops > 0 && p.cfg.Engine == EngineLoopTasks {
		return EngineLoopTasks
	}
	if p.loops > 0 {
		return EngineLoop
	}
	return EngineGoroutine
}

// Procs is the GOMAXPROCS the load wants: the cores it may use (Config.CPUs
// or its default), plus one with the event loops, whose goroutines block
// in epoll_wait. The spare P keeps the runtime from handing a loop's P to
// another thread while it waits (sysmon retakes a P from a syscall only
// when no P is idle), which would cost a thread wake-up per wait.
func (p *Plan) Procs() int {
	if p.loops > 0 {
		return p.cpus() + 1
	}
	return p.cpus()
}

// Cores is how many cores the load may use: the event loops, or the
// goroutine engine's GOMAXPROCS. gb's CPU in cores is read against it
// (Result.Client.MaxProcs, the report's "cpu=0.45 cores (of 1)", the live
// panel); gb's housekeeping on the loops' spare P (Procs) is counted in
// that CPU too, so a run may show a little more than Cores.
func (p *Plan) Cores() int { return p.cpus() }

// Held is how many connections the Plan keeps open for its next run
// (Carry).
func (p *Plan) Held() int { return p.pool.held() }

// Close closes the connections the Plan keeps between runs (Carry). It is
// safe to call more than once.
func (p *Plan) Close() error {
	p.pool.close()
	return nil
}

// Run runs the Plan's load until its budget, its time limit or ctx ends
// it, and returns the result. Cancelling ctx stops the load as a signal
// does (Result.StoppedBy is stats.StopSignal): requests in flight end as
// aborted and the result is complete. opts add to the Plan's options for
// this run. With Config.StartAt in the future, Run first waits until
// then; cancelling ctx during the wait returns ctx's error and no Result.
func (p *Plan) Run(ctx context.Context, opts ...Option) (*Result, error) {
	if err := WaitUntil(ctx, p.cfg.StartAt); err != nil {
		return nil, err
	}
	return p.run(ctx, p.cfg, opts)
}

// WaitUntil returns at the instant at (at once when it is zero or past),
// or, when ctx ends first, with an error saying so that wraps ctx's
// cause. A Plan waits for Config.StartAt with it; a caller that runs
// steps (a ramp) waits for its own start the same way.
func WaitUntil(ctx context.Context, at time.Time) error {
	d := time.Until(at)
	if at.IsZero() || d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("stopped before the start time %s: %w", at.Format(time.RFC3339Nano), context.Cause(ctx))
	}
}

// Step is what one step of a Plan may change (Plan.Step, gb ramp's and gb
// capacity's steps): the size of the load. Its numbers are the whole
// load's, as in a Config; a Plan with Config.Shard runs its shard's share.
// Everything else (the target, the request, Warmup, timeouts) is the
// Plan's.
type Step struct {
	Concurrency int           // connections; 0 = the Plan's Config.Concurrency
	Requests    int64         // requests to send; 0 = no count limit (then Duration must be set)
	Duration    time.Duration // time limit; 0 = none (then Requests must be set)
	Rate        Rate          // rate mode's requests per period; the zero Rate = the Plan's Config.Rate
}

// Step runs the load s on the Plan's target, request and connections:
// the Plan's Config with s's load. Step does not wait for StartAt. On the
// event loops a step may not have more connections than the Plan.
func (p *Plan) Step(ctx context.Context, s Step, opts ...Option) (*Result, error) {
	cfg := p.whole
	cfg.Requests, cfg.Duration = s.Requests, s.Duration
	if s.Concurrency != 0 {
		cfg.Concurrency = s.Concurrency
	}
	if s.Rate != (Rate{}) {
		cfg.Rate = s.Rate
	}
	cfg, err := cfg.Sharded()
	if err != nil {
		return nil, err
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if p.loops > 0 && cfg.concurrency() > p.cfg.concurrency() {
		return nil, errors.New("Plan.Step: a step on the event loops may not exceed the Plan's Config.Concurrency")
	}
	return p.run(ctx, cfg, opts)
}

// run is one load of cfg: the engine, gb's own cost around it and the
// server profile beside it, merged into one Result.
func (p *Plan) run(ctx context.Context, cfg Config, extra []Option) (*Result, error) {
	o := p.opts
	for _, opt := range extra {
		opt(&o)
	}
	var capture atomic.Pointer[profile.Capture]
	lc := p.loadConfig(&cfg, &o, &capture)
	var m measure
	if cfg.Warmup > 0 {
		lc.OnMeasure = func() { m.begin(true) } // the engine copies lc: set before New
	}
	var group *script.Group
	if p.script != nil {
		var err error
		newClient := func() (*client.Config, error) { return p.clientConfig(p.cfg.firstTarget(), p.target) }
		if group, err = scriptLoad(&lc, p.script, p.client, newClient); err != nil {
			return nil, err
		}
		defer func() {
			if group != nil { // nil once handed to WithScriptDone's caller
				group.Close()
			}
		}()
	}
	run, err := load.New(lc)
	if err != nil {
		return nil, err
	}
	if group != nil {
		group.OnError = func(err error) { run.Stop(stats.StopError, err) }
		group.OnStop = func() { run.Stop(stats.StopTime, nil) }
	}
	m.capture = o.prepareProfile(ctx, p.target, p.cfg.TLS)
	capture.Store(m.capture)
	if o.live != nil {
		o.live(&Live{run: run, capture: &capture, rate: cfg.Rate.PerSecond()})
	}
	m.first = readSelf()
	if cfg.Warmup == 0 {
		m.begin(false)
	}
	res := run.Run(ctx, p.base(&cfg, &o)) // returns after OnMeasure did
	p.lazy.nameRows(res)
	res.Client = m.cost(readSelf())
	res.Client.Engine = string(p.Engine())
	if p.loops > 0 {
		res.Client.MaxProcs = p.loops // the spare P only runs gb's housekeeping
	}
	if m.capture != nil {
		res.Profile = m.capture.Stop(res.Complete())
	}
	p.noteTLS(res)
	if group != nil && group.Err() == nil {
		if o.scriptDone != nil && group.HasDone() {
			o.scriptDone(deferDone(group, res))
			group = nil
		} else if err := scriptDone(group, res); err != nil {
			res.StoppedBy, res.StopError = stats.StopError, err.Error()
		}
	}
	// Connections carry over only from a load that ended by its count and
	// was never stopped (its timer or a signal coming as it ended): a stop
	// interrupts its clients for good.
	p.pool.settle(lc.KeepOpen && res.StoppedBy == stats.StopCount && !run.Stopped())
	// The load's connections, tasks and buffers are garbage now: collect
	// them, so that the report's allocations (hdrhistogram's distributions
	// scale with the latency range) reuse their memory instead of raising
	// the process's peak RSS above the load's. A few ms, after the measure.
	runtime.GC()
	return res, nil
}

// loadConfig is the engine's configuration for one load of cfg; its
// progress reads the server's live state from capture, once one started.
func (p *Plan) loadConfig(cfg *Config, o *options, capture *atomic.Pointer[profile.Capture]) load.Config {
	lc := load.Config{
		Concurrency: cfg.concurrency(),
		Requests:    cfg.Requests,
		Duration:    cfg.Duration,
		KeepSamples: cfg.KeepSamples,
		Pipeline:    cfg.Pipeline,
		Interval:    cfg.Interval,
		Warmup:      cfg.Warmup,
		Loops:       p.loops,
		TaskOnly:    p.cfg.Engine == EngineLoopTasks,
		Observe:     o.observer(),
		NewConn:     func(ctx context.Context) load.Conn { return client.NewFast(ctx, p.client) },
	}
	if cfg.Rate.Freq > 0 {
		lc.Pacer = cfg.Rate.pacer()
	}
	pooled := p.loops == 0 && (o.carry || p.pool.held() > 0)
	if pooled {
		// Lend the connections the last run left open and keep this
		// run's open for the next (Carry; the goroutine engine only;
		// HTTP/1.1's or HTTP/2's, see newConnPool).
		lc.KeepOpen = o.carry && p.client.KeepAlive
		lc.NewConn = p.pool.newConn
	} else {
		useH2(&lc, p.h2)
	}
	if o.progress != nil {
		lc.ProgressInterval = o.progressEvery
		lc.Progress = func(s load.Progress) { o.progress(progressOf(s, capture)) }
	}
	p.multi.spread(&lc)
	useH3(&lc, p.h3, p.pool, pooled, o.carry) // after spread: HTTP/3's clients reach several addresses themselves
	p.lazy.use(&lc)
	return lc
}

// base is the part of the result the engine does not know: what was asked.
func (p *Plan) base(cfg *Config, o *options) stats.Result {
	t := p.target
	res := stats.Result{
		Version:   stats.FormatVersion,
		GBVersion: Version,
		Command:   append([]string{}, o.command...), // [] rather than null without WithCommand
		Load: stats.Load{
			URL:            t.url.Redacted(),
			Method:         cfg.method(),
			Host:           t.host,
			Port:           t.port,
			Path:           t.path,
			Proxy:          cfg.Proxy,
			UnixSocket:     p.UnixSocket(),
			ConnectTo:      t.connectTo,
			Concurrency:    cfg.concurrency(),
			Requests:       cfg.Requests,
			TimeLimit:      cfg.Duration,
			Timeout:        p.client.Timeout,
			KeepAlive:      cfg.keepAlive(),
			BodyLength:     int64(len(cfg.Body)),
			VariableLength: cfg.VariableLength,
			TLSVerify:      t.tls && !cfg.TLS.Insecure,
			TLSResume:      t.tls && cfg.TLS.Resume,
			Engine:         cfg.protocol(),
			Streams:        cfg.streams(),
			Compressed:     cfg.Compressed,
			Rate:           cfg.Rate.PerSecond(),
			Pipeline:       cfg.Pipeline,
			Shard:          cfg.Shard,
			StartAt:        cfg.StartAt.UTC().Round(0),
		},
	}
	p.multi.describe(&res)
	p.describeChecks(&res)
	p.lazy.describe(&res)
	return res
}

// describeChecks gives res one account per check, counts zero.
func (p *Plan) describeChecks(res *stats.Result) {
	for _, e := range p.checks.Exprs() {
		res.Checks = append(res.Checks, stats.CheckStats{Expr: e})
	}
}

// noteTLS copies the first TLS session's details into res.Server.
func (p *Plan) noteTLS(res *Result) {
	if info, ok := p.client.TLSSession(); ok {
		res.Server.TLSProtocol, res.Server.TLSCipher = info.Version, info.Cipher
		res.Server.TLSTempKey, res.Server.TLSServerName = info.TempKey, info.ServerName
		res.Server.TLSKeyBits = info.KeyBits
	}
}

// clientConfig builds the shared configuration of the connections to t
// (cfg is the Config as it applies to t), resolving the host (or the
// proxy) once so that no request waits on DNS.
func (p *Plan) clientConfig(cfg *Config, t *target) (*client.Config, error) {
	method := cfg.method()
	cc := &client.Config{
		Request:    p.req,
		Head:       method == "HEAD",
		KeepAlive:  cfg.keepAlive(),
		Idempotent: method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE" || method == "OPTIONS",
		Timeout:    cfg.Timeout,
		SockBuf:    cfg.SockBuf,
		BufferSize: bufferSize(cfg.concurrency()),

		ConnectTimeout:   cfg.ConnectTimeout,
		FirstByteTimeout: cfg.FirstByteTimeout,
		HeaderTimeout:    cfg.HeaderTimeout,
		IdleTimeout:      cfg.IdleTimeout,
		Decoding:         cfg.decoding(),
		Checks:           p.checks,
	}
	if cc.Timeout <= 0 {
		cc.Timeout = 30 * time.Second
	}
	if err := route(cfg, t, cc, p.opts.profile); err != nil {
		return nil, err
	}
	if cc.Network != "unix" {
		ip, _, _ := net.SplitHostPort(cc.Addr)
		var err error
		if cc.LocalAddrs, err = localAddrs(cfg.LocalAddr, ip, cfg.concurrency()); err != nil {
			return nil, err
		}
	}
	if t.tls {
		var err error
		if cc.TLS, err = cfg.TLS.config(cmp.Or(cfg.TLS.ServerName, t.host)); err != nil {
			return nil, err
		}
	}
	return cc, nil
}

// chooseEngine decides, once, how the Plan drives its connections:
// Config.Engine when given, else the event loops where this system has
// them (Linux), else goroutines.
func (p *Plan) chooseEngine() error {
	err := evloop.Available()
	switch {
	case p.cfg.http3() && (p.cfg.Engine == EngineLoop || p.cfg.Engine == EngineLoopTasks):
		return configErr("Engine", "{Engine} %s cannot drive {Protocol=h3}: quic-go does its I/O on goroutines of its own; use {Engine=goroutine} or {Engine=auto}", p.cfg.Engine)
	case p.cfg.http3(), p.cfg.Engine == EngineGoroutine, p.cfg.Engine != EngineLoop && p.cfg.Engine != EngineLoopTasks && err != nil:
		return nil
	case err != nil:
		return configErr("Engine", "{Engine} %s cannot run on this system (%v); use {Engine=goroutine}", p.cfg.Engine, err)
	}
	p.loops = p.cpus() // the clients dial on a loop when their context carries its task
	return nil
}

// cpus is the cores the load may use: Config.CPUs, or, when the target is
// on this machine, half the cores (at least one), leaving the rest to the
// server: measured on 2 cores against nginx, a second gb thread costs
// about 30% more CPU per request and gains no throughput
// (bench/RESULTS.md). A remote target gets every core.
func (p *Plan) cpus() int {
	if p.cfg.CPUs > 0 {
		return p.cfg.CPUs
	}
	host, _, _ := net.SplitHostPort(p.client.Addr)
	if ip := net.ParseIP(host); p.client.Network == "unix" || ip != nil && ip.IsLoopback() {
		return max(1, runtime.NumCPU()/2)
	}
	return runtime.NumCPU()
}

// bufferSize is each connection's read buffer: 16 KiB (a 10 KiB response
// in one read) up to 4096 connections, then smaller so that all buffers
// together stay near 64 MiB, never below 4 KiB.
func bufferSize(concurrency int) int {
	return min(max((64<<20)/max(concurrency, 1), 4<<10), 16<<10)
}
