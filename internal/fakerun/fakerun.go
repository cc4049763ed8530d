// Package fakerun builds the Results and ramps of the renderers' tests
// (internal/report, internal/htmlreport) from scripted requests, the way a
// live run records them: per-worker recorders merged into one Result. The
// runs are made up and deterministic (seeded), so that golden files stay
// byte for byte. Test code only; no product binary imports it.
package fakerun

import (
	"math/rand/v2"
	"time"

	"github.com/gb-bench/gb/internal/ramp"
	"github.com/gb-bench/gb/internal/record"
	"github.com/gb-bench/gb/stats"
)

// FakeStart is the wall-clock start of every fake run: Unix µs of
// Sat Nov 21 13:51:30 2026 UTC.
const FakeStart = int64(1795269090_000000)

// Req is one dispatched request of a fake run.
type Req struct {
	Outcome   stats.Outcome
	Status    int           // final status of a complete response
	T         record.Timing // µs, complete responses only
	Length    int64         // body length of a complete response
	KeepAlive bool          // the connection stayed open after it
	NewConn   bool          // it opened a connection
}

// Spec describes a fake run. Build turns it into a Result the way a live
// run does: per-worker stats.Recorders merged by stats.Merge.
type Spec struct {
	Target    stats.Load
	Elapsed   time.Duration
	StoppedBy string
	StopError string
	Server    string       // Server header of every response
	TLS       stats.Server // TLS fields copied into the Result
	HeaderLen int64        // response header bytes per complete response
	ReqLen    int64        // bytes written per request
	Retries   int64
	Samples   bool // keep per-request samples (-g)
	Reqs      []Req
}

// Build returns the Result of s, as five workers on two shards record it.
func Build(s Spec) *stats.Result {
	const workers = 5
	shards := record.NewGroups(2)
	rate := s.Target.Rate > 0
	recs := make([]*record.Recorder, workers)
	for i := range recs {
		recs[i] = record.NewRecorder(shards[i%len(shards)], rate, s.Samples, 0)
	}
	step := s.Elapsed.Microseconds() / int64(max(len(s.Reqs), 1))
	for i, q := range s.Reqs {
		rec := recs[i%workers]
		rec.BytesOut += s.ReqLen
		if q.NewConn { // closed after the response, or at the end of the run
			rec.ConnsOpened++
			rec.ConnsClosed++
		}
		if q.Outcome.Responded() {
			t := q.T
			rec.Status(q.Status)
			rec.Response(&t, FakeStart+int64(i)*step)
			rec.Body(q.Length, []byte(s.Server), int64(i+1))
			rec.BytesIn += s.HeaderLen + q.Length
			rec.BodyIn += q.Length
			if q.KeepAlive {
				rec.KeepAlive++
			}
		}
		rec.End(q.Outcome)
	}
	recs[0].Retries = s.Retries
	var dispatched int64 // dropped requests were never dispatched
	for _, q := range s.Reqs {
		if q.Outcome != stats.Dropped {
			dispatched++
		}
	}
	base := stats.Result{
		GBVersion: "test",
		Command:   []string{"gb", "-n", "fixture", s.Target.URL},
		Start:     time.UnixMicro(FakeStart).UTC(),
		End:       time.UnixMicro(FakeStart).Add(s.Elapsed).UTC(),
		Elapsed:   s.Elapsed,
		StoppedBy: s.StoppedBy,
		StopError: s.StopError,
		Load:      s.Target,
		Counts:    stats.Counts{Dispatched: dispatched},
	}
	if s.Target.Rate > 0 {
		base.Counts.Scheduled = int64(len(s.Reqs))
	}
	r := record.Collect(base, recs, shards)
	if rate { // as load.Run does: the dropped requests were the last due
		per := time.Duration(float64(time.Second) / s.Target.Rate)
		r.AddDropped(func(k int64) time.Duration { return time.Duration(dispatched+k) * per })
	}
	r.Server.TLSProtocol = s.TLS.TLSProtocol
	r.Server.TLSCipher = s.TLS.TLSCipher
	r.Server.TLSTempKey = s.TLS.TLSTempKey
	r.Server.TLSServerName = s.TLS.TLSServerName
	return r
}

