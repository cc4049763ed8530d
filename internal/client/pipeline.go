package client

import (
	"bytes"
	"errors"
	"syscall"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/evloop"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

var _ load.Batcher = (*Fast)(nil)

// MaxBatchBytes bounds one pipelined write in bytes: a batch whose
// requests take more is sent as several writes of at most this many bytes
// (at least one request each), each one's responses read before the next
// is written. All workers share one buffer of at most this size.
const MaxBatchBytes = 1 << 20

// DoBatch sends len(xs) requests in one write on one connection
// (HTTP/1.1 pipelining; several writes beyond MaxBatchBytes) and reads
// their responses in order; see load.Batcher. Every exchange starts at its
// write's start. When the server closes the connection after answering
// only some with Connection: close (as nginx does at keepalive_requests),
// the unanswered ones are sent again on a new connection and marked as
// retried; when it closes without a word, only idempotent requests are
// sent again. A batch that meets the keep-alive close race before any
// response byte is sent again once, if idempotent.
func (f *Fast) DoBatch(xs []load.Exchange, outs []stats.Outcome) {
	if f.scr != nil {
		f.doScriptBatch(xs, outs)
		return
	}
	d := f.cfg.batchDepth(len(xs))
	for i := 0; i < len(xs); i += d {
		j := min(i+d, len(xs))
		f.doBatch(xs[i:j], outs[i:j])
	}
}

// doBatch is DoBatch for a batch that fits one write.
func (f *Fast) doBatch(xs []load.Exchange, outs []stats.Outcome) {
	start := clock.Read()
	for i := range xs {
		xs[i].Start = start
	}
	done, staleRetry := 0, true
	for done < len(xs) {
		n, again := f.batchAttempt(xs[done:], outs[done:], &staleRetry)
		done += n
		if !again {
			break
		}
		for i := done; i < len(xs); i++ {
			xs[i].Retried = true
		}
	}
	now := clock.Read()
	for i := done; i < len(xs); i++ {
		xs[i].Done = now
	}
}

// batchAttempt writes the batch and reads what it can. It returns how many
// exchanges ended (answered or failed for good) and whether the rest should
// go again on a new connection.
func (f *Fast) batchAttempt(xs []load.Exchange, outs []stats.Outcome, staleRetry *bool) (int, bool) {
	x0 := &xs[0]
	reused := f.nc != nil
	if !reused {
		if o, ok := f.connect(x0); !ok {
			fill(xs, outs, o, x0.Err)
			return len(xs), false
		}
	} else {
		x0.Connected = x0.Start
	}
	f.arm(x0.Start)
	n, err := f.nc.Write(f.batchBytes(len(xs)))
	x0.BytesOut += int64(n)
	written := clock.Read()
	for i := range xs {
		xs[i].Connected, xs[i].Written = x0.Connected, written
	}
	if err != nil {
		o, retry := f.failWrite(x0, err, reused)
		if retry && *staleRetry {
			*staleRetry = false
			return 0, true
		}
		fill(xs, outs, o, x0.Err)
		return len(xs), false
	}
	return f.readBatch(xs, outs, reused, staleRetry)
}

// readBatch reads the batch's responses in order.
func (f *Fast) readBatch(xs []load.Exchange, outs []stats.Outcome, reused bool, staleRetry *bool) (int, bool) {
	for i := range xs {
		if f.scr != nil {
			f.scr.index = f.scr.sent - len(xs) + i
		}
		f.pending = len(xs) - i - 1
		wire := f.rd.Wire
		o, retry := f.read(&xs[i], reused && i == 0)
		xs[i].BytesIn += f.rd.Wire - wire
		xs[i].Done = clock.Read()
		f.pending = 0
		outs[i] = o
		switch {
		case retry && *staleRetry:
			*staleRetry = false
			return 0, true
		case i > 0 && !whole(o) && !f.rd.Started() && isPeerGone(xs[i].Err):
			if f.idempotent() {
				return i, true // closed silently after answering some: resend the rest
			}
			// The server may have processed them: never resent (RFC 9110 §9.2.2).
			fill(xs[i:], outs[i:], stats.FailStaleConn, xs[i].Err)
			return len(xs), false
		case !whole(o) && o != stats.FailDecode: // a body that did not decode still ended its response
			fill(xs[i+1:], outs[i+1:], o, xs[i].Err) // sent, never answered: the connection failed under them
			return len(xs), false
		case f.nc == nil && i+1 < len(xs):
			return i + 1, true // the server closed after this response
		}
	}
	f.extraResponses(xs, outs)
	return len(xs), false
}

// errUnsolicited is the error of the pipelined responses that cannot be
// told apart from extra ones the server sent.
var errUnsolicited = errors.New("more response bytes than requests (the server answered a request twice?)")

// extraResponses checks, once a batch's responses are read, whether the
// server sent more: then the responses after the first cannot be matched
// to their requests (a server that answers each request twice sends the
// batch's responses for its first half), so they fail as protocol errors
// and the connection is dropped. The first response is the first
// request's, as with -k.
func (f *Fast) extraResponses(xs []load.Exchange, outs []stats.Outcome) {
	last := &xs[len(xs)-1]
	if len(xs) < 2 || !whole(outs[len(xs)-1]) || !f.unsolicited() {
		return
	}
	for i := 1; i < len(xs); i++ {
		if whole(outs[i]) {
			outs[i], xs[i].Err, xs[i].KeepAlive = stats.FailProtocol, errUnsolicited, false
		}
	}
	f.drop(last)
}

// fill ends every exchange of xs with outcome o and error err, so each
// failed request of a batch counts in the error tallies.
func fill(xs []load.Exchange, outs []stats.Outcome, o stats.Outcome, err error) {
	now := clock.Read()
	for i := range outs {
		outs[i] = o
		xs[i].Err = err
		if xs[i].Done.IsZero() {
			xs[i].Done = now
		}
	}
}

// unsolicited reports whether the server sent bytes that no request asked
// for: input already buffered, or waiting in the socket of the open
// connection (one recv(MSG_PEEK); over TLS only buffered input is seen).
func (f *Fast) unsolicited() bool {
	if f.rd.Buffered() > 0 {
		return true
	}
	switch c := f.nc.(type) { // nil after a drop: nothing more to see
	case *evloop.Conn:
		return c.Pending()
	case syscall.Conn: // *net.TCPConn, *net.UnixConn; not *tls.Conn
		if f.pk == nil {
			f.pk = &peeker{}
			f.pk.fn = f.pk.peek
		}
		return f.pk.pending(c)
	}
	return false
}

// peeker looks for unread input on a net package socket without reading
// it. A Fast makes one on first use: only pipelining on goroutines needs it.
type peeker struct {
	raw    syscall.RawConn    // the open connection's socket; nil until needed (Fast.connect clears it)
	fn     func(uintptr) bool // peek, bound once
	buf    [1]byte
	peeked bool
}

// pending reports whether unread input waits on c's socket.
func (p *peeker) pending(c syscall.Conn) bool {
	if p.raw == nil {
		raw, err := c.SyscallConn()
		if err != nil {
			return false
		}
		p.raw = raw
	}
	p.peeked = false
	_ = p.raw.Read(p.fn)
	return p.peeked
}

// batchDepth is how many of n requests one write may carry: all of them
// when they fit MaxBatchBytes, else as many as fit, at least one.
func (c *Config) batchDepth(n int) int {
	return max(1, min(n, MaxBatchBytes/max(len(c.Request), 1)))
}

// batch returns the wire bytes of n pipelined requests (n at most
// batchDepth's), from a buffer shared by all workers that grows to the
// deepest batch asked for: after that it costs no allocation.
func (c *Config) batch(n int) []byte {
	need := n * len(c.Request)
	for {
		old := c.batchBytes.Load()
		if old != nil && len(*old) >= need {
			return (*old)[:need]
		}
		b := bytes.Repeat(c.Request, n)
		if c.batchBytes.CompareAndSwap(old, &b) {
			return b
		}
	}
}
