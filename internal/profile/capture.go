package profile

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gb-bench/gb/internal/diagnose"
	"github.com/gb-bench/gb/stats"
	pprof "github.com/google/pprof/profile"
)

// Config says what to capture and where to put it. The zero value of each
// field but URL and Kinds means its default.
type Config struct {
	// URL is the target's pprof base, e.g.
	// "http://127.0.0.1:8080/debug/pprof/" (a missing final slash is added).
	URL string
	// VarsURL is the target's expvar endpoint. Zero means the /debug/vars
	// beside a URL ending in /debug/pprof/, else /debug/vars on URL's host.
	VarsURL string
	// Kinds are the profiles to capture (see ParseKinds).
	Kinds []Kind
	// Dir is where the files are saved (created with mode 0700 when
	// missing; removed again when gb created it and saved nothing). Zero
	// means a new folder under ./gb-profiles named after the local time.
	Dir string
	// TLS configures https URLs (verification, CA, client certificate,
	// server name); it is cloned. Nil means Go's defaults.
	TLS *tls.Config
	// Window is the length of one CPU profile window, whole seconds
	// (pprof's seconds parameter). Zero means 1s.
	Window time.Duration
	// TraceFor is the length of the runtime trace from the load's start.
	// Zero means 1s.
	TraceFor time.Duration
	// Timeout bounds each fetch beyond the window it waits for, and the
	// time Start waits for the target. Zero means 10s.
	Timeout time.Duration
	// MaxBody caps one profile as sent (gzip-compressed). Zero means 8 MiB.
	MaxBody int64
	// MaxData caps one profile decompressed. Zero means 16 MiB (a profile
	// that size would not fit MaxMemory once parsed anyway).
	MaxData int64
	// MaxTrace caps the trace file. Zero means 256 MiB.
	MaxTrace int64
	// TraceLimits bound the diagnosis's analysis of the trace (bytes,
	// events, goroutines followed); zero fields mean their defaults.
	TraceLimits diagnose.TraceLimits
	// MaxEntries caps the merged CPU profile's samples plus locations;
	// windows beyond it are skipped. Zero means 1<<19.
	MaxEntries int
	// MaxMemory caps the memory the capture holds at once: bodies as
	// received, decompressed profiles, and parsed ones by an estimate from
	// their element counts made before parsing (a profile's memory can be
	// fifty times its size). A profile that would pass it is refused with
	// a note. Zero means 48 MiB.
	MaxMemory int64
	// TopN is how many functions a top by flat value lists; a top by cum
	// lists twice as many. Zero means 10.
	TopN int
	// LiveEvery is how often the target's /debug/vars is polled during
	// the load for Capture.Live's GC counts (each poll bounded by the
	// smaller of it and Timeout). Zero means no polling.
	LiveEvery time.Duration
}

func (c *Config) window() time.Duration {
	return max(time.Duration(math.Ceil(c.Window.Seconds()))*time.Second, time.Second)
}

func (c *Config) traceFor() time.Duration { return orDefault(c.TraceFor, time.Second) }
func (c *Config) timeout() time.Duration  { return orDefault(c.Timeout, 10*time.Second) }
func (c *Config) maxBody() int64          { return orDefault(c.MaxBody, 8<<20) }
func (c *Config) maxData() int64          { return orDefault(c.MaxData, 16<<20) }
func (c *Config) maxTrace() int64         { return orDefault(c.MaxTrace, 256<<20) }
func (c *Config) maxEntries() int         { return orDefault(c.MaxEntries, 1<<19) }
func (c *Config) maxMemory() int64        { return orDefault(c.MaxMemory, 48<<20) }
func (c *Config) topN() int               { return orDefault(c.TopN, 10) }
func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// startWait bounds what Start waits for before the load may begin: the
// probe, and the first CPU window's and the trace's requests on the wire.
const startWait = 3 * time.Second

// goroutineAt is when, after the load's start, the goroutine profile is
// taken (or at the load's end, if that comes first).
const goroutineAt = 500 * time.Millisecond

// NoPprofError is Start's error when the target does not answer pprof's
// index: the run goes on without a profile.
type NoPprofError struct {
	URL string // redacted
	Err error
}

func (e *NoPprofError) Error() string { return fmt.Sprintf("no pprof at %s (%v)", e.URL, e.Err) }
func (e *NoPprofError) Unwrap() error { return e.Err }

