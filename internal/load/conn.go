package load

import (
	"time"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/stats"
)

// Conn sends the run's request over one connection (reconnecting as
// needed) and measures it. Each worker owns one Conn; only Interrupt may be
// called from another goroutine.
type Conn interface {
	// Do sends one request, reads its response and fills x. It returns the
	// request's outcome; it must not allocate in steady state.
	Do(x *Exchange) stats.Outcome
	// Interrupt makes a blocked or later Do return promptly (the run is
	// stopping). Safe for concurrent use with Do.
	Interrupt()
	// Close closes the connection and reports whether one was open.
	Close() bool
}

// Counted is a Conn that may hold several connections (one per address
// of a run's targets): CloseCount closes them all and returns how many
// were open, which the worker counts as closed.
type Counted interface {
	Conn
	CloseCount() int
}

// closeConn closes c's connections and returns how many were open.
func closeConn(c Conn) int64 {
	if cc, ok := c.(Counted); ok {
		return int64(cc.CloseCount())
	}
	if c.Close() {
		return 1
	}
	return 0
}

// MaxPipeline is the deepest pipelining a run accepts (Config.Pipeline):
// each worker holds one Exchange per request of its batch.
const MaxPipeline = 1024

// Batcher is a Conn that can pipeline: send several requests at once and
// read their responses in order (HTTP/1.1 pipelining).
type Batcher interface {
	Conn
	// DoBatch sends len(xs) requests together and fills xs[i] and outs[i]
	// for each; every exchange ends in exactly one outcome. It must not
	// allocate in steady state.
	DoBatch(xs []Exchange, outs []stats.Outcome)
}

// Exchange is one request's measurements, filled by Conn.Do. Times are
// monotonic readings (clock.Read); a phase that was not reached is zero.
type Exchange struct {
	Intended  clock.Mono    // rate mode: when the request was due (set by the worker); zero in a closed loop
	Target    int           // which of the run's targets to send (Config.Order; set by the worker); 0 with one target
	Start     clock.Mono    // request start: dial start on a new connection, else just before the write
	Connected clock.Mono    // connection ready (TLS done); equals Start on a reused connection
	Handshake time.Duration // the TLS handshake of a new connection; 0 = none
	Resumed   bool          // that handshake resumed a session (tls.ConnectionState.DidResume)
	Written   clock.Mono    // request fully written
	FirstByte clock.Mono    // first response byte arrived
	Done      clock.Mono    // response complete (read whole; on an event loop, when the read that completed it returned), or the failure

	Status    int    // final status code; 0 when no status line was read
	Body      int64  // response body bytes (partial bodies included)
	Decoded   int64  // with content decoding on: body bytes after decoding (partial included); else 0
	BytesIn   int64  // bytes read from the network during this exchange
	BytesOut  int64  // bytes written to the network during this exchange
	KeepAlive bool   // the connection stays open for the next request
	Retried   bool   // the keep-alive close race was retried on a new connection
	Checks    uint8  // how many checks the complete response was checked against (CheckFails); 0 = none (no checks, or no complete response)
	Opened    int    // connections opened by this exchange (a retry opens a second)
	Closed    int    // connections closed by this exchange
	Info      int    // 1xx interim responses skipped
	Server    []byte // Server header value; valid until the next Do
	Err       error  // the failure, for diagnostics; nil on ok and non2xx
	Last      bool   // set by the Conn: it sends no more (a script's thread:stop()); the worker ends after x

	// CheckFails has bit i set when the response failed check i of
	// Checks (gb --check).
	CheckFails uint64

	w *worker // the worker running the exchange; nil outside a Run
}

// Ready tells the run that x's connection is ready (connected, TLS done)
// as soon as it is, before the exchange ends: from then on the run's
// connect-failure abort (Config.MaxConnectFailures) cannot fire. A Conn
// calls it once per connection it opens; it costs no allocation and does
// nothing outside a Run.
func (x *Exchange) Ready() {
	if x.w != nil {
		x.w.markConnected()
	}
}

// reset clears x for the next request of worker w without allocating.
func (x *Exchange) reset(w *worker) { *x = Exchange{w: w} }
