package client

import (
	"context"
	"crypto/tls"
	"net"
	"sync/atomic"
	"time"

	"github.com/gb-bench/gb/internal/check"
	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// Fast is gb's HTTP/1.1 client over one connection at a time: the request
// bytes are built once, the response is read into a fixed buffer, and
// nothing is allocated per request. A Fast is owned by one worker.
type Fast struct {
	// The fields every kept-alive request touches come first, so that
	// with thousands of connections a request misses the cache on as few
	// lines of its Fast as it can (the first three of four).
	cfg     *Config
	nc      net.Conn
	rd      *h1.Reader
	rearm   clock.Mono // a request starting after this moves nc's deadline (see arm); zero = the next one does
	wire    int64      // rd.Wire when the request in flight was written
	stop    atomic.Bool
	plain   bool      // a loop could drive the connection's exchanges (drive.go): no phases, idle limit or decoding
	stage   sendStage // how far Send got with the exchange in flight
	pending int       // pipelined responses still due after the one being read
	target  int       // the exchange's target (Config.Targets); 0 with one
	resp    h1.Response

	ctx    context.Context
	dialer ContextDialer
	live   atomic.Pointer[connRef] // the open connection, for Interrupt
	sent   int                     // stage writing: request bytes written
	werr   error                   // stage unsendable: the write's error
	ph     *phases                 // with phase timeouts (Config.phased); nil without
	due    clock.Mono              // with decoding: the deadline of the request being read (expired)
	pk     *peeker                 // unsolicited's, made on first use (pipeline.go)
	scr    *scripted               // with a script (UseScript); nil = Config's requests
	chk    *check.Response         // with Config.Checks: what they see of the response; nil without
}

// phases is a Fast's state for the phase timeouts, apart so that a Fast
// without them (every connection of a plain run) is smaller.
type phases struct {
	total time.Time // this request's exact overall deadline
	idle  idleConn  // with IdleTimeout: the reader's view of nc
}

var _ load.Conn = (*Fast)(nil)

// connRef publishes the open connection to Interrupt, which runs on another
// goroutine.
type connRef struct{ nc net.Conn }

// NewFast returns a client for one worker. ctx ends dials and handshakes
// when the run stops; when it carries an event-loop task
// (evloop.WithTask, as load's event-loop engine gives), the client dials
// and does all its I/O on that task. The connection is opened by the
// first Do.
func NewFast(ctx context.Context, cfg *Config) *Fast {
	f := &Fast{cfg: cfg, ctx: ctx, rd: h1.NewReader(nil, cfg.BufferSize, cfg.Limits)}
	f.dialer = cfg.dialer(ctx)
	if cfg.phased() {
		f.ph = &phases{idle: idleConn{f: f}}
	}
	f.setDecoder()
	if cfg.Checks != nil {
		f.useChecks()
	}
	f.plain = !cfg.phased() && !cfg.Compressed // IdleTimeout is a phase
	return f
}

// Interrupt makes the current or next Do return with its I/O failed; the
// worker then counts the request as aborted.
func (f *Fast) Interrupt() {
	f.stop.Store(true)
	if ref := f.live.Load(); ref != nil {
		_ = ref.nc.SetDeadline(aLongTimeAgo)
	}
}

var aLongTimeAgo = time.Unix(1, 0)

// Open reports whether the client holds an open connection. Call it
// between loads only (the worker owns the client during one).
func (f *Fast) Open() bool { return f.nc != nil }

// Close closes the connection and reports whether one was open.
func (f *Fast) Close() bool {
	if f.nc == nil {
		return false
	}
	_ = f.nc.Close()
	f.nc = nil
	f.live.Store(nil)
	return true
}

// Do sends the request and reads the response; see load.Conn.
func (f *Fast) Do(x *load.Exchange) stats.Outcome {
	if f.scr != nil {
		if o, ok := f.scriptRequest(x); !ok {
			f.scr.last(x)
			return o
		}
	}
	x.Start = clock.Read()
	f.target = x.Target
	o, retry := f.attempt(x)
	if retry {
		x.Retried = true
		o, _ = f.attempt(x)
	}
	x.Done = clock.Read()
	if f.scr != nil {
		f.scr.last(x)
	}
	return o
}

// attempt makes one try. retry is true when the request met the keep-alive
// close race on a reused connection and may be sent again on a new one.
func (f *Fast) attempt(x *load.Exchange) (o stats.Outcome, retry bool) {
	reused := f.nc != nil
	if !reused {
		if o, ok := f.connect(x); !ok {
			return o, false
		}
	} else {
		x.Connected = x.Start
	}
	f.arm(x.Start)
	n, err := f.nc.Write(f.request())
	x.BytesOut += int64(n)
	if err != nil && (reused || isTimeout(err) || !isPeerGone(err)) {
		return f.failWrite(x, err, reused)
	}
	// A server may answer before it has read the whole body (an early 413
	// or 401) and close: its response can still be read (RFC 9112 §9.5).
	x.Written = clock.Read()
	wire := f.rd.Wire
	o, retry = f.read(x, reused)
	x.BytesIn += f.rd.Wire - wire
	if err != nil {
		if !whole(o) {
			return f.failWrite(x, err, reused)
		}
		x.KeepAlive = false
		f.drop(x) // a connection whose request was cut short is not reused
	}
	return o, retry
}

// connect dials (and handshakes) a new connection.
func (f *Fast) connect(x *load.Exchange) (stats.Outcome, bool) {
	if f.stop.Load() {
		return stats.AbortedSignal, false // the worker relabels it with the stop's cause
	}
	nc, o := f.cfg.open(f.ctx, f.dialer, x)
	if o != stats.OK {
		return o, false
	}
	if tc, ok := nc.(*tls.Conn); ok {
		f.noteTLS(tc)
	}
	f.nc, f.rearm = nc, 0
	if f.pk != nil {
		f.pk.raw = nil
	}
	f.live.Store(&connRef{nc})
	if f.cfg.IdleTimeout > 0 {
		f.ph.idle.Conn = nc
		f.rd.Reset(&f.ph.idle)
	} else {
		f.rd.Reset(nc)
	}
	x.Connected = clock.Read()
	x.Ready() // opened now, however long the exchange takes
	return stats.OK, true
}

// arm sets the connection deadline to start + timeout. The deadline is only
// moved when it would be more than timeout/64 early, so a busy connection
// pays for the runtime timer update about once per timeout/64, not per
// request; a request's effective timeout is within 1.6% of the setting.
// Between moves, arm is one comparison of monotonic readings.
func (f *Fast) arm(start clock.Mono) {
	d := f.cfg.timeout()
	if f.cfg.phased() {
		f.ph.total = start.Time().Add(d)
		_ = f.nc.SetDeadline(f.ph.total)
	} else if start.After(f.rearm) {
		_ = f.nc.SetDeadline(start.Time().Add(d))
		f.rearm = start.Add(d / 64)
	}
	if f.stop.Load() {
		_ = f.nc.SetDeadline(aLongTimeAgo)
	}
}

// read reads the response and decides what happens to the connection.
func (f *Fast) read(x *load.Exchange, reused bool) (stats.Outcome, bool) {
	f.phase(f.cfg.FirstByteTimeout)
	err := f.rd.Fill()
	if err != nil {
		return f.failRead(x, err, reused)
	}
	if x.FirstByte.IsZero() { // else Receive saw the first bytes arrive
		x.FirstByte = clock.Read()
	}
	f.phase(f.cfg.HeaderTimeout)
	r := &f.resp
	if err = f.rd.ReadHeader(r, f.head()); err == nil {
		x.Status, x.Info, x.Server = r.Status, r.Info, f.rd.Server()
		if !f.plain {
			f.due = x.Start.Add(f.cfg.timeout())
		}
		f.inBody(true)
		err = f.rd.ReadBody(r)
		f.inBody(false)
	}
	return f.received(x, err, reused)
}

// received ends an exchange whose response was read, or failed to be
// (err), and decides what happens to the connection.
func (f *Fast) received(x *load.Exchange, err error, reused bool) (stats.Outcome, bool) {
	r := &f.resp
	x.Body, x.Decoded = r.BodyBytes, f.decoded(r)
	f.rd.Release()
	if err != nil {
		return f.failRead(x, err, reused)
	}
	// Bytes buffered after a response are unsolicited, unless more
	// pipelined responses are due on this connection.
	x.KeepAlive = r.KeepAlive && f.cfg.KeepAlive && (f.rd.Buffered() == 0 || f.pending > 0)
	if !x.KeepAlive {
		f.drop(x)
	}
	if f.chk != nil {
		return f.checkResponse(x, r), false
	}
	if f.scr != nil {
		return f.scriptResponse(x, r.Status), false
	}
	if r.Status >= 200 && r.Status < 300 {
		return stats.OK, false
	}
	return stats.Non2xx, false
}

// drop closes the current connection.
func (f *Fast) drop(x *load.Exchange) {
	if f.nc != nil {
		_ = f.nc.Close()
		f.nc = nil
		f.live.Store(nil)
		x.Closed++
	}
}
