package report

import (
	"math/rand/v2"
	"time"

	"github.com/gb-bench/gb/internal/record"
	"github.com/gb-bench/gb/stats"
)

// fakeStart is the wall-clock start of every fake run: Unix µs of
// Sat Nov 21 13:51:30 2026 UTC.
const fakeStart = int64(1795269090_000000)

// req is one dispatched request of a fake run.
type req struct {
	outcome   stats.Outcome
	status    int           // final status of a complete response
	t         record.Timing // µs, complete responses only
	length    int64         // body length of a complete response
	keepAlive bool          // the connection stayed open after it
	newConn   bool          // it opened a connection
}

// spec describes a fake run. build turns it into a Result the way a live
// run does: per-worker record.Recorders collected by record.Collect.
type spec struct {
	target    stats.Load
	elapsed   time.Duration
	stoppedBy string
	stopError string
	server    string       // Server header of every response
	tls       stats.Server // TLS fields copied into the Result
	headerLen int64        // response header bytes per complete response
	reqLen    int64        // bytes written per request
	retries   int64
	samples   bool // keep per-request samples (-g)
	reqs      []req
}

// build returns the Result of s, as five workers on two shards record it.
func build(s spec) *stats.Result {
	const workers = 5
	shards := record.NewGroups(2)
	rate := s.target.Rate > 0
	recs := make([]*record.Recorder, workers)
	for i := range recs {
		recs[i] = record.NewRecorder(shards[i%len(shards)], rate, s.samples, 0)
	}
	step := s.elapsed.Microseconds() / int64(max(len(s.reqs), 1))
	for i, q := range s.reqs {
		rec := recs[i%workers]
		rec.BytesOut += s.reqLen
		if q.newConn { // closed after the response, or at the end of the run
			rec.ConnsOpened++
			rec.ConnsClosed++
		}
		if q.outcome.Responded() {
			t := q.t
			rec.Status(q.status)
			rec.Response(&t, fakeStart+int64(i)*step)
			rec.Body(q.length, []byte(s.server), int64(i+1))
			rec.BytesIn += s.headerLen + q.length
			rec.BodyIn += q.length
			if q.keepAlive {
				rec.KeepAlive++
			}
		}
		rec.End(q.outcome)
	}
	recs[0].Retries = s.retries
	var dispatched int64 // dropped requests were never dispatched
	for _, q := range s.reqs {
		if q.outcome != stats.Dropped {
			dispatched++
		}
	}
	base := stats.Result{
		GBVersion: "test",
		Command:   []string{"gb", "-n", "fixture", s.target.URL},
		Start:     time.UnixMicro(fakeStart).UTC(),
		End:       time.UnixMicro(fakeStart).Add(s.elapsed).UTC(),
		Elapsed:   s.elapsed,
		StoppedBy: s.stoppedBy,
		StopError: s.stopError,
		Target:    s.target,
		Counts:    stats.Counts{Dispatched: dispatched},
	}
	if s.target.Rate > 0 {
		base.Counts.Scheduled = int64(len(s.reqs))
	}
	r := record.Collect(base, recs, shards)
	if rate { // as load.Run does: the dropped requests were the last due
		per := time.Duration(float64(time.Second) / s.target.Rate)
		r.AddDropped(func(k int64) time.Duration { return time.Duration(dispatched+k) * per })
	}
	r.Server.TLSProtocol = s.tls.TLSProtocol
	r.Server.TLSCipher = s.tls.TLSCipher
	r.Server.TLSTempKey = s.tls.TLSTempKey
	r.Server.TLSServerName = s.tls.TLSServerName
	return r
}

