package main

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/stats"
)

// progress prints ab's "Completed N requests" lines on stderr, or a live
// status line when stderr is a terminal. It is driven by load's progress
// callback, from one goroutine.
type progress struct {
	on    bool  // ab prints progress: not -q and more than 150 requests (or -t)
	tty   bool  // stderr is a terminal: one live line instead of ab's lines
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
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
	}
	return p
}

// update is the run's progress callback, set only when p.on.
func (p *progress) update(s gb.Progress) {
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
	if p.tty {
		fmt.Fprint(p.w, "\r\x1b[2K")
	}
	if res.StoppedBy != stats.StopSignal {
		fmt.Fprintf(p.w, "Finished %d requests\n", res.Complete())
	}
}
