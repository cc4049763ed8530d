package client

import (
	"github.com/gb-bench/gb/internal/check"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// useChecks prepares f for Config.Checks: its reader keeps the header
// lines when a check reads a field, and the body's first check.MaxBody
// bytes when one reads the body; status and size checks keep nothing.
func (f *Fast) useChecks() {
	s := f.cfg.Checks
	f.chk = &check.Response{}
	switch {
	case s.NeedsBody():
		f.rd.Keep = &h1.Kept{MaxBody: check.MaxBody}
	case s.NeedsFields():
		f.rd.Keep = &h1.Kept{MaxBody: -1}
	}
}

// checkResponse classifies a complete response (status, r) against the
// run's checks: one that fails any ends as failed.check, with the first
// failed check's error, and x carries which failed. With a script, its
// response() sees the response too, and an error it raises
// (failed.script) comes before a failed check.
func (f *Fast) checkResponse(x *load.Exchange, r *h1.Response) stats.Outcome {
	s, cr := f.cfg.Checks, f.chk
	cr.Status, cr.Size = r.Status, r.BodyBytes
	if k := f.rd.Keep; k != nil {
		cr.Fields, cr.Body = k.Fields, k.Body
	}
	fails, err := s.Eval(cr)
	x.Checks, x.CheckFails = uint8(len(s.Checks)), fails
	o := stats.Non2xx
	if r.Status >= 200 && r.Status < 300 {
		o = stats.OK
	}
	if f.scr != nil {
		o = f.scriptResponse(x, r.Status)
	}
	if fails != 0 && o != stats.FailScript {
		x.Err = err
		return stats.FailCheck
	}
	return o
}

// whole reports whether o ends an exchange whose response was read whole:
// ok, non2xx, or a response that then failed a check (the connection and
// a pipelined batch go on after it).
func whole(o stats.Outcome) bool { return o.Responded() || o == stats.FailCheck }
