package record

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/gb-bench/gb/stats"
)

// batchLen is how many samples a Recorder holds before it flushes them into
// its Group: one mutex acquisition per batchLen requests.
const batchLen = 32

// maxErrors is how many distinct error messages a Recorder keeps, and
// maxRunErrors how many a Result keeps; the rest are counted as OtherErrors.
const (
	maxErrors    = 16
	maxRunErrors = 50
)

// maxStatuses is how many distinct status codes a Recorder counts one by
// one; any further codes share OtherStatus.
const maxStatuses = 16

// Timing is one completed response's phase values in µs, the input of
// Recorder.Response. Corrected and Lag are used only by rate-mode recorders.
type Timing [stats.NumPhases]int64

// Recorder accumulates one worker's requests. It is owned by that worker:
// every method but Done must be called from the owning goroutine only, and
// Done may be read from any goroutine at any time (live progress).
type Recorder struct {
	Outcomes    stats.Outcomes
	Retries     int64 // retried.stale_conn: keep-alive close races retried on a new connection
	Late        int64 // rate mode: requests sent more than LateAfter after their intended time
	KeepAlive   int64 // responses after which the connection stayed open (ab's Keep-Alive requests)
	Info        int64 // 1xx interim responses skipped
	ConnsOpened int64
	ConnsClosed int64
	BytesIn     int64 // every byte read from the connection, headers included (ab's Total transferred)
	BodyIn      int64 // response body bytes (ab's HTML transferred), partial bodies included
	DecodedIn   int64 // --compressed: body bytes after content decoding, partial bodies included
	BytesOut    int64 // every byte written (ab's Total body sent)

	first    firstResponse
	lengths  [maxLengths]lengthCount // slot 0 is this worker's first length
	nLengths int
	exact    [stats.NumPhases]stats.Exact
	codes    [maxStatuses]int
	counts   [maxStatuses]int64
	nCodes   int
	other    int64
	batch    [batchLen]Timing
	nBatch   int
	phases   stats.Phase      // number of phases recorded per response: Total+1, or Lag+1 in rate mode
	errs     map[string]int64 // failure message -> count, at most maxErrors keys
	errOther int64
	group    *Group
	samples  []stats.Sample // nil unless keepSamples
	keep     bool
	live     Live // mirrors of the counters above for AddLive and Done, written at End

	// The time series (StartSeries). Without one, every request is in
	// interval 0 and ivEnd is never reached.
	every  int64          // interval length, ns; 0 = no series
	origin int64          // the run's start, Unix ns
	iv     int64          // the current interval: Unix ns / every
	ivEnd  int64          // the current interval's end, ns since the run's start
	mark   stats.Outcomes // Outcomes at the last flush
	markC  stats.Closed   // closedCounts at the last flush

	checks []checkCount // Check's tallies, one per check of the run; nil without checks

	targetBatch *[batchLen]targetSample // EndTarget's requests not yet flushed; allocated by the first
	nTarget     int

	runFlush func(func()) // FlushOn's; nil = flush in place
	flushFn  func()       // r.flush, made once by FlushOn so a flush does not allocate
}

// maxLengths is how many distinct body lengths a Recorder counts; the rest
// are counted as mismatches whatever the run's document length turns out to be.
const maxLengths = 8

type lengthCount struct {
	length int64
	n      int64
}

// firstResponse remembers this worker's earliest response, the candidate
// for ab's "Server Software" and "Document Length".
type firstResponse struct {
	at     int64 // monotonic ns since the run's start; 0 = none yet
	server string
	length int64
}

// NewRecorder returns a Recorder that flushes into group. rate makes it
// record the Corrected and Lag phases; keepSamples makes it keep one Sample per
// response (memory grows with the run: only for ab's -g file). sizeHint,
// when positive, preallocates that many samples.
func NewRecorder(group *Group, rate, keepSamples bool, sizeHint int) *Recorder {
	r := &Recorder{group: group, keep: keepSamples, phases: stats.Total + 1, ivEnd: math.MaxInt64}
	if rate {
		r.phases = stats.Lag + 1
	}
	if keepSamples && sizeHint > 0 {
		r.samples = make([]stats.Sample, 0, sizeHint)
	}
	return r
}

// StartSeries makes r count its requests and latencies per interval of
// length every, for the run's time series (Result.Series). Intervals are
// aligned to whole multiples of every in Unix time; start is the run's
// start, from which EndAt's at is measured. Call it before the first
// request; every <= 0 keeps no series.
func (r *Recorder) StartSeries(every time.Duration, start time.Time) {
	if every <= 0 {
		return
	}
	r.every, r.origin = int64(every), start.UnixNano()
	r.iv = r.origin / r.every
	r.ivEnd = (r.iv+1)*r.every - r.origin
	tl := r.group.tl
	tl.mu.Lock()
	tl.keep = true
	tl.mu.Unlock()
}

