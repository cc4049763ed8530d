package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/capacity"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// runCapacity runs gb capacity in this process and restores GOMAXPROCS,
// which it sets for the load.
func runCapacity(t *testing.T, args ...string) result {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var out, errb bytes.Buffer
	code := capacityCmd(args, &out, &errb, make(chan os.Signal))
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

func readCapacity(t *testing.T, path string) *capacity.Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r capacity.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// probeLine is one probe's line under the header.
var probeLine = regexp.MustCompile(`(?m)^ +\d+ +\d+ +[\d.]+ +[\d.]+ +[\d.]+ +\d+ +\d+ +\d+  (pass|fail: .+|rerun .+|interrupted)$`)

// checkCapacityRun checks what any gb capacity run must hold, whatever
// the machine's speed made of its verdict: a line per probe in the
// JSON, the answer's two lines, the exit code the status calls for, and
// each probe's full result at its rate with consistent counts.
func checkCapacityRun(t *testing.T, r result, rep *capacity.Report) {
	t.Helper()
	want := map[capacity.Status]int{capacity.Found: 0, capacity.AboveMax: 0, capacity.BelowMin: exitThresholds,
		capacity.ClientBound: exitFailure, capacity.Interrupted: exitFailure}
	if code, ok := want[rep.Status]; !ok || code != r.code {
		t.Errorf("status %q with exit %d", rep.Status, r.code)
	}
	if n := len(probeLine.FindAllString(r.stdout, -1)); n != len(rep.Probes) || n == 0 {
		t.Errorf("%d probe lines for %d probes in the JSON:\n%s", n, len(rep.Probes), r.stdout)
	}
	if !regexp.MustCompile(`(?m)^capacity: .+\nconfidence: .+$`).MatchString(r.stdout) {
		t.Errorf("no answer in:\n%s", r.stdout)
	}
	for i, p := range rep.Probes {
		res := p.Result
		if res == nil || res.Load.Rate != float64(p.Rate) || len(res.Check()) > 0 {
			t.Fatalf("probe %d: no consistent full result at its rate in the JSON", i+1)
		}
		tot := res.Totals()
		if p.Errors != tot.Failed+tot.Non2xx || p.Non2xx != tot.Non2xx || p.Dropped != tot.Dropped {
			t.Errorf("probe %d: errors %d non2xx %d dropped %d; its result has %+v", i+1, p.Errors, p.Non2xx, p.Dropped, tot)
		}
		if p.Pass && (p.Dropped > 0 || p.ErrorShare > rep.MaxErrors || p.Achieved < 0.99*float64(p.Rate) || p.Retry != "") {
			t.Errorf("probe %d passed with %d dropped, errors %.3f, achieved %.1f of %d, retry %q", i+1, p.Dropped, p.ErrorShare, p.Achieved, p.Rate, p.Retry)
		}
	}
}

// TestCapacityRuns runs a short search end to end against /hello and
// checks its structure (not its answer, which depends on the machine's
// speed; the search itself is tested with scripted probes): the intro,
// a line per probe, the answer, the JSON with every probe's result and
// the HTML page.
func TestCapacityRuns(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	js, html := filepath.Join(dir, "cap.json"), filepath.Join(dir, "cap.html")
	r := runCapacity(t, "--slo", "p99<50ms", "--slo", "errors=0", "--rate-min", "100", "--rate-max", "200",
		"--step-time", "500ms", "--warmup", "100ms", "--json", js, "--html", html, srv.URL()+"/hello")
	if !strings.HasPrefix(r.stdout, "gb capacity: "+srv.URL()+"/hello, SLO p99<50ms, errors=0, errors at most 1%; probes of 500ms after 100ms warm-up\n") {
		t.Errorf("intro:\n%s", r.stdout)
	}
	rep := readCapacity(t, js)
	checkCapacityRun(t, r, rep)
	if rep.MaxErrors != capacity.DefaultMaxErrors || rep.RateMin != 100 || rep.RateMax != 200 {
		t.Errorf("report bounds: max errors %v, rates %d..%d", rep.MaxErrors, rep.RateMin, rep.RateMax)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "SLO p99&lt;50ms, errors=0"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
}

// TestCapacityNon2xx: a server that answers 503 has no capacity, however
// fast gb and the server are: every probe fails on its errors (100% of
// them non-2xx, above --max-errors' 1%), the failure is confirmed by a
// second probe, and the exit is 99. With --max-errors 100% the errors
// fail no probe. Probes of a second: a probe with no response at all
// (a busy machine) would be a runtime failure, not this verdict.
func TestCapacityNon2xx(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	js := filepath.Join(t.TempDir(), "cap.json")
	r := runCapacity(t, "--slo", "p99<10s", "--rate-min", "50", "--rate-max", "100", "--step-time", "1s", "--warmup", "0",
		"--json", js, srv.URL()+"/status?s=503")
	rep := readCapacity(t, js)
	checkCapacityRun(t, r, rep)
	if r.code != exitThresholds || rep.Status != capacity.BelowMin || len(rep.Probes) != 2 || rep.Probes[0].Retry != capacity.RetryConfirm {
		t.Fatalf("exit %d, status %s, %d probes: want 99, below-min after a confirming probe\n%s%s", r.code, rep.Status, len(rep.Probes), r.stdout, r.stderr)
	}
	for _, p := range rep.Probes {
		if !p.ErrorsOver || p.Non2xx == 0 || !strings.Contains(p.Reason, "errors 100% (") {
			t.Errorf("probe at %d: errors over %v, non2xx %d, reason %q", p.Rate, p.ErrorsOver, p.Non2xx, p.Reason)
		}
	}
	if !strings.Contains(r.stdout, "capacity: none within the bounds: even the lowest rate, 50 req/s, failed: errors 100% (") {
		t.Errorf("answer:\n%s", r.stdout)
	}
	r = runCapacity(t, "--slo", "p99<10s", "--max-errors", "100%", "--rate-min", "50", "--rate-max", "100", "--step-time", "1s",
		"--warmup", "0", "--json", js, srv.URL()+"/status?s=503")
	rep = readCapacity(t, js)
	checkCapacityRun(t, r, rep)
	for _, p := range rep.Probes {
		if p.ErrorsOver || strings.Contains(p.Reason, "errors") {
			t.Errorf("--max-errors 100%%: probe at %d failed on errors: %s", p.Rate, p.Reason)
		}
	}
}

// TestCapacityNoServer: nothing listening is a runtime failure (exit 1)
// with the reason, not an answer.
func TestCapacityNoServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	r := runCapacity(t, "--slo", "p99<50ms", "--step-time", "200ms", "--warmup", "0", "http://"+addr+"/")
	if r.code != exitFailure || !strings.Contains(r.stderr, "gb capacity: no response at 100 req/s: ") ||
		!strings.Contains(r.stderr, "refused") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestCapacityUsage: bad input is one line on stderr and exit 22, before
// any load; --help is the usage on stdout, exit 0.
func TestCapacityUsage(t *testing.T) {
	url := "http://127.0.0.1:1/"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{url}, "give at least one --slo"},
		{[]string{"--slo", "p99<<5ms", url}, "p99<<5ms"},
		{[]string{"--slo", "x99<5ms", url}, "unknown metric"},
		{[]string{"--slo", "p99<5parsecs", url}, "p99<5parsecs"},
		{[]string{"--slo", "p99<5ms"}, "want one URL"},
		{[]string{"--slo", "p99<5ms", url, url}, "want one URL"},
		{[]string{"--slo", "p99<5ms", "--precision", "0", url}, "--precision"},
		{[]string{"--slo", "p99<5ms", "--precision", "150%", url}, "--precision"},
		{[]string{"--slo", "p99<5ms", "--rate-min", "0", url}, "--rate-min"},
		{[]string{"--slo", "p99<5ms", "--rate-min", "500", "--rate-max", "100", url}, "--rate-max 100 is below --rate-min 500"},
		{[]string{"--slo", "p99<5ms", "--step-time", "-1s", url}, "--step-time"},
		{[]string{"--slo", "p99<5ms", "-c", "0", url}, "-c"},
		{[]string{"--slo", "p99<5ms", "--max-errors", "101%", url}, "--max-errors"},
		{[]string{"--slo", "p99<5ms", "--max-errors", "-1", url}, "--max-errors"},
		{[]string{"--slo", "p99<5ms", "--max-errors", "lots", url}, "--max-errors"},
		{[]string{"--slo", "p99<5ms", "--bogus", url}, "bogus"},
		{[]string{"--slo", "p99<5ms", "ftp://127.0.0.1/"}, "ftp"},
		{[]string{"--slo", "p99<5ms", "--json", "same.out", "--html", "same.out", url}, "--json and --html both write to same.out"},
		{[]string{"--slo", "p99<5ms", "--json", "-", "--html", "-", url}, "--json and --html both write to -"},
	} {
		r := runCapacity(t, tc.args...)
		if r.code != exitUsage || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 ||
			!strings.HasPrefix(r.stderr, "gb capacity: ") || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q: want 22 and one line naming %q", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
	r := runCapacity(t, "--help")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "Usage: gb capacity --slo") || r.stderr != "" {
		t.Errorf("--help: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestCapacitySIGINT interrupts gb capacity in its first probe (of 30 s):
// it prints the answer, writes the JSON and HTML files asked for, and
// exits 1; the cut probe is stored as interrupted, neither passed nor
// failed.
func TestCapacitySIGINT(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	js, html := filepath.Join(dir, "c.json"), filepath.Join(dir, "c.html")
	cmd, out, errb := startGB(t, "capacity", "--slo", "p99<1s", "--step-time", "30s", "--warmup", "0",
		"--json", js, "--html", html, srv.URL()+"/hello")
	deadline := time.Now().Add(30 * time.Second)
	for srv.Ledger().HTTP.Requests < 20 && time.Now().Before(deadline) { // the probe is under way
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitExit(t, cmd, 30*time.Second)
	if code := cmd.ProcessState.ExitCode(); code != exitFailure {
		t.Fatalf("exit %d, want 1; stderr %s", code, errb)
	}
	if !strings.Contains(out.String(), "capacity: not determined: the search was interrupted") {
		t.Errorf("stdout:\n%s", out)
	}
	rep := readCapacity(t, js)
	if rep.Status != capacity.Interrupted || len(rep.Probes) != 1 {
		t.Fatalf("status %s with %d probes", rep.Status, len(rep.Probes))
	}
	if p := rep.Probes[0]; p.Pass || !p.Interrupted || p.Reason != "interrupted" {
		t.Errorf("the cut probe: pass %v, interrupted %v, reason %q", p.Pass, p.Interrupted, p.Reason)
	}
	if page, err := os.ReadFile(html); err != nil || !bytes.Contains(page, []byte("interrupted")) {
		t.Errorf("HTML: %v", err)
	}
}