// Capture is a capture in progress: made by Start (or by Prepare, then
// Begin), ended by Stop. Stop must be called exactly once, from the
// goroutine that called Start or Prepare, after Begin returned.
type Capture struct {
	cfg     Config
	f       *fetcher
	url     string // redacted base, for the summary
	vars    string // expvar URL, relative to base or absolute
	kinds   []Kind
	dir     string
	made    bool          // gb created dir
	begun   bool          // begin ran: there is something to stop and save
	start   time.Time     // the load's start as the capture sees it
	end     time.Time     // the load's end (Stop)
	stop    chan struct{} // closed by Stop or when the run's context ends
	bg      context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	stopped sync.Once

	mu    sync.Mutex
	notes []string // guarded by mu

	// Owned by Start, then by Stop.
	base       map[Kind]*pprof.Profile
	varsBefore *memStats
	varsErr    error // why varsBefore is nil

	// Owned by the CPU goroutine; read after wg.Wait.
	cpu     *pprof.Profile
	cpuHeld int64 // cpu's share of the memory budget
	windows []window

	// Owned by the goroutine and trace goroutines; read after wg.Wait.
	goroutine *pprof.Profile
	traced    bool

	live live // the readings Live returns
}

// window is one CPU profile window: when its request was written and how
// long the server profiled.
type window struct {
	began time.Time
	dur   time.Duration
}

// Start checks that the target serves pprof, takes the "before"
// snapshots, starts the CPU windows, the trace and the goroutine snapshot
// on their own goroutines, and returns once the first CPU window's and
// the trace's requests are on the wire, so that the load started next is
// covered from its first request. Start waits at most 3s for the probe
// and for those requests, and Config.Timeout for the snapshots. The end
// of the run's ctx stops new windows, as Stop does.
//
// A *NoPprofError means the target has no pprof; any error means there is
// no capture, and the run should go on without one.
func Start(ctx context.Context, cfg Config) (*Capture, error) {
	c, err := Prepare(ctx, cfg)
	if err != nil {
		return nil, err
	}
	c.Begin()
	return c, nil
}

// Prepare is the part of Start that needs no load: it checks that the
// target serves pprof and makes the directory, but captures nothing
// until Begin. Its errors are Start's. A load with a warm-up prepares
// before the warm-up, so that a target without pprof is known (and
// warned about) before the load starts, and begins when measuring does.
// Stop ends a prepared capture whether or not it began.
func Prepare(ctx context.Context, cfg Config) (*Capture, error) {
	base, err := baseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	kinds, err := ordered(cfg.Kinds)
	if err != nil {
		return nil, err
	}
	c := &Capture{cfg: cfg, f: newFetcher(base, cfg.TLS, newBudget(cfg.maxMemory())), url: base.Redacted(), kinds: kinds,
		vars: varsURL(base, cfg.VarsURL), stop: make(chan struct{}), base: map[Kind]*pprof.Profile{}}
	c.bg, c.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if err := c.probe(); err != nil {
		c.f.close()
		c.cancel()
		return nil, &NoPprofError{URL: c.url, Err: err}
	}
	if c.dir, c.made, err = makeDir(cfg.Dir); err != nil {
		c.f.close()
		c.cancel()
		return nil, err
	}
	go func() {
		select {
		case <-ctx.Done():
			c.halt()
		case <-c.stop:
		}
	}()
	return c, nil
}

// Begin starts a prepared capture before the load, as Start does: it
// returns once the first CPU window's and the trace's requests are on
// the wire (at most 3s), and the load's start, as the profile's coverage
// counts it, is its return. Begin or BeginDuring is called at most once,
// and before Stop starts (the caller orders them).
func (c *Capture) Begin() {
	c.begin()
	c.start = time.Now()
}

// BeginDuring starts a prepared capture while the load is already
// running (measuring began after a warm-up): the load's start is the
// call's instant, so the time until the first CPU window's request is on
// the wire shows as uncovered. It returns once that request is written.
func (c *Capture) BeginDuring() {
	c.start = time.Now()
	c.begin()
}

