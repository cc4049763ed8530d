package main

import (
	"fmt"
	"io"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/stats"
)

// progress prints ab's "Completed N requests" lines on stderr, or on a
// terminal the live panel (--live=off: one status line). It is driven by
// the run's progress callback, from one goroutine.
type progress struct {
	on    bool  // ab prints progress: not -q and more than 150 requests (or -t)
	tty   bool  // stderr is a terminal: one live line instead of ab's lines
	panel bool  // draw the live panel (--live=on, or auto on a terminal)
	live  *live // the panel, from the first update to finish
	limit liveLimits
	every int64 // ab's heartbeat: requests/10, at least 100
	next  int64 // the next heartbeat to print
	total int64 // the request budget; 0 with -t alone
	w     io.Writer
}

func newProgress(o *options, w io.Writer) *progress {
	total := o.cfg.Requests
	if o.cfg.Duration > 0 && !o.requestsSet {
		total = 0
	}
	abRequests := total
	if total == 0 {
		abRequests = 50000 // ab's -t implies -n 50000, which sets its heartbeat
	}
	p := &progress{on: !o.quiet && abRequests > 150, total: total, w: w}
	p.every = max(abRequests/10, 100)
	p.next = p.every
	p.tty = isTerminal(w)
	p.panel = p.on && (o.live == "on" || o.live != "off" && p.tty)
	p.limit = liveLimits{Requests: total, Duration: o.cfg.Duration, Rate: perSecond(o.cfg.Rate)}
	return p
}

// perSecond is r's target in requests per second; 0 for a closed loop.
func perSecond(r gb.Rate) float64 {
	if r.Freq <= 0 {
		return 0
	}
	per := r.Per
	if per <= 0 {
		per = time.Second
	}
	return float64(r.Freq) / per.Seconds()
}

// update is the run's progress callback, set only when p.on.
func (p *progress) update(s gb.Progress) {
	if p.panel {
		if p.live == nil {
			p.limit.Cores = cores()
			p.live = newLive(p.w, p.limit)
		}
		p.live.update(s)
		return
	}
	done, elapsed := s.Done, s.Elapsed
	if p.tty {
		rate := float64(done) / max(elapsed.Seconds(), 1e-9)
		if p.total > 0 {
			fmt.Fprintf(p.w, "\r\x1b[2K%d/%d requests  %.0f req/s  %.1fs", done, p.total, rate, elapsed.Seconds())
		} else {
			fmt.Fprintf(p.w, "\r\x1b[2K%d requests  %.0f req/s  %.1fs", done, rate, elapsed.Seconds())
		}
		return
	}
	for ; p.next <= done; p.next += p.every {
		fmt.Fprintf(p.w, "Completed %d requests\n", p.next)
	}
}

// finish ends the progress output: ab's "Finished N requests" unless the
// run was interrupted.
func (p *progress) finish(res *stats.Result) {
	if !p.on {
		return
	}
	p.stop()
	if p.tty && !p.panel {
		fmt.Fprint(p.w, "\r\x1b[2K")
	}
	if res.StoppedBy != stats.StopSignal {
		fmt.Fprintf(p.w, "Finished %d requests\n", res.Complete())
	}
}

// stop removes the live panel, if one is drawn; safe to call again.
func (p *progress) stop() {
	if p.live != nil {
		p.live.stop()
		p.live = nil
	}
}