// timing returns a plausible request's phases from rng: connect only on a
// new connection, a waiting time around 200 µs with a tail of slow
// responses, and a processing time a little longer than waiting. Corrected
// adds a queueing delay (used by rate-mode recorders only).
func timing(rng *rand.Rand, newConn bool) record.Timing {
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

// target returns an http GET target on 127.0.0.1:8080.
func target(path string, concurrency int, requests int64) stats.Load {
	return stats.Load{
		URL: "http://127.0.0.1:8080" + path, Method: "GET", Host: "127.0.0.1", Port: 8080, Path: path,
		Concurrency: concurrency, Requests: requests, Timeout: 30 * time.Second, Engine: "fast",
	}
}

// okRequests returns n ok responses of length bytes from seed; keepAlive
// opens conns connections for the first requests and reuses them.
func okRequests(n int, seed uint64, length int64, keepAlive bool, conns int) []req {
	rng := rand.New(rand.NewPCG(seed, 1))
	reqs := make([]req, n)
	for i := range reqs {
		newConn := !keepAlive || i < conns
		reqs[i] = req{outcome: stats.OK, status: 200, t: timing(rng, newConn), length: length,
			keepAlive: keepAlive, newConn: newConn}
	}
	return reqs
}

// fixtures are the Results of the golden tests, by name.
func fixtures() map[string]*stats.Result {
	return map[string]*stats.Result{
		"plain":      build(plainSpec(false)),
		"keepalive":  build(keepAliveSpec()),
		"failures":   build(failuresSpec()),
		"post":       build(postSpec()),
		"https":      build(httpsSpec()),
		"zero":       build(zeroSpec()),
		"one":        build(oneSpec()),
		"confidence": build(confidenceSpec(false)),
		"rate":       build(rateSpec()),
		"variable":   build(variableSpec()),
	}
}

// plainSpec: ab -c 5 -n 1000 http://127.0.0.1:8080/file.
func plainSpec(samples bool) spec {
	return spec{
		target: target("/file", 5, 1000), elapsed: 72108 * time.Microsecond, stoppedBy: stats.StopCount,
		server: "nginx/1.22.1", headerLen: 235, reqLen: 88, samples: samples,
		reqs: okRequests(1000, 1, 1670, false, 1),
	}
}

// keepAliveSpec: ab -k -c 5 -n 1000, five connections.
func keepAliveSpec() spec {
	s := spec{
		target: target("/file", 5, 1000), elapsed: 21440 * time.Microsecond, stoppedBy: stats.StopCount,
		server: "nginx/1.22.1", headerLen: 240, reqLen: 112,
		reqs: okRequests(1000, 2, 1670, true, 5),
	}
	s.target.KeepAlive = true
	return s
}

// failuresSpec: ab -k -c 10 -t 2 against a flaky server: non-2xx
// responses, length mismatches, write errors, every failure class of the
// breakdown, aborted requests at the time limit and stale-connection
// retries.
func failuresSpec() spec {
	rng := rand.New(rand.NewPCG(3, 1))
	var reqs []req
	add := func(n int, q req) {
		for range n {
			q.t = timing(rng, q.newConn)
			reqs = append(reqs, q)
		}
	}
	add(400, req{outcome: stats.OK, status: 200, length: 512, keepAlive: true})
	add(12, req{outcome: stats.OK, status: 200, length: 498, keepAlive: true})
	add(50, req{outcome: stats.Non2xx, status: 503, length: 190, newConn: true})
	add(5, req{outcome: stats.FailConnect, newConn: true})
	add(4, req{outcome: stats.FailWrite})
	add(3, req{outcome: stats.FailReset})
	add(2, req{outcome: stats.TimeoutFirstByte})
	add(2, req{outcome: stats.FailTruncated})
	add(1, req{outcome: stats.FailProtocol})
	add(10, req{outcome: stats.AbortedDeadline})
	reqs[0].newConn = true
	s := spec{
		target: target("/api/items?page=2&sort=asc", 10, 0), elapsed: 2000417 * time.Microsecond,
		stoppedBy: stats.StopTime, server: "Apache/2.4.41 (Ubuntu)", headerLen: 310, reqLen: 130,
		retries: 3, reqs: reqs,
	}
	s.target.KeepAlive = true
	s.target.TimeLimit = 2 * time.Second
	return s
}

// postSpec: ab -p body.txt -T text/plain -c 5 -n 1000 .../post.
func postSpec() spec {
	s := spec{
		target: target("/post", 5, 1000), elapsed: 48297 * time.Microsecond, stoppedBy: stats.StopCount,
		server: "nginx/1.22.1", headerLen: 142, reqLen: 139,
		reqs: okRequests(1000, 4, 3, false, 1),
	}
	s.target.Method, s.target.BodyLength = "POST", 6
	return s
}

// httpsSpec: ab -c 5 -n 200 https://localhost:8443/file over TLS 1.3.
func httpsSpec() spec {
	s := spec{
		target: target("/file", 5, 200), elapsed: 163112 * time.Microsecond, stoppedBy: stats.StopCount,
		server: "nginx/1.22.1", headerLen: 235, reqLen: 88,
		tls: stats.Server{TLSProtocol: "TLS 1.3", TLSCipher: "TLS_AES_128_GCM_SHA256",
			TLSTempKey: "X25519 253 bits", TLSServerName: "localhost"},
		reqs: okRequests(200, 5, 1670, false, 1),
	}
	for i := range s.reqs {
		s.reqs[i].t[stats.Connect] += 2500 // the handshake
		s.reqs[i].t[stats.Total] += 2500
	}
	s.target.URL, s.target.Host, s.target.Port = "https://localhost:8443/file", "localhost", 8443
	s.target.TLSVerify = true
	return s
}

// zeroSpec: every connection refused, the run stopped by the error.
func zeroSpec() spec {
	reqs := make([]req, 5)
	for i := range reqs {
		reqs[i] = req{outcome: stats.FailConnect, newConn: true}
	}
	return spec{
		target: target("/", 1, 5), elapsed: 3117 * time.Microsecond, stoppedBy: stats.StopError,
		stopError: "dial tcp 127.0.0.1:8080: connect: connection refused", reqLen: 80, reqs: reqs,
	}
}

// oneSpec: ab -n 1.
func oneSpec() spec {
	return spec{
		target: target("/file", 1, 1), elapsed: 295 * time.Microsecond, stoppedBy: stats.StopCount,
		server: "nginx/1.22.1", headerLen: 235, reqLen: 88,
		reqs: []req{{outcome: stats.OK, status: 200, length: 1670, newConn: true,
			t: record.Timing{stats.Connect: 61, stats.Processing: 212, stats.Waiting: 190, stats.Total: 273}}},
	}
}

// confidenceSpec: three responses whose whole-ms means and medians are far
// apart for their deviations: ERROR for processing and total, WARNING for
// waiting (see writeSanity).
func confidenceSpec(samples bool) spec {
	reqs := make([]req, 3)
	for i, v := range [][2]int64{{1400, 1000}, {1400, 1000}, {1600, 2400}} {
		reqs[i] = req{outcome: stats.OK, status: 200, length: 100, newConn: true,
			t: record.Timing{stats.Processing: v[0], stats.Waiting: v[1], stats.Total: v[0]}}
	}
	return spec{
		target: target("/", 1, 3), elapsed: 4473 * time.Microsecond, stoppedBy: stats.StopCount,
		server: "gb/test", headerLen: 100, reqLen: 80, samples: samples, reqs: reqs,
	}
}

// rateSpec: gb -R 1000 stopped by SIGINT: corrected latency, dropped and
// aborted requests.
func rateSpec() spec {
	reqs := okRequests(500, 6, 1670, true, 5)
	for range 20 {
		reqs = append(reqs, req{outcome: stats.Dropped})
	}
	for range 3 {
		reqs = append(reqs, req{outcome: stats.AbortedSignal})
	}
	s := spec{
		target: target("/file", 5, 0), elapsed: 523640 * time.Microsecond, stoppedBy: stats.StopSignal,
		server: "nginx/1.22.1", headerLen: 240, reqLen: 112, reqs: reqs,
	}
	s.target.KeepAlive, s.target.Rate = true, 1000
	return s
}

// variableSpec: ab -l against a page of varying length, stopped by an
// error whose text holds ab's labels, a percent and a control sequence.
func variableSpec() spec {
	reqs := okRequests(300, 7, 0, false, 1)
	for i := range reqs {
		reqs[i].length = 900 + int64(i%7)
	}
	s := spec{
		target: target("/dyn", 3, 300), elapsed: 30555 * time.Microsecond, stoppedBy: stats.StopError,
		stopError: "server said Total: 100% gone\x1b[31m, Failed requests: all",
		server:    "Caddy\x7f/2", headerLen: 150, reqLen: 88, reqs: reqs,
	}
	s.target.VariableLength = true
	return s
}
