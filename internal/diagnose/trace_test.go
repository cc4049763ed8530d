package diagnose

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/trace"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

// spinFor burns CPU without yielding for about d of its own running
// (the loop checks the clock every few thousand rounds).
//
//go:noinline
func spinFor(d time.Duration) uint64 {
	x := uint64(88172645463325252)
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		for range 4096 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
	}
	return x
}

// recordTrace records an execution trace of this process while work runs.
func recordTrace(t *testing.T, work func()) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Skipf("cannot trace: %v", err) // another trace is running (go test -trace)
	}
	work()
	trace.Stop()
	return buf.Bytes()
}

// starvedWorkload serves requests over keep-alive connections while
// 2×GOMAXPROCS goroutines spin, and runs one GC (a stop-the-world): the
// requests' goroutines must wait for a P behind the spinners. Nothing in
// it depends on speed: the spinners outnumber the Ps whatever the
// machine, and the request goroutines run only when given one.
func starvedWorkload(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	var wg sync.WaitGroup
	var sink atomic.Uint64
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Go(func() { sink.Add(spinFor(50 * time.Millisecond)) })
	}
	c := srv.Client()
	for range 20 {
		resp, err := c.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	runtime.GC()
	wg.Wait()
	c.CloseIdleConnections()
}

// TestSchedulingTrace analyses a trace recorded in this process with a
// scripted workload: goroutines outnumbering the Ps, an HTTP server's
// requests, a GC. It checks what the workload guarantees, never a
// duration's size: waits were measured and ordered, a stop-the-world was
// seen, the Ps are GOMAXPROCS, the serving goroutines were found and ran.
func TestSchedulingTrace(t *testing.T) {
	data := recordTrace(t, func() { starvedWorkload(t) })
	s, err := Scheduling(bytes.NewReader(data), TraceLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes: %+v", len(data), *s)
	if s.Truncated != "" || s.Events == 0 || s.Traced <= 0 {
		t.Errorf("truncated %q, %d events over %v", s.Truncated, s.Events, s.Traced)
	}
	if s.Procs != runtime.GOMAXPROCS(0) {
		t.Errorf("procs %d, GOMAXPROCS %d", s.Procs, runtime.GOMAXPROCS(0))
	}
	if s.Waits == 0 || s.WaitP50 <= 0 || s.WaitP99 < s.WaitP50 || s.WaitMax < s.WaitP99 {
		t.Errorf("waits %d: p50 %v p99 %v max %v", s.Waits, s.WaitP50, s.WaitP99, s.WaitMax)
	}
	if s.STW == 0 || s.STWMax <= 0 || s.STWTotal < s.STWMax {
		t.Errorf("stop-the-world: %d, total %v, longest %v", s.STW, s.STWTotal, s.STWMax)
	}
	if s.ServingShare <= 0 || s.OtherShare <= 0 || s.ServingShare+s.OtherShare > 1 {
		t.Errorf("serving share %v, other share %v", s.ServingShare, s.OtherShare)
	}
	for name, v := range map[string]float64{"busy": s.Busy, "idle while runnable": s.IdleWhileRunnable, "starved": s.Starved} {
		if v < 0 || v > 1 {
			t.Errorf("%s %v out of 0..1", name, v)
		}
	}
	if s.Busy == 0 || s.Starved == 0 {
		t.Errorf("busy %v, starved %v: spinners outnumbering the Ps left none idle", s.Busy, s.Starved)
	}
}

// TestSchedulingTraceCaps: a cap on bytes or events, or a trace cut
// short, gives the analysis of what was read and says so; garbage and an
// empty trace are one error each, never a panic.
func TestSchedulingTraceCaps(t *testing.T) {
	data := recordTrace(t, func() { starvedWorkload(t) })
	full, err := Scheduling(bytes.NewReader(data), TraceLimits{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Scheduling(bytes.NewReader(data), TraceLimits{MaxEvents: full.Events / 2})
	if err != nil || !strings.Contains(s.Truncated, "events (gb's cap)") || s.Events != full.Events/2 {
		t.Errorf("event cap: %v, %+v", err, s)
	}
	s, err = Scheduling(bytes.NewReader(data), TraceLimits{MaxGoroutines: 1})
	if err != nil || !strings.Contains(s.Truncated, "goroutines beyond gb's cap of 1") {
		t.Errorf("goroutine cap: %v, %+v", err, s)
	}
	for _, cut := range []int{len(data) / 2, len(data) - 1} {
		s, err = Scheduling(bytes.NewReader(data[:cut]), TraceLimits{})
		if err == nil && s.Truncated == "" {
			t.Errorf("cut at %d of %d bytes: nothing said", cut, len(data))
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("a multi-line error: %q", err)
		}
	}
	s, err = Scheduling(bytes.NewReader(data), TraceLimits{MaxBytes: int64(len(data) / 2)})
	if err == nil && !strings.Contains(s.Truncated, "MiB of the trace (gb's cap)") {
		t.Errorf("byte cap: %+v", s)
	}
	for _, bad := range []string{"", "go 1.26 trace\x00\x00\x00\x00", "<html>not a trace</html>", "go 1.99 trace\x00\x00\x00\x00"} {
		if s, err := Scheduling(strings.NewReader(bad), TraceLimits{}); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %+v, %v", bad, s, err)
		}
	}
}

// TestVerdictScheduling: requests' wait for a P ranks against the other
// causes in the share the server's other goroutines ran (scripted
// analyses, no trace): behind busy goroutines of its own the server is
// bound by scheduling; busy with its requests alone (a CPU-bound server
// queueing for CPU) it is bound by its CPU, however long the queue.
func TestVerdictScheduling(t *testing.T) {
	cpu := build("cpu", "nanoseconds", map[string]int64{
		"example.com/app.spin;example.com/app.startWorkers.func1": 900 * ms,
		"example.com/app.handler" + serveStack:                    100 * ms,
	})
	for _, tc := range []struct {
		name  string
		other float64
		bound string
	}{
		{"starved by other goroutines", 0.9, "scheduling"},
		{"queueing for CPU", 0.01, User},
	} {
		b := New(1000, []string{"cpu", "trace"})
		b.CPU(cpu, time.Second, time.Second) // 1ms of CPU per request
		// The trace covers half the load: 500 of its responses waited 5s.
		b.Trace(&stats.DiagnosisScheduling{Traced: time.Second, ServingWait: 5 * time.Second, OtherShare: tc.other,
			WaitP50: time.Millisecond, WaitP99: 40 * time.Millisecond}, 2*time.Second, "")
		d := b.Done()
		if d.Bound != tc.bound || d.Scheduling == nil || d.Scheduling.RequestWait != 10*time.Millisecond {
			t.Errorf("%s: bound %q (%s), %+v", tc.name, d.Bound, d.Verdict, d.Scheduling)
		}
		if tc.bound == "scheduling" && (!strings.Contains(d.Verdict, "example.com/app.spin") || d.Scheduling.Starving != 9*time.Millisecond) {
			t.Errorf("%s: %s; %+v", tc.name, d.Verdict, d.Scheduling)
		}
		if slices.ContainsFunc(d.Missing, func(m string) bool { return strings.HasPrefix(m, "scheduling:") }) {
			t.Errorf("%s: missing %q", tc.name, d.Missing)
		}
	}
}

// TestSchedulingMissing: the missing lines say why there is no
// scheduling part, or that it is partial.
func TestSchedulingMissing(t *testing.T) {
	for _, tc := range []struct {
		kinds []string
		s     *stats.DiagnosisScheduling
		why   string
		want  string
	}{
		{[]string{"cpu"}, nil, "", "scheduling: not captured: add trace to --profile"},
		{[]string{"trace"}, nil, "", "scheduling: no execution trace was captured (see the profile notes)"},
		{[]string{"trace"}, nil, "the trace could not be analysed: x", "scheduling: the trace could not be analysed: x"},
		{[]string{"trace"}, &stats.DiagnosisScheduling{Traced: time.Second, Truncated: "analysed the first 64 MiB of the trace (gb's cap)"}, "",
			"scheduling: analysed the first 64 MiB of the trace (gb's cap)"},
	} {
		b := New(0, tc.kinds)
		if tc.s != nil || tc.want != "" {
			b.Trace(tc.s, time.Second, tc.why)
		}
		d := b.Done()
		if !slices.ContainsFunc(d.Missing, func(m string) bool { return strings.HasPrefix(m, tc.want) }) {
			t.Errorf("%v: missing %q, want %q", tc.kinds, d.Missing, tc.want)
		}
		if tc.s != nil && (d.Scheduling.RequestWait != -1 || d.Scheduling.Starving != -1) {
			t.Errorf("no requests: %+v", d.Scheduling)
		}
	}
}

// endlessGeneration is a hostile trace: a valid header, then well-formed
// event batches of one generation that never ends.
type endlessGeneration struct {
	buf  []byte
	sent int64
}

func (e *endlessGeneration) Read(p []byte) (int, error) {
	if len(e.buf) == 0 {
		if e.sent == 0 {
			e.buf = []byte("go 1.26 trace\x00\x00\x00")
		}
		const size = 60000
		b := []byte{1}                    // EvEventBatch
		b = binary.AppendUvarint(b, 1)    // generation
		b = binary.AppendUvarint(b, 1)    // M
		b = binary.AppendUvarint(b, 1)    // timestamp
		b = binary.AppendUvarint(b, size) // length
		e.buf = append(append(e.buf, b...), make([]byte, size)...)
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	e.sent += int64(n)
	return n, nil
}

// TestSchedulingHostileTrace: a generation that never ends stops at the
// generation cap, and the analysis allocates a bounded multiple of that
// cap (a byte count, whatever the speed), however much the trace offers.
func TestSchedulingHostileTrace(t *testing.T) {
	for _, lim := range []TraceLimits{{MaxGeneration: 8 << 20}, {MaxBytes: 8 << 20}} {
		src := &endlessGeneration{}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, err := Scheduling(src, lim)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "gb's cap") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %+v, %v", lim, s, err)
		}
		if src.sent > 9<<20 {
			t.Errorf("%+v: read %d MiB", lim, src.sent>>20)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%+v: the analysis allocated %d MiB", lim, grew>>20)
		}
		t.Logf("%+v: %v; read %d MiB, allocated %d MiB", lim, err, src.sent>>20, (after.TotalAlloc-before.TotalAlloc)>>20)
	}
}

// TestSchedulingCorruptTrace: a real trace with bytes changed here and
// there (a fixed seed) gives an analysis or one single-line error each
// time, never a panic or a hang.
func TestSchedulingCorruptTrace(t *testing.T) {
	data := recordTrace(t, func() { starvedWorkload(t) })
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 60 {
		bad := bytes.Clone(data)
		for range 1 + i%4 {
			bad[16+rng.IntN(len(bad)-16)] ^= byte(1 + rng.IntN(255))
		}
		s, err := Scheduling(bytes.NewReader(bad), TraceLimits{})
		if err != nil && strings.Contains(err.Error(), "\n") || err == nil && s == nil {
			t.Errorf("mutation %d: %+v, %q", i, s, err)
		}
	}
}