// begin takes the "before" snapshots and starts the capture's
// goroutines, and waits for the first CPU window's and the trace's
// requests to be written. A capture already stopped starts nothing.
func (c *Capture) begin() {
	select {
	case <-c.stop:
		return
	default:
	}
	c.begun = true
	c.snapshot(c.base)
	c.varsBefore, c.varsErr = c.readVars()
	var ready sync.WaitGroup
	if c.has(CPU) {
		c.launch(&ready, c.runCPU)
	}
	if c.has(Trace) {
		c.launch(&ready, c.runTrace)
	}
	if c.has(Goroutine) {
		c.wg.Go(c.runGoroutine)
	}
	if c.cfg.LiveEvery > 0 && c.varsBefore != nil {
		c.wg.Go(c.runLive)
	}
	waitTimeout(&ready, min(c.cfg.timeout(), startWait))
}

// launch runs fn on its own goroutine; fn calls ready once its request is
// written (or has failed).
func (c *Capture) launch(ready *sync.WaitGroup, fn func(ready func())) {
	ready.Add(1)
	var once sync.Once
	c.wg.Go(func() {
		done := func() { once.Do(ready.Done) }
		defer done()
		fn(done)
	})
}

// waitTimeout waits for wg, at most d.
func waitTimeout(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// halt stops new windows; idempotent.
func (c *Capture) halt() { c.stopped.Do(func() { close(c.stop) }) }

// Stop ends the capture when the load has ended: it takes the "after"
// snapshots, waits for the CPU window and the trace in flight (at most a
// window plus Config.Timeout), saves the files and returns the summary.
// requests is the number of responses the load received.
//
// A capture that never began (the load stopped during its warm-up)
// fetches nothing: its summary says so in a note, and the directory gb
// made for it is removed.
func (c *Capture) Stop(requests int64) *stats.ServerProfile {
	c.end = time.Now()
	c.halt()
	defer c.cancel()
	defer c.f.close()
	if !c.begun {
		return c.unbegun(requests)
	}
	varsAfter, varsErr := c.readVars()
	after := map[Kind]*pprof.Profile{}
	c.snapshot(after)
	c.wg.Wait()
	sp := &stats.ServerProfile{URL: c.url, Requests: requests, Dir: c.dir}
	for _, k := range c.kinds {
		sp.Kinds = append(sp.Kinds, string(k))
	}
	if c.varsBefore != nil && varsErr == nil {
		sp.Runtime = runtimeDelta(c.varsBefore, varsAfter)
	}
	if sp.Runtime == nil {
		c.noteRuntime(varsErr)
	}
	c.summariseCPU(sp)
	d := diagnose.New(requests, sp.Kinds)
	d.Runtime(sp.Runtime)
	if sp.CPU != nil {
		d.CPU(c.cpu, sp.CPU.Load, sp.CPU.Covered)
	}
	for _, k := range c.kinds {
		d.Delta(string(k), c.save(sp, k, after[k]))
	}
	d.Goroutines(c.base[Goroutine], c.goroutine, after[Goroutine])
	if c.has(Trace) {
		c.analyseTrace(d)
	}
	sp.Diagnosis = d.Done()
	c.mu.Lock()
	sp.Notes = c.notes
	c.mu.Unlock()
	if c.made && len(sp.Files) == 0 {
		_ = os.Remove(c.dir)
		sp.Dir = ""
	}
	return sp
}

// unbegun is Stop's summary of a capture that never began.
func (c *Capture) unbegun(requests int64) *stats.ServerProfile {
	sp := &stats.ServerProfile{URL: c.url, Requests: requests,
		Notes: []string{"nothing captured: the load stopped before measuring began"}}
	for _, k := range c.kinds {
		sp.Kinds = append(sp.Kinds, string(k))
	}
	if c.made {
		_ = os.Remove(c.dir)
	} else {
		sp.Dir = c.dir
	}
	return sp
}

// has reports whether k was asked for.
func (c *Capture) has(k Kind) bool { return slices.Contains(c.kinds, k) }

// note records why part of the capture is missing.
func (c *Capture) note(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

// probe fetches pprof's index page: a target without pprof fails here.
func (c *Capture) probe() error {
	ctx, cancel := context.WithTimeout(c.bg, min(c.cfg.timeout(), startWait))
	defer cancel()
	b, err := c.f.get(ctx, "", 1<<20, nil)
	b.free()
	return err
}

// snapshot fetches the delta kinds' profiles, and the goroutine profile,
// into m, in parallel.
func (c *Capture) snapshot(m map[Kind]*pprof.Profile) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, k := range c.kinds {
		if !k.delta() && k != Goroutine { // goroutine: the counts around the load, for the diagnosis
			continue
		}
		wg.Go(func() {
			p, err := c.fetchProfile(string(k), c.cfg.timeout())
			if err != nil {
				c.note("%s: %v", k, err)
				return
			}
			mu.Lock()
			m[k] = p
			mu.Unlock()
		})
	}
	wg.Wait()
}

// fetchProfile gets and parses base+rel within d.
func (c *Capture) fetchProfile(rel string, d time.Duration) (*pprof.Profile, error) {
	ctx, cancel := context.WithTimeout(c.bg, d)
	defer cancel()
	b, err := c.f.get(ctx, rel, c.cfg.maxBody(), nil)
	if err != nil {
		return nil, err
	}
	defer b.free()
	p, _, err := parse(b, c.cfg.maxData(), c.f.mem) // held until the capture ends
	return p, err
}

// readVars reads the target's memstats.
func (c *Capture) readVars() (*memStats, error) {
	return c.readVarsWithin(c.cfg.timeout())
}

// readVarsWithin reads the target's memstats within d.
func (c *Capture) readVarsWithin(d time.Duration) (*memStats, error) {
	ctx, cancel := context.WithTimeout(c.bg, d)
	defer cancel()
	return c.f.readVars(ctx, c.vars)
}

// noteRuntime says why there are no runtime counters: a reading failed
// (before the load, else after, whose error is after), or the counters
// went backwards between them.
func (c *Capture) noteRuntime(after error) {
	err, when := c.varsErr, "before"
	if err == nil {
		err, when = after, "after"
	}
	switch {
	case err == nil:
		c.note("runtime: the memstats at %s went backwards during the load (did the server restart?)", c.varsShown())
	case isNoMemstats(err):
		c.note("runtime: no memstats at %s (%v): allocation and GC counts need expvar", c.varsShown(), err)
	default:
		c.note("runtime: cannot read the memstats at %s %s the load: %v", c.varsShown(), when, err)
	}
}

// isNoMemstats reports whether err says the target serves no memstats.
func isNoMemstats(err error) bool {
	_, ok := errors.AsType[*noMemstatsError](err)
	return ok
}

// varsShown is the expvar URL for notes.
func (c *Capture) varsShown() string {
	u, err := c.f.base.Parse(c.vars)
	if err != nil {
		return c.vars
	}
	return u.Redacted()
}

// runGoroutine takes the goroutine profile goroutineAt into the load, or
// at its end if that comes first.
func (c *Capture) runGoroutine() {
	t := time.NewTimer(goroutineAt)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.stop:
	}
	p, err := c.fetchProfile("goroutine", c.cfg.timeout())
	if err != nil {
		c.note("goroutine: %v", err)
		return
	}
	c.goroutine = p
}

