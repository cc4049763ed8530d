package client

import (
	"net"
	"time"

	"github.com/gb-bench/gb/stats"
)

// phase arms the read deadline for the next phase of a request, limited
// by the request's overall deadline. It does nothing unless d is set (and
// so nothing in the default, unphased mode).
func (f *Fast) phase(d time.Duration) {
	if d <= 0 {
		return
	}
	dl := time.Now().Add(d)
	if dl.After(f.ph.total) {
		dl = f.ph.total
	}
	_ = f.nc.SetReadDeadline(dl)
	if f.stop.Load() {
		_ = f.nc.SetDeadline(aLongTimeAgo)
	}
}

// timeout names a timeout that happened in a phase: with phase limits set,
// a request past its overall deadline is failed.timeout.total; otherwise
// the phase the request was in.
func (f *Fast) timeout(inPhase stats.Outcome) stats.Outcome {
	if f.cfg.phased() && !time.Now().Before(f.ph.total) {
		return stats.TimeoutTotal
	}
	return inPhase
}

// inBody tells the idle limit whether a body is being read.
func (f *Fast) inBody(on bool) {
	if f.ph != nil {
		f.ph.idle.body = on
	}
}

// idleConn is the reader's view of the connection when IdleTimeout is
// set: while a body is read, every read first moves the read deadline to
// now + IdleTimeout (never past the request's overall deadline). It lives
// in its Fast's phases, so it costs no allocation per request.
type idleConn struct {
	net.Conn
	f    *Fast
	body bool // a body is being read
}

func (c *idleConn) Read(p []byte) (int, error) {
	if c.body {
		c.f.phase(c.f.cfg.IdleTimeout)
	}
	return c.Conn.Read(p)
}