// Timing returns a plausible request's phases from rng: connect only on a
// new connection, a waiting time around 200 µs with a tail of slow
// responses, and a processing time a little longer than waiting. Corrected
// adds a queueing delay (used by rate-mode recorders only).
func Timing(rng *rand.Rand, newConn bool) record.Timing {
	var t record.Timing
	if newConn {
		t[stats.Connect] = 40 + rng.Int64N(300)
	}
	t[stats.Waiting] = 120 + int64(rng.ExpFloat64()*150)
	if rng.IntN(50) == 0 {
		t[stats.Waiting] += 2000 + rng.Int64N(9000)
	}
	t[stats.Processing] = t[stats.Waiting] + 15 + rng.Int64N(60)
	t[stats.Total] = t[stats.Connect] + t[stats.Processing]
	t[stats.Corrected] = t[stats.Total] + rng.Int64N(400)
	return t
}

// Target returns an http GET target on 127.0.0.1:8080.
func Target(path string, concurrency int, requests int64) stats.Load {
	return stats.Load{
		URL: "http://127.0.0.1:8080" + path, Method: "GET", Host: "127.0.0.1", Port: 8080, Path: path,
		Concurrency: concurrency, Requests: requests, Timeout: 30 * time.Second, Engine: "fast",
	}
}

// OKRequests returns n ok responses of length bytes from seed; keepAlive
// opens conns connections for the first requests and reuses them.
func OKRequests(n int, seed uint64, length int64, keepAlive bool, conns int) []Req {
	rng := rand.New(rand.NewPCG(seed, 1))
	reqs := make([]Req, n)
	for i := range reqs {
		newConn := !keepAlive || i < conns
		reqs[i] = Req{Outcome: stats.OK, Status: 200, T: Timing(rng, newConn), Length: length,
			KeepAlive: keepAlive, NewConn: newConn}
	}
	return reqs
}

// Fixtures are the Results of the golden tests, by name.
func Fixtures() map[string]*stats.Result {
	return map[string]*stats.Result{
		"plain":      Build(PlainSpec(false)),
		"keepalive":  Build(KeepAliveSpec()),
		"failures":   Build(FailuresSpec()),
		"post":       Build(PostSpec()),
		"https":      Build(HTTPSSpec()),
		"zero":       Build(ZeroSpec()),
		"one":        Build(OneSpec()),
		"confidence": Build(ConfidenceSpec(false)),
		"rate":       Build(RateSpec()),
		"variable":   Build(VariableSpec()),
	}
}

// PlainSpec: ab -c 5 -n 1000 http://127.0.0.1:8080/file.
func PlainSpec(samples bool) Spec {
	return Spec{
		Target: Target("/file", 5, 1000), Elapsed: 72108 * time.Microsecond, StoppedBy: stats.StopCount,
		Server: "nginx/1.22.1", HeaderLen: 235, ReqLen: 88, Samples: samples,
		Reqs: OKRequests(1000, 1, 1670, false, 1),
	}
}

// KeepAliveSpec: ab -k -c 5 -n 1000, five connections.
func KeepAliveSpec() Spec {
	s := Spec{
		Target: Target("/file", 5, 1000), Elapsed: 21440 * time.Microsecond, StoppedBy: stats.StopCount,
		Server: "nginx/1.22.1", HeaderLen: 240, ReqLen: 112,
		Reqs: OKRequests(1000, 2, 1670, true, 5),
	}
	s.Target.KeepAlive = true
	return s
}

// FailuresSpec: ab -k -c 10 -t 2 against a flaky server: non-2xx
// responses, length mismatches, write errors, every failure class of the
// breakdown, aborted requests at the time limit and stale-connection
// retries.
func FailuresSpec() Spec {
	rng := rand.New(rand.NewPCG(3, 1))
	var reqs []Req
	add := func(n int, q Req) {
		for range n {
			q.T = Timing(rng, q.NewConn)
			reqs = append(reqs, q)
		}
	}
	add(400, Req{Outcome: stats.OK, Status: 200, Length: 512, KeepAlive: true})
	add(12, Req{Outcome: stats.OK, Status: 200, Length: 498, KeepAlive: true})
	add(50, Req{Outcome: stats.Non2xx, Status: 503, Length: 190, NewConn: true})
	add(5, Req{Outcome: stats.FailConnect, NewConn: true})
	add(4, Req{Outcome: stats.FailWrite})
	add(3, Req{Outcome: stats.FailReset})
	add(2, Req{Outcome: stats.TimeoutFirstByte})
	add(2, Req{Outcome: stats.FailTruncated})
	add(1, Req{Outcome: stats.FailProtocol})
	add(10, Req{Outcome: stats.AbortedDeadline})
	reqs[0].NewConn = true
	s := Spec{
		Target: Target("/api/items?page=2&sort=asc", 10, 0), Elapsed: 2000417 * time.Microsecond,
		StoppedBy: stats.StopTime, Server: "Apache/2.4.41 (Ubuntu)", HeaderLen: 310, ReqLen: 130,
		Retries: 3, Reqs: reqs,
	}
	s.Target.KeepAlive = true
	s.Target.TimeLimit = 2 * time.Second
	return s
}