// baseURL parses the pprof base URL: http or https, with a host, ending
// in a slash so that profile names resolve below it.
func baseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("profile: invalid pprof URL %q: want http[s]://host[:port]/path/", raw)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawQuery, u.Fragment, u.RawPath = "", "", ""
	return u, nil
}

// varsURL returns the expvar URL: explicit, or /debug/vars beside
// /debug/pprof/, or /debug/vars on the host.
func varsURL(base *url.URL, explicit string) string {
	if explicit != "" {
		return explicit
	}
	if prefix, ok := strings.CutSuffix(base.Path, "/debug/pprof/"); ok {
		return prefix + "/debug/vars"
	}
	return "/debug/vars"
}

// makeDir creates dir (or the default) and reports whether it was new.
func makeDir(dir string) (string, bool, error) {
	if dir == "" {
		return newDir(filepath.Join("gb-profiles", time.Now().Format("20060102-150405")))
	}
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return "", false, fmt.Errorf("profile: %s is not a directory", dir)
		}
		return dir, false, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", false, fmt.Errorf("profile: %v", err)
	}
	return dir, true, nil
}

// newDir creates a new directory named stem, or stem-2, stem-3, ... when
// that exists.
func newDir(stem string) (string, bool, error) {
	if err := os.MkdirAll(filepath.Dir(stem), 0o755); err != nil {
		return "", false, fmt.Errorf("profile: %v", err)
	}
	for i := 1; i < 100; i++ {
		dir := stem
		if i > 1 {
			dir = fmt.Sprintf("%s-%d", stem, i)
		}
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			return dir, true, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", false, fmt.Errorf("profile: %v", err)
		}
	}
	return "", false, fmt.Errorf("profile: cannot create a new directory %s-N", stem)
}
