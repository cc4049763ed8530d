package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/capacity"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// TestH2FirstByteTimeout: --h2c with --first-byte-timeout far below -s
// against gb serve's /delay answering after 3 s: every stream ends at
// its own deadline as failed.timeout.ttfb and is reset, on the one
// connection (-c 1), and the run ends by its count (the time limit is
// only a bound); no response, so exit 1 saying why.
func TestH2FirstByteTimeout(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	js := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, "--h2c", "--first-byte-timeout", "0.2", "-s", "60", "-t", "30", "-n", "6", "-c", "1", "--streams", "3",
		"-q", "--json", js, s.URL()+"/delay?d=3s")
	if r.code != 1 || r.stderr != "gb: no request got a response: http2: stream timed out\n" {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := readResult(t, js)
	want(t, "failed.timeout.ttfb", res.Counts.Outcomes[stats.TimeoutFirstByte], 6)
	want(t, "connections", res.Counts.ConnsOpened, 1)
	if res.StoppedBy != stats.StopCount {
		t.Errorf("stopped by %s, want the count", res.StoppedBy)
	}
}

// TestH2Compressed: --compressed over h2c against gb serve's /compressed:
// every coding decodes to the size the server coded, the wire bytes are
// the coded bodies, and the counts equal the server's; bodies that do
// not decode end as failed.decode, each of them, with the connections
// kept.
func TestH2Compressed(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	const n, size = 60, 50000
	for _, enc := range []string{"gzip", "br", "zstd"} {
		url := fmt.Sprintf("%s/compressed?enc=%s&size=%d", s.URL(), enc, size)
		wire := codedLength(t, url)
		before := s.Ledger().HTTP.Requests
		r := compressedRun(t, 0, url, "--h2c", "--compressed", "-n", fmt.Sprint(n), "-c", "2", "--streams", "4")
		c := &r.Counts
		if c.Outcomes[stats.OK] != n || c.DecodedIn != n*size || c.BodyIn != n*wire || !r.Load.Compressed || r.Load.Engine != "h2c" {
			t.Errorf("%s: outcomes %v, decoded %d (want %d), body %d (want %d)", enc, c.Outcomes, c.DecodedIn, n*size, c.BodyIn, n*wire)
		}
		want(t, enc+": server's requests", s.Ledger().HTTP.Requests-before, n)
		want(t, enc+": connections", c.ConnsOpened, 2)
	}
	for _, tc := range []struct{ query, arg, err string }{
		{"enc=gzip&break=corrupt", "", "gzip body corrupt"},
		{"enc=zstd", "Accept-Encoding: gzip, br", "content-encoding zstd not asked for"},
		{"enc=deflate", "", "unknown content-encoding"},
		{"enc=br&break=cut", "", "br body ends inside the compressed stream"},
	} {
		args := []string{"--h2c", "--compressed", "-n", "40", "-c", "2", "--streams", "4"}
		if tc.arg != "" {
			args = append(args, "-H", tc.arg)
		}
		r := compressedRun(t, 1, s.URL()+"/compressed?"+tc.query+"&size=20000", args...)
		want(t, tc.query+": failed.decode", r.Counts.Outcomes[stats.FailDecode], 40)
		want(t, tc.query+": connections", r.Counts.ConnsOpened, 2)
		found := false
		for msg := range r.Counts.Errors {
			found = found || strings.Contains(msg, tc.err)
		}
		if !found {
			t.Errorf("%s: errors %v, want one with %q", tc.query, r.Counts.Errors, tc.err)
		}
	}
}

// TestRampH2CarriesConnections: gb ramp over h2c, concurrency 2 to 6 with
// --compressed and --start-at: the HTTP/2 connections carry from step to
// step (each step opens only its new ones, and gb serve's ledger counts
// 6 connections in all), every body decodes, and the first step starts
// no earlier than --start-at.
func TestRampH2CarriesConnections(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	js := filepath.Join(dir, "ramp.json")
	at := time.Now().Add(2 * time.Second).UTC().Truncate(time.Second).Add(time.Second)
	r := gbProcess(t, "ramp", "--h2c", "--streams", "4", "--compressed", "--start-at", at.Format(time.RFC3339),
		"--from", "2", "--to", "6", "--step", "2", "--per-user", "20", "--pause", "0", "--json", js,
		srv.URL()+"/compressed?enc=gzip&size=1000")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rp := readRamp(t, js)
	if len(rp.Steps) != 3 {
		t.Fatalf("%d steps, want 3", len(rp.Steps))
	}
	var total int64
	for i, s := range rp.Steps {
		c := 2 * (i + 1)
		if s.Complete() != int64(20*c) || s.Counts.Outcomes[stats.OK] != int64(20*c) || s.StoppedBy != stats.StopCount ||
			s.Load.Engine != "h2c" || !s.Load.Compressed || s.Counts.DecodedIn != int64(20*c*1000) {
			t.Errorf("step %d: complete %d, outcomes %v, stopped by %s, engine %s, decoded %d", i+1, s.Complete(),
				s.Counts.Outcomes, s.StoppedBy, s.Load.Engine, s.Counts.DecodedIn)
		}
		want(t, fmt.Sprintf("step %d: connections opened", i+1), s.Counts.ConnsOpened, 2) // the others carried over
		total += s.Complete()
	}
	if rp.Steps[0].Start.Before(at) {
		t.Errorf("the first step started at %v, before --start-at %v", rp.Steps[0].Start, at)
	}
	l := srv.Ledger().HTTP
	want(t, "server's requests", l.Requests, total)
	want(t, "server's connections", l.Conns, 6)
}