// PostSpec: ab -p body.txt -T text/plain -c 5 -n 1000 .../post.
func PostSpec() Spec {
	s := Spec{
		Target: Target("/post", 5, 1000), Elapsed: 48297 * time.Microsecond, StoppedBy: stats.StopCount,
		Server: "nginx/1.22.1", HeaderLen: 142, ReqLen: 139,
		Reqs: OKRequests(1000, 4, 3, false, 1),
	}
	s.Target.Method, s.Target.BodyLength = "POST", 6
	return s
}

// HTTPSSpec: ab -c 5 -n 200 https://localhost:8443/file over TLS 1.3.
func HTTPSSpec() Spec {
	s := Spec{
		Target: Target("/file", 5, 200), Elapsed: 163112 * time.Microsecond, StoppedBy: stats.StopCount,
		Server: "nginx/1.22.1", HeaderLen: 235, ReqLen: 88,
		TLS: stats.Server{TLSProtocol: "TLS 1.3", TLSCipher: "TLS_AES_128_GCM_SHA256",
			TLSTempKey: "X25519 253 bits", TLSServerName: "localhost"},
		Reqs: OKRequests(200, 5, 1670, false, 1),
	}
	for i := range s.Reqs {
		s.Reqs[i].T[stats.Connect] += 2500 // the handshake
		s.Reqs[i].T[stats.Total] += 2500
	}
	s.Target.URL, s.Target.Host, s.Target.Port = "https://localhost:8443/file", "localhost", 8443
	s.Target.TLSVerify = true
	return s
}

// ZeroSpec: every connection refused, the run stopped by the error.
func ZeroSpec() Spec {
	reqs := make([]Req, 5)
	for i := range reqs {
		reqs[i] = Req{Outcome: stats.FailConnect, NewConn: true}
	}
	return Spec{
		Target: Target("/", 1, 5), Elapsed: 3117 * time.Microsecond, StoppedBy: stats.StopError,
		StopError: "dial tcp 127.0.0.1:8080: connect: connection refused", ReqLen: 80, Reqs: reqs,
	}
}

// OneSpec: ab -n 1.
func OneSpec() Spec {
	return Spec{
		Target: Target("/file", 1, 1), Elapsed: 295 * time.Microsecond, StoppedBy: stats.StopCount,
		Server: "nginx/1.22.1", HeaderLen: 235, ReqLen: 88,
		Reqs: []Req{{Outcome: stats.OK, Status: 200, Length: 1670, NewConn: true,
			T: record.Timing{stats.Connect: 61, stats.Processing: 212, stats.Waiting: 190, stats.Total: 273}}},
	}
}

// ConfidenceSpec: three responses whose whole-ms means and medians are far
// apart for their deviations: ERROR for processing and total, WARNING for
// waiting (see writeSanity).
func ConfidenceSpec(samples bool) Spec {
	reqs := make([]Req, 3)
	for i, v := range [][2]int64{{1400, 1000}, {1400, 1000}, {1600, 2400}} {
		reqs[i] = Req{Outcome: stats.OK, Status: 200, Length: 100, NewConn: true,
			T: record.Timing{stats.Processing: v[0], stats.Waiting: v[1], stats.Total: v[0]}}
	}
	return Spec{
		Target: Target("/", 1, 3), Elapsed: 4473 * time.Microsecond, StoppedBy: stats.StopCount,
		Server: "gb/test", HeaderLen: 100, ReqLen: 80, Samples: samples, Reqs: reqs,
	}
}