// Done returns the number of requests this recorder has ended so far.
// Safe for concurrent use.
func (r *Recorder) Done() int64 {
	var n int64
	for i := range r.live.outcomes {
		n += r.live.outcomes[i].Load()
	}
	return n
}

// End records a request's terminal outcome. Call it exactly once per
// dispatched request, after Response for ok and non2xx.
func (r *Recorder) End(o stats.Outcome) {
	r.Outcomes[o]++
	r.live.outcomes[o].Store(r.Outcomes[o])
	// The rest change rarely: a load is a plain read, a store a barrier.
	if r.live.retries.Load() != r.Retries {
		r.live.retries.Store(r.Retries)
	}
	if r.live.late.Load() != r.Late {
		r.live.late.Store(r.Late)
	}
	if c := r.ConnsOpened - r.ConnsClosed; r.live.conns.Load() != c {
		r.live.conns.Store(c)
	}
}

// Live holds a recorder's counters as atomics, for a progress display
// reading them while the worker runs. Only the recorder's worker writes
// them (one atomic store per End, more only when a rare counter changed);
// the zero value is all zero.
type Live struct {
	outcomes [stats.NumOutcomes]atomic.Int64
	retries  atomic.Int64
	late     atomic.Int64
	conns    atomic.Int64
}

// LiveCounts is a sum of recorders' counters as of their last End.
type LiveCounts struct {
	Outcomes  stats.Outcomes // requests ended, by outcome
	Retries   int64          // keep-alive close races retried on a new connection
	Late      int64          // rate mode: requests sent more than LateAfter late
	ConnsOpen int64          // connections opened minus closed by the requests ended
}

// AddLive adds r's live counters to c. Safe for concurrent use with the
// recorder's worker; costs the worker nothing.
func (r *Recorder) AddLive(c *LiveCounts) {
	for i := range c.Outcomes {
		c.Outcomes[i] += r.live.outcomes[i].Load()
	}
	c.Retries += r.live.retries.Load()
	c.Late += r.live.late.Load()
	c.ConnsOpen += r.live.conns.Load()
}

// EndAt is End for a request that ended at at, in ns since the run's start
// (the clock of Body's at). With a series it counts the request, and its
// latency if Response recorded one just before, in the interval it ended in.
func (r *Recorder) EndAt(o stats.Outcome, at int64) {
	if at >= r.ivEnd {
		r.rotate(at, o.Responded())
	}
	r.End(o)
}

// rotate flushes the current interval and moves to the one holding at. The
// newest sample of the batch is the ending request's when it responded:
// it stays in the batch, for the new interval.
func (r *Recorder) rotate(at int64, responded bool) {
	var held Timing
	hold := responded && r.nBatch > 0
	if hold {
		r.nBatch--
		held = r.batch[r.nBatch]
	}
	r.Flush()
	r.iv = (r.origin + at) / r.every
	r.ivEnd = (r.iv+1)*r.every - r.origin
	if hold {
		r.batch[0], r.nBatch = held, 1
	}
}

// Status counts one final status code.
func (r *Recorder) Status(code int) {
	for i := 0; i < r.nCodes; i++ {
		if r.codes[i] == code {
			r.counts[i]++
			return
		}
	}
	if r.nCodes < maxStatuses {
		r.codes[r.nCodes] = code
		r.counts[r.nCodes] = 1
		r.nCodes++
		return
	}
	r.other++
}

// Response records the timings of a complete response; startUnixUs is the
// request's wall-clock start in Unix µs (kept only for -g rows).
func (r *Recorder) Response(t *Timing, startUnixUs int64) {
	for p := stats.Phase(0); p < r.phases; p++ {
		r.exact[p].Add(t[p])
	}
	if r.nBatch == batchLen { // flushed before, not after: EndAt may move this sample to a new interval
		r.Flush()
	}
	r.batch[r.nBatch] = *t
	r.nBatch++
	if r.keep {
		r.samples = append(r.samples, stats.Sample{Start: startUnixUs, Connect: t[stats.Connect],
			Processing: t[stats.Processing], Total: t[stats.Total], Waiting: t[stats.Waiting]})
	}
}

