package profile

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/gb-bench/gb/stats"
	pprof "github.com/google/pprof/profile"
)

// maxCPUFailures is how many failed windows in a row end the CPU capture.
const maxCPUFailures = 3

// cpuBody is one CPU window as received, before parsing.
type cpuBody struct {
	data  *body
	began time.Time // when the request was written
}

// runCPU profiles back-to-back windows until the load ends. The window in
// flight when the load ends is completed, so the profile covers the whole
// load and at most one window after it. Windows are parsed and merged on
// a second goroutine, so that the next window starts as soon as the last
// one's body has arrived. ready is called once the first window's request
// is written.
func (c *Capture) runCPU(ready func()) {
	bodies := make(chan cpuBody, 1) // bounds the windows held in memory
	var broken atomic.Bool          // merging failed: fetch no more
	merged := make(chan struct{})
	go func() {
		defer close(merged)
		for b := range bodies {
			if broken.Load() {
				continue
			}
			if err := c.merge(b); err != nil {
				c.note("cpu: %v; the profile stops there", err)
				broken.Store(true)
			}
		}
	}()
	defer func() { close(bodies); <-merged }()
	failures := 0
	for !broken.Load() {
		b, err := c.fetchWindow(ready)
		ready()
		if err == nil {
			failures = 0
			bodies <- b
		} else {
			failures++
			var se *StatusError
			if errors.As(err, &se) && se.Code == http.StatusNotFound || failures == maxCPUFailures || !c.pause(c.cfg.window()) {
				c.note("cpu: %v", err)
				return
			}
		}
		select {
		case <-c.stop:
			return
		default:
		}
	}
}

// pause waits d, or until the load ends; it reports whether the load is
// still running.
func (c *Capture) pause(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.stop:
		return false
	}
}

// fetchWindow fetches one CPU profile window.
func (c *Capture) fetchWindow(ready func()) (cpuBody, error) {
	w := c.cfg.window()
	ctx, cancel := context.WithTimeout(c.bg, w+c.cfg.timeout())
	defer cancel()
	began := make(chan time.Time, 1)
	data, err := c.f.get(ctx, fmt.Sprintf("profile?seconds=%d", w/time.Second), c.cfg.maxBody(), func() {
		began <- time.Now()
		ready()
	})
	if err != nil {
		return cpuBody{}, err
	}
	select {
	case t := <-began:
		return cpuBody{data: data, began: t}, nil
	default: // cannot happen: a response came
		return cpuBody{}, errors.New("profile: no request written")
	}
}

// merge parses one window (and frees its body) and merges it into c.cpu,
// keeping the memory budget's account of c.cpu (c.cpuHeld).
func (c *Capture) merge(b cpuBody) error {
	mem := c.f.mem
	p, held, err := parse(b.data, c.cfg.maxData(), mem)
	b.data.free()
	if err != nil {
		return err
	}
	if n := len(p.SampleType); n == 0 || p.SampleType[n-1].Unit != "nanoseconds" {
		mem.release(held)
		return errors.New("profile: not a CPU profile")
	}
	c.noteWindow(p)
	win := window{began: b.began, dur: time.Duration(max(p.DurationNanos, 0))}
	if c.cpu == nil {
		if err := c.checkEntries(p); err != nil {
			mem.release(held)
			return err
		}
		c.cpu, c.cpuHeld = p, held
		c.windows = append(c.windows, win)
		return nil
	}
	bound := c.cpuHeld + held // a merge holds at most both
	if err := mem.reserve(bound); err != nil {
		mem.release(held)
		return fmt.Errorf("merging a window: %w", err)
	}
	merged, err := mergeSafe(c.cpu, p)
	mem.release(held) // the window, merged or dropped
	if err == nil {
		err = c.checkEntries(merged)
	}
	if err != nil {
		mem.release(bound)
		return err
	}
	share := min(estimateParsed(merged), bound)
	mem.release(bound - share + c.cpuHeld) // the merge's slack and the old merge
	c.cpu, c.cpuHeld = merged, share
	c.windows = append(c.windows, win)
	return nil
}

// checkEntries refuses a CPU profile with more samples and locations than
// Config.MaxEntries.
func (c *Capture) checkEntries(p *pprof.Profile) error {
	if len(p.Sample)+len(p.Location) > c.cfg.maxEntries() {
		return fmt.Errorf("%w of %d samples and locations", errTooLarge, c.cfg.maxEntries())
	}
	return nil
}

// mergeSafe merges profiles from the target, turning a panic on hostile
// input into an error.
func mergeSafe(ps ...*pprof.Profile) (p *pprof.Profile, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("profile: cannot merge (%v)", r)
		}
	}()
	if p, err = pprof.Merge(ps); err != nil {
		return nil, fmt.Errorf("profile: cannot merge: %v", err)
	}
	return p, nil
}

// summariseCPU fills sp.CPU from the merged windows. A window is taken to
// start when its request was written and to last the duration the server
// reports (capped by the configured window: the server is untrusted).
func (c *Capture) summariseCPU(sp *stats.ServerProfile) {
	if c.cpu == nil {
		return
	}
	// The cum top lists twice as many rows: a call chain repeats one cost
	// on each of its frames (net/http's handler chain takes six rows), and
	// the server's own function sits below it.
	n := c.cfg.topN()
	cpu := &stats.ServerCPU{Windows: len(c.windows), Load: c.end.Sub(c.start),
		Top: Top(c.cpu, n, ByFlat), TopCum: Top(c.cpu, 2*n, ByCum), Own: Own(c.cpu, 2*n)}
	for _, w := range c.windows {
		d := min(w.dur, c.cfg.window()+time.Second)
		cpu.Profiled += d
		from, to := w.began, w.began.Add(d)
		if from.Before(c.start) {
			from = c.start
		}
		if to.After(c.end) {
			to = c.end
		}
		if to.After(from) {
			cpu.Covered += to.Sub(from)
		}
	}
	if cpu.Covered > 0 {
		cpu.Cores = float64(cpu.Top.Total) / float64(cpu.Covered)
	}
	sp.CPU = cpu
}