// RateSpec: gb -R 1000 stopped by SIGINT: corrected latency, dropped and
// aborted requests.
func RateSpec() Spec {
	reqs := OKRequests(500, 6, 1670, true, 5)
	for range 20 {
		reqs = append(reqs, Req{Outcome: stats.Dropped})
	}
	for range 3 {
		reqs = append(reqs, Req{Outcome: stats.AbortedSignal})
	}
	s := Spec{
		Target: Target("/file", 5, 0), Elapsed: 523640 * time.Microsecond, StoppedBy: stats.StopSignal,
		Server: "nginx/1.22.1", HeaderLen: 240, ReqLen: 112, Reqs: reqs,
	}
	s.Target.KeepAlive, s.Target.Rate = true, 1000
	return s
}

// VariableSpec: ab -l against a page of varying length, stopped by an
// error whose text holds ab's labels, a percent and a control sequence.
func VariableSpec() Spec {
	reqs := OKRequests(300, 7, 0, false, 1)
	for i := range reqs {
		reqs[i].Length = 900 + int64(i%7)
	}
	s := Spec{
		Target: Target("/dyn", 3, 300), Elapsed: 30555 * time.Microsecond, StoppedBy: stats.StopError,
		StopError: "server said Total: 100% gone\x1b[31m, Failed requests: all",
		Server:    "Caddy\x7f/2", HeaderLen: 150, ReqLen: 88, Reqs: reqs,
	}
	s.Target.VariableLength = true
	return s
}

// ServerProfile is a server profile as gb -k -c 8 --profile=cpu,allocs,trace
// against gb serve's /leftpad records it.
func ServerProfile() *stats.ServerProfile {
	dir := "gb-profiles/20261121-135130"
	fn := func(name string, flat, cum int64) stats.ProfileFunction {
		return stats.ProfileFunction{Name: name, Flat: flat, Cum: cum}
	}
	const ms = int64(time.Millisecond)
	return &stats.ServerProfile{
		URL:      "http://127.0.0.1:8080/debug/pprof/",
		Kinds:    []string{"cpu", "allocs", "trace"},
		Requests: 1000,
		Dir:      dir,
		CPU: &stats.ServerCPU{
			Windows: 3, Profiled: 3017 * time.Millisecond, Covered: 2461 * time.Millisecond, Load: 2518 * time.Millisecond,
			Cores: 0.6663, Top: stats.ProfileTop{
				SampleType: "cpu", Unit: "nanoseconds", Total: 1640 * ms, Command: "go tool pprof -top " + dir + "/cpu.pb.gz",
				Functions: []stats.ProfileFunction{
					fn("runtime.memmove", 150*ms, 150*ms), fn("runtime.unlock2", 120*ms, 150*ms),
					fn("runtime.concatstrings", 60*ms, 590*ms), fn("runtime.futex", 10*ms, 10*ms),
				},
			},
			TopCum: stats.ProfileTop{
				SampleType: "cpu", Unit: "nanoseconds", Total: 1640 * ms, Command: "go tool pprof -top -cum " + dir + "/cpu.pb.gz",
				Functions: []stats.ProfileFunction{
					fn("net/http.(*conn).serve", 10*ms, 730*ms),
					fn("github.com/gb-bench/gb/internal/testserver.leftpad", 0, 600*ms),
					fn("runtime.concatstrings", 60*ms, 590*ms),
				},
			},
			Own: stats.ProfileTop{
				SampleType: "cpu", Unit: "nanoseconds", Total: 1640 * ms,
				Functions: []stats.ProfileFunction{
					fn("github.com/gb-bench/gb/internal/testserver.(*Server).serveLeftpad", 0, 620*ms),
					fn("github.com/gb-bench/gb/internal/testserver.leftpad", 0, 600*ms),
					{Name: "runtime.concatstrings", Flat: 60 * ms, Cum: 590 * ms, Callee: true},
					{Name: "encoding/json.Marshal", Flat: 0, Cum: 20 * ms, Callee: true},
				},
			},
		},
		AllocObjects: 2013312,
		Allocs: &stats.ProfileTop{
			SampleType: "alloc_space", Unit: "bytes", Total: 1997075304, Command: "go tool pprof -top " + dir + "/allocs.pb.gz",
			Functions: []stats.ProfileFunction{
				fn("github.com/gb-bench/gb/internal/testserver.leftpad", 1945650714, 1945650714),
				fn("net/http.(*Transport).dialConn", 524344, 8417388),
				fn("net/http.(*conn).serve", 0, 1964803911),
			},
		},
		Runtime: &stats.ServerRuntime{AllocBytes: 1997075304, AllocObjects: 2009690, GCCycles: 616,
			GCPause: 400213385 * time.Nanosecond, HeapAlloc: 4431016},
		Files: []stats.ProfileFile{
			{Kind: "cpu", Path: dir + "/cpu.pb.gz", Open: "go tool pprof -http=127.0.0.1:0 " + dir + "/cpu.pb.gz"},
			{Kind: "allocs", Path: dir + "/allocs.pb.gz", Open: "go tool pprof -http=127.0.0.1:0 " + dir + "/allocs.pb.gz"},
			{Kind: "trace", Path: dir + "/trace.out", Open: "go tool trace " + dir + "/trace.out"},
		},
	}
}