// Handshake records one TLS handshake of us µs (TCP connected to
// handshake done) in the TLS phase, and in TLSResumed when it resumed a
// session, else in TLSFull. It is called once per new https connection,
// not per request, so it takes the group's lock at once.
func (r *Recorder) Handshake(us int64, resumed bool) {
	split := stats.TLSFull
	if resumed {
		split = stats.TLSResumed
	}
	s := r.group
	s.mu.Lock()
	for _, p := range [2]stats.Phase{stats.TLS, split} {
		r.exact[p].Add(us)
		if s.hist[p] == nil {
			s.hist[p] = stats.NewHistogram()
		}
		_ = s.hist[p].RecordValue(min(max(us, stats.HistLowest), stats.HistHighest)) // clamped into range: cannot fail
	}
	s.mu.Unlock()
}

// Body records a complete response's body length and Server header value.
// The run's first response (smallest at, across all workers) sets ab's
// Document Length and Server Software; Collect counts every response of
// another length as ab's Length failure. at is the response's end in
// monotonic ns since the run started; server is copied only for this
// worker's first response.
func (r *Recorder) Body(length int64, server []byte, at int64) {
	if r.first.at == 0 {
		r.first = firstResponse{at: max(at, 1), server: string(server), length: length}
	}
	for i := 0; i < r.nLengths; i++ {
		if r.lengths[i].length == length {
			r.lengths[i].n++
			return
		}
	}
	if r.nLengths < maxLengths {
		r.lengths[r.nLengths] = lengthCount{length, 1}
		r.nLengths++
	}
}

// Error counts a failure's message (already stripped of addresses, so the
// set stays small), made Printable: it may carry a server's bytes.
// Failure path only: it may allocate.
func (r *Recorder) Error(msg string) {
	msg = stats.Printable(msg)
	if r.errs == nil {
		r.errs = make(map[string]int64)
	}
	if _, ok := r.errs[msg]; ok || len(r.errs) < maxErrors {
		r.errs[msg]++
		return
	}
	r.errOther++
}

// FlushOn makes every flush of r run as run(flush): run must call flush
// once, on any goroutine, and return after it. An event loop passes its
// OnLoop, so that the flush's deep calls (the group's lock, the
// histograms) run on the loop's own stack rather than growing its
// tasks' 2 KiB coroutine stacks. nil restores flushing in place.
func (r *Recorder) FlushOn(run func(func())) {
	r.runFlush, r.flushFn = run, nil
	if run != nil {
		r.flushFn = r.flush
	}
}

// Flush moves the batched samples, and the outcomes counted since the last
// flush, into the group: one lock per batch. The worker calls it when it
// stops; Response and EndAt call it when the batch is full or an interval
// ends. It runs through FlushOn's function when one was given.
func (r *Recorder) Flush() {
	if r.runFlush != nil {
		r.runFlush(r.flushFn)
		return
	}
	r.flush()
}

// closedCounts returns r's status classes and bytes so far, for flush.
func (r *Recorder) closedCounts() stats.Closed {
	c := stats.Closed{BytesIn: r.BytesIn, BytesOut: r.BytesOut}
	for i := 0; i < r.nCodes; i++ {
		c.Status[statusClass(r.codes[i])] += r.counts[i]
	}
	c.Status[0] += r.other
	return c
}

// flush is Flush, in place.
func (r *Recorder) flush() {
	r.flushTargets()
	var out stats.Outcomes
	changed := r.nBatch > 0
	for i, v := range r.Outcomes {
		out[i] = v - r.mark[i]
		changed = changed || out[i] != 0
	}
	if !changed {
		return
	}
	r.mark = r.Outcomes
	cur := r.closedCounts()
	c := minusClosed(cur, &r.markC)
	r.markC = cur
	batch := r.batch[:r.nBatch]
	rate, series := r.phases > stats.Total+1, r.every > 0
	s := r.group
	s.mu.Lock()
	for p := stats.Phase(0); p < r.phases; p++ {
		if p == stats.Total || p == stats.Corrected {
			continue // per interval, below
		}
		h := s.hist[p]
		if h == nil {
			h = stats.NewHistogram()
			s.hist[p] = h
		}
		for i := range batch {
			_ = h.RecordValue(min(max(batch[i][p], stats.HistLowest), stats.HistHighest)) // clamped into range: cannot fail
		}
	}
	if iv := s.slot(r.iv); iv != nil {
		iv.add(batch, &out, rate, series)
		addClosed(&iv.counts, &c)
	} else {
		s.tl.addBatch(r.iv, batch, &out, rate, series)
		s.tl.addCounts(&c)
	}
	s.mu.Unlock()
	r.nBatch = 0
}
