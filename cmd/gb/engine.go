package main

import (
	"github.com/gb-bench/gb/internal/evloop"
)

// The engines (README "Which engine runs when").
const (
	engineLoop      = "loop"      // one event loop per gb core over epoll (package evloop)
	engineGoroutine = "goroutine" // one goroutine per connection over Go's netpoller
)

// chooseEngine sets how the run drives its connections: --engine when
// given, else the event loops when this system has them (Linux), else
// goroutines. gb ramp does not call it: its connections outlive a run, so
// it stays on goroutines.
func (p *plan) chooseEngine() error {
	unfit := p.loopUnfit()
	switch {
	case p.o.engine == engineGoroutine, p.o.engine != engineLoop && unfit != "":
		return nil
	case unfit != "":
		return usagef(false, "--engine=loop cannot run %s; use --engine=goroutine", unfit)
	}
	p.load.Loops = p.cpus()
	p.client.UseLoops()
	return nil
}

// loopUnfit returns why the event loops cannot run here, or "".
func (p *plan) loopUnfit() string {
	if err := evloop.Available(); err != nil {
		return "on this system (" + err.Error() + ")"
	}
	return ""
}

// procs is gb's GOMAXPROCS: cpus, plus one with the event loops, whose
// goroutines block in epoll_wait. The spare P keeps the runtime from
// handing a loop's P to another thread while it waits (sysmon retakes a P
// from a syscall only when no P is idle), which would cost a thread wake-up
// and a runtime netpoll per wait.
func (p *plan) procs() int {
	if p.load.Loops > 0 {
		return p.cpus() + 1
	}
	return p.cpus()
}

// engine names the engine the plan runs on.
func (p *plan) engine() string {
	if p.load.Loops > 0 {
		return engineLoop
	}
	return engineGoroutine
}