// HostileProfile holds what a hostile server can put in a profile: ab's
// labels, percent signs and control sequences in function names, and
// notes; no memstats, so allocation per request comes from the profile.
func HostileProfile() *stats.ServerProfile {
	sp := ServerProfile()
	sp.Runtime = nil
	sp.Notes = []string{"cpu: HTTP 500: Total: 100% \x1b[31mbusy", "runtime: no memstats at http://127.0.0.1:8080/debug/vars"}
	sp.CPU.Top.Functions[0].Name = "Requests per second: 99.5%\x1b[2J"
	sp.CPU.TopCum.Command = ""
	sp.Allocs.Functions[1].Name = "Failed requests:\r\nComplete requests: 1"
	sp.CPU.Own.Functions[2].Name = "Total: 50%\x1b[0m"
	return sp
}

// ProfileFixtures are the report fixtures with a server profile.
func ProfileFixtures() map[string]*stats.Result {
	out := map[string]*stats.Result{}
	for name, sp := range map[string]*stats.ServerProfile{"profile": ServerProfile(), "hostile profile": HostileProfile(),
		"diagnosis": DiagnosedProfile(false), "hostile diagnosis": DiagnosedProfile(true)} {
		r := Build(KeepAliveSpec())
		r.Profile = sp
		out[name] = r
	}
	return out
}

// DiagnosedProfile is ServerProfile with the diagnosis gb makes of a
// server that allocates too much (as gb serve's /slow/garbage), every
// part present; hostile puts ab's labels, percent signs and control
// sequences in the server-supplied names.
func DiagnosedProfile(hostile bool) *stats.ServerProfile {
	sp := ServerProfile()
	fn := "github.com/gb-bench/gb/internal/testserver.makeGarbage"
	site := fn
	if hostile {
		fn = "Requests per second: 99%\x1b[2J"
		site = "Failed requests:\r\nTotal: 1"
	}
	sp.Diagnosis = &stats.Diagnosis{
		Bound:   "gc",
		Verdict: "GC and allocation: 2100us of CPU per request (79 pct of the server's CPU), most by " + fn,
		CPU: &stats.DiagnosisCPU{PerRequest: 2650 * time.Microsecond, Classes: []stats.CPUClass{
			{Class: "alloc", PerRequest: 1250 * time.Microsecond, Share: 0.472, Top: "runtime.mallocgcSmallScanNoHeader"},
			{Class: "gc", PerRequest: 850 * time.Microsecond, Share: 0.321, Top: "runtime.gcDrainN"},
			{Class: "user_cpu", PerRequest: 450 * time.Microsecond, Share: 0.17, Top: fn},
			{Class: "http_stack", PerRequest: 100 * time.Microsecond, Share: 0.037, Top: "net/http.(*conn).serve"},
		}},
		GC: &stats.DiagnosisGC{BytesPerRequest: 1289515, ObjectsPerRequest: 20030, CyclesPer1000: 230, MaxPause: 412 * time.Microsecond, Source: "memstats",
			CPUShare: 0.792, Sites: []stats.AllocSite{{Function: site, BytesPerRequest: 1179720, Share: 0.972}}},
		Contention: []stats.DiagnosisWait{{Kind: "mutex", Site: site, PerRequest: 15700 * time.Microsecond, Events: 159}},
		Goroutines: &stats.DiagnosisGoroutines{Before: 10, During: 414, After: -1,
			Grew: []stats.GoroutineGrowth{{Stack: site + " < net/http.(*conn).serve", Added: 400}}},
		Missing: []string{"block: no blocking recorded: the server must call runtime.SetBlockProfileRate(10000) (or accept that it has none)"},
	}
	return sp
}

