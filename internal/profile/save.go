package profile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gb-bench/gb/internal/diagnose"
	"github.com/gb-bench/gb/internal/outfile"
	"github.com/gb-bench/gb/stats"
	pprof "github.com/google/pprof/profile"
)

// traceMagic starts every Go runtime trace ("go 1.22 trace\x00...").
const traceMagic = "go 1."

// runTrace streams the runtime trace of the load's first Config.TraceFor
// into dir/trace.out, at most Config.MaxTrace bytes. ready is called once
// the request is written.
func (c *Capture) runTrace(ready func()) {
	d := c.cfg.traceFor()
	ctx, cancel := context.WithTimeout(c.bg, d+c.cfg.timeout())
	defer cancel()
	resp, err := c.f.open(ctx, fmt.Sprintf("trace?seconds=%g", d.Seconds()), ready)
	if err != nil {
		c.note("trace: %v", err)
		return
	}
	defer resp.Body.Close()
	max := c.cfg.maxTrace()
	err = outfile.Write(filepath.Join(c.dir, Trace.file()), 0o600, func(w io.Writer) error {
		br := bufio.NewReader(io.LimitReader(resp.Body, max+1))
		if head, err := br.Peek(len(traceMagic)); err != nil || string(head) != traceMagic {
			return errors.New("not a Go runtime trace")
		}
		n, err := io.Copy(w, br)
		if err == nil && n > max {
			err = fmt.Errorf("%w of %d bytes", errTooLarge, max)
		}
		return err
	})
	if err != nil {
		c.note("trace: %v", err)
		return
	}
	c.traced = true
}

// analyseTrace gives d the analysis of the saved trace (streamed from
// the file, within Config.TraceLimits), or why there is none.
func (c *Capture) analyseTrace(d *diagnose.Builder) {
	if !c.traced {
		d.Trace(nil, 0, "")
		return
	}
	f, err := os.Open(filepath.Join(c.dir, Trace.file()))
	if err != nil {
		d.Trace(nil, 0, fmt.Sprintf("cannot read the trace: %v", err))
		return
	}
	defer f.Close()
	s, err := diagnose.Scheduling(f, c.cfg.TraceLimits)
	if err != nil {
		d.Trace(nil, 0, "the trace could not be analysed: "+err.Error())
		return
	}
	d.Trace(s, c.end.Sub(c.start), "")
}

// save writes kind k's file and lists it in sp: the merged CPU windows,
// the goroutine snapshot, the trace (already written), or the delta
// between the before and after snapshots (with after's time and the
// load's duration). The allocs delta also gives sp.Allocs. It returns the
// delta of a delta kind (for the diagnosis, which keeps no reference to
// it), else nil.
func (c *Capture) save(sp *stats.ServerProfile, k Kind, after *pprof.Profile) (delta *pprof.Profile) {
	var p *pprof.Profile
	switch {
	case k == CPU:
		p = c.cpu
	case k == Goroutine:
		p = c.goroutine
	case k == Trace:
		if c.traced {
			c.list(sp, k)
		}
		return nil
	case after != nil && c.base[k] != nil:
		// The delta makes a negated copy of the snapshot before and a merge.
		extra := 2*estimateParsed(c.base[k]) + estimateParsed(after)
		if err := c.f.mem.reserve(extra); err != nil {
			c.note("%s: %v", k, err)
			return nil
		}
		defer c.f.mem.release(extra)
		var err error
		if p, err = subtract(c.base[k], after); err != nil {
			c.note("%s: %v", k, err)
			return nil
		}
		delta = p
		p.TimeNanos, p.DurationNanos = after.TimeNanos, int64(c.end.Sub(c.start))
		if k == Allocs {
			top := Top(p, c.cfg.topN(), ByFlat)
			sp.Allocs = &top
			sp.AllocObjects = sampleTotal(p, "alloc_objects")
		}
		if len(p.Sample) == 0 {
			c.note("%s: no samples during the load%s", k, emptyHint[k])
		}
	}
	if p == nil {
		return nil
	}
	err := outfile.Write(filepath.Join(c.dir, k.file()), 0o600, p.Write)
	if err != nil {
		c.note("%s: cannot save: %v", k, err)
		return delta
	}
	c.list(sp, k)
	return delta
}

// sampleTotal is the sum of p's values of the sample type named typ; 0
// when p has no such type.
func sampleTotal(p *pprof.Profile, typ string) int64 {
	for i, st := range p.SampleType {
		if st.Type != typ {
			continue
		}
		var sum int64
		for _, s := range p.Sample {
			if i < len(s.Value) {
				sum += s.Value[i]
			}
		}
		return sum
	}
	return 0
}

// emptyHint explains an empty delta.
var emptyHint = map[Kind]string{
	Block: " (the server must call runtime.SetBlockProfileRate)",
	Mutex: " (the server must call runtime.SetMutexProfileFraction)",
}

// list adds k's saved file and the command that opens it to sp, and the
// commands that print its tops.
func (c *Capture) list(sp *stats.ServerProfile, k Kind) {
	path := filepath.Join(c.dir, k.file())
	arg := shellQuote(path)
	open := "go tool pprof -http=127.0.0.1:0 " + arg
	if k == Trace {
		open = "go tool trace " + arg
	}
	sp.Files = append(sp.Files, stats.ProfileFile{Kind: string(k), Path: path, Open: open})
	switch {
	case k == CPU && sp.CPU != nil:
		sp.CPU.Top.Command = "go tool pprof -top " + arg
		sp.CPU.TopCum.Command = "go tool pprof -top -cum " + arg
	case k == Allocs && sp.Allocs != nil:
		sp.Allocs.Command = "go tool pprof -top " + arg
	}
}

// subtract returns after minus before, as `go tool pprof -base` computes it:
// samples whose values did not change are dropped.
func subtract(before, after *pprof.Profile) (*pprof.Profile, error) {
	neg := before.Copy()
	neg.Scale(-1)
	p, err := mergeSafe(after, neg)
	if err != nil {
		return nil, fmt.Errorf("cannot subtract the snapshot before the load: %v", err)
	}
	return p, nil
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and -_./:=+,@ characters.
func shellQuote(s string) string {
	safe := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=+,@", r))
	}) < 0
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