// TestRampH2RateStepsKeepPool: rate steps over h2c with a pool of -c 3:
// after a step that ended by its count the next opens no connection, and
// the server never sees more than the pool.
func TestRampH2RateStepsKeepPool(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	js := filepath.Join(t.TempDir(), "ramp.json")
	r := gbProcess(t, "ramp", "--h2c", "-c", "3", "--rate-from", "100", "--rate-to", "300", "--step-time", "500ms",
		"--pause", "0", "--json", js, srv.URL()+"/hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rp := readRamp(t, js)
	for i, s := range rp.Steps {
		if i > 0 && rp.Steps[i-1].StoppedBy == stats.StopCount && s.Counts.ConnsOpened != 0 {
			t.Errorf("step %d opened %d connections; the pool should carry over", i+1, s.Counts.ConnsOpened)
		}
	}
	if c := srv.Ledger().HTTP.Conns; c > 3 || len(rp.Steps) != 3 {
		t.Errorf("%d steps, server saw %d connections (want 3 steps, at most the pool of 3)", len(rp.Steps), c)
	}
}

// TestCapacityCompressed: gb capacity --compressed checks every body: a
// server whose gzip bodies are corrupt gets no answer with it (every
// request failed.decode: the first probe stops the search, exit 1, saying
// why), while without it the same bodies are only bytes and the probes
// pass.
func TestCapacityCompressed(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	js := filepath.Join(t.TempDir(), "cap.json")
	url := srv.URL() + "/compressed?enc=gzip&break=corrupt&size=2000"
	args := []string{"--slo", "p99<10s", "--rate-min", "50", "--rate-max", "100", "--step-time", "400ms", "--warmup", "0", "--json", js}
	r := runCapacity(t, append(append([]string{"--compressed"}, args...), url)...)
	if r.code != exitFailure || r.stderr != "gb capacity: no response at 50 req/s: decode: gzip body corrupt\n" {
		t.Errorf("--compressed: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCapacity(t, append(args, url)...)
	rep := readCapacity(t, js)
	checkCapacityRun(t, r, rep)
	if r.code != exitOK || rep.Status != capacity.AboveMax {
		t.Errorf("without --compressed: exit %d, status %s\n%s%s", r.code, rep.Status, r.stdout, r.stderr)
	}
}

// TestH2SeveralTargets: two URLs and a --targets file, over h2c and over
// --http2 (TLS), both engines: each request is encoded for its target
// (-m applies to the command line's URLs, the file's target keeps its
// method and body), the report and the JSON count each target as for
// HTTP/1.1, and the server's ledger counts every request. (Targets on
// two addresses: TestH2SeveralAddresses.)
func TestH2SeveralTargets(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{TLS: true})
	dir := t.TempDir()
	body := filepath.Join(dir, "body.json")
	if err := os.WriteFile(body, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		base  string
		flags []string
	}{
		{srv.URL(), []string{"--h2c"}},
		{srv.URL(), []string{"--h2c", "--engine", "goroutine"}},
		{srv.TLSURL(), []string{"--http2", "--insecure"}},
	} {
		file := tempFile(t, "targets.txt", fmt.Sprintf("POST %s/ok?status=201\nContent-Type: application/json\n@%s\n", tc.base, body))
		js := filepath.Join(dir, "out.json")
		before := srv.Ledger()
		args := append(append([]string{"-q", "-m", "PUT", "--streams", "4", "-n", "300", "-c", "3", "--targets", file, "--json", js},
			tc.flags...), tc.base+"/hello", tc.base+"/status?s=503")
		r := runGB(t, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d:\n%s", tc.flags, r.code, r.stderr)
		}
		rows := targetLine.FindAllStringSubmatch(r.stdout, -1)
		want := [][]string{{"100", "0.333", "0", "0", "PUT", tc.base + "/hello"},
			{"100", "0.333", "0", "100", "PUT", tc.base + "/status?s=503"},
			{"100", "0.333", "0", "0", "POST", tc.base + "/ok?status=201"}}
		if len(rows) != 3 {
			t.Fatalf("%v: gb section:\n%s", tc.flags, r.stdout)
		}
		for i, row := range rows {
			if strings.Join(row[1:], " ") != strings.Join(want[i], " ") {
				t.Errorf("%v: target %d: %q, want %q", tc.flags, i+1, row[1:], want[i])
			}
		}
		res := readResult(t, js)
		if len(res.Targets) != 3 || res.Targets[0].BodyIn != 100*13 || res.Targets[2].BytesOut <= res.Targets[0].BytesOut ||
			res.Counts.ConnsOpened != 3 || !strings.HasPrefix(res.Load.Engine, "h2") {
			t.Errorf("%v: engine %s, connections %d, JSON targets %+v", tc.flags, res.Load.Engine, res.Counts.ConnsOpened, res.Targets)
		}
		after := srv.Ledger()
		if got := after.HTTP.Requests + after.TLS.Requests - before.HTTP.Requests - before.TLS.Requests; got != 300 {
			t.Errorf("%v: server saw %d requests", tc.flags, got)
		}
	}
}