// RampStep builds one fake step: n responses whose latency is about lat µs
// (with a little jitter from seed), taking elapsed, offset from the first
// step's start. In rate steps the corrected latency adds queue µs.
func RampStep(tg stats.Load, n int, lat, queue int64, elapsed time.Duration, offset time.Duration, seed uint64) *stats.Result {
	rng := rand.New(rand.NewPCG(seed, 2))
	reqs := make([]Req, n)
	for i := range reqs {
		var t record.Timing
		t[stats.Total] = lat + rng.Int64N(lat/20+1)
		t[stats.Processing] = t[stats.Total]
		t[stats.Waiting] = t[stats.Total] - 40
		t[stats.Corrected] = t[stats.Total] + queue*int64(i)/int64(n)
		reqs[i] = Req{Outcome: stats.OK, Status: 200, T: t, Length: 1024, KeepAlive: true, NewConn: i < tg.Concurrency}
	}
	r := Build(Spec{Target: tg, Elapsed: elapsed, StoppedBy: stats.StopCount, Server: "gb-serve",
		HeaderLen: 120, ReqLen: 90, Reqs: reqs})
	r.Start, r.End = r.Start.Add(offset), r.End.Add(offset)
	return r
}

// ConcurrencyRamp: concurrency 2 to 16 by 2, 10 requests per connection,
// against a server of 8 workers taking 10 ms each (800 req/s at most).
func ConcurrencyRamp() *ramp.Ramp {
	rp := &ramp.Ramp{Version: stats.FormatVersion, GBVersion: "test", By: ramp.ByConcurrency,
		Command: []string{"gb", "ramp", "-k", "--from", "2", "--to", "16", "--step", "2", "--per-user", "10", "http://127.0.0.1:8080/limited?d=10ms&max=8"}}
	var offset time.Duration
	for i, c := range []int{2, 4, 6, 8, 10, 12, 14, 16} {
		tg := Target("/limited?d=10ms&max=8", c, int64(10*c))
		tg.URL, tg.KeepAlive = "http://127.0.0.1:8080"+tg.Path, true
		lat := int64(10_150 * max(c, 8) / 8)
		tput := 1e6 * float64(c) / float64(lat) // Little's law
		elapsed := time.Duration(float64(10*c) / tput * float64(time.Second))
		rp.Steps = append(rp.Steps, RampStep(tg, 10*c, lat, 0, elapsed, offset, uint64(i)))
		rp.ReplyRates = append(rp.ReplyRates, nil)
		offset += elapsed + time.Second
	}
	rp.ReplyRates[7] = []float64{790, 801.5, 795}
	rp.Saturation = ramp.Saturation(rp.By, rp.Steps, 0.01) + 1
	return rp
}

// RateRamp: 200 to 1200 req/s by 200 for 1 s each over a pool of 20
// connections, against a server that serves 800 req/s at most: beyond it
// the achieved rate stays at 800 and requests queue behind the schedule.
func RateRamp() *ramp.Ramp {
	rp := &ramp.Ramp{Version: stats.FormatVersion, GBVersion: "test", By: ramp.ByRate,
		Command: []string{"gb", "ramp", "-k", "-c", "20", "--rate-from", "200", "--rate-to", "1200", "--rate-step", "200", "--step-time", "1s", "http://127.0.0.1:8080/hello"}}
	var offset time.Duration
	for i, rate := range []int{200, 400, 600, 800, 1000, 1200} {
		tg := Target("/hello", 20, int64(rate))
		tg.KeepAlive, tg.Rate = true, float64(rate)
		elapsed := time.Second
		var queue int64
		if rate > 800 {
			elapsed = time.Duration(float64(rate) / 800 * float64(time.Second))
			queue = elapsed.Microseconds() - 1_000_000
		}
		rp.Steps = append(rp.Steps, RampStep(tg, rate, 900, queue, elapsed, offset, uint64(10+i)))
		rp.ReplyRates = append(rp.ReplyRates, []float64{float64(min(rate, 800))})
		offset += elapsed + time.Second
	}
	rp.Saturation = ramp.Saturation(rp.By, rp.Steps, 0.01) + 1
	return rp
}
