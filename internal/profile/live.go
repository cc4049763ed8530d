package profile

import (
	"math"
	"sync/atomic"
	"time"

	pprof "github.com/google/pprof/profile"
)

// Live is what a capture knows about the server while the load runs.
// The zero value means nothing known yet.
type Live struct {
	// CPU is the cores the server was busy in the last CPU window
	// (profile samples' time over the window's length); 0 until a window
	// was merged, or without the cpu kind.
	CPU float64
	// GC is the server's GC cycles since the capture started, and
	// GCRecent those in the last poll of /debug/vars; both 0 until a poll
	// answered (Config.LiveEvery).
	GC, GCRecent int64
	// Known reports whether CPU or GC has been read at all.
	Known bool
}

// live holds the latest readings; written by the CPU merge goroutine and
// the vars poller, read by Live from any goroutine.
type live struct {
	cpuBits  atomic.Uint64 // math.Float64bits of Live.CPU
	gc       atomic.Int64
	gcRecent atomic.Int64
	cpuSeen  atomic.Bool
	gcSeen   atomic.Bool
}

// Live returns the latest readings; safe for concurrent use, it reads
// three atomics and fetches nothing. A nil Capture knows nothing.
func (c *Capture) Live() Live {
	if c == nil {
		return Live{}
	}
	l := &c.live
	return Live{CPU: math.Float64frombits(l.cpuBits.Load()), GC: l.gc.Load(), GCRecent: l.gcRecent.Load(),
		Known: l.cpuSeen.Load() || l.gcSeen.Load()}
}

// noteWindow records one CPU window's busy cores.
func (c *Capture) noteWindow(p *pprof.Profile) {
	if p.DurationNanos <= 0 || len(p.SampleType) == 0 {
		return
	}
	idx := len(p.SampleType) - 1
	var busy int64
	for _, s := range p.Sample {
		if idx < len(s.Value) {
			busy += s.Value[idx]
		}
	}
	c.live.cpuBits.Store(math.Float64bits(float64(busy) / float64(p.DurationNanos)))
	c.live.cpuSeen.Store(true)
}

// runLive polls the target's memstats every LiveEvery until the load
// ends, for the GC counts Live reports. A failed poll is skipped.
func (c *Capture) runLive() {
	t := time.NewTicker(c.cfg.LiveEvery)
	defer t.Stop()
	prev := c.varsBefore
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		m, err := c.readVarsWithin(min(c.cfg.LiveEvery, c.cfg.timeout()))
		if err != nil || c.varsBefore == nil || m.NumGC < c.varsBefore.NumGC {
			continue
		}
		if prev != nil && m.NumGC >= prev.NumGC {
			c.live.gcRecent.Store(int64(m.NumGC - prev.NumGC))
		}
		c.live.gc.Store(int64(m.NumGC - c.varsBefore.NumGC))
		c.live.gcSeen.Store(true)
		prev = m
	}
}
