package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/ramp"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// readRamp reads gb ramp's --json file.
func readRamp(t *testing.T, path string) *ramp.Ramp {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rp ramp.Ramp
	if err := json.Unmarshal(b, &rp); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &rp
}

// csvRows returns the rows of a CSV file split into fields, header first.
func csvRows(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		rows = append(rows, strings.Split(l, ","))
	}
	return rows
}

// checkSaturation checks that the ramp's stdout and plot script agree
// with the saturation step its JSON names, whichever step the machine's
// speed made it (the rule itself is tested on scripted steps in package
// report).
func checkSaturation(t *testing.T, r result, rp *ramp.Ramp, gp string) {
	t.Helper()
	if rp.Saturation < 0 || rp.Saturation > len(rp.Steps) || rp.Stopped != 0 {
		t.Fatalf("saturation step %d, stopped step %d of %d steps", rp.Saturation, rp.Stopped, len(rp.Steps))
	}
	line := "saturation: none found"
	if rp.Saturation > 0 {
		line = fmt.Sprintf("saturation: step %d, ", rp.Saturation)
	}
	if !strings.Contains(r.stdout, line) {
		t.Errorf("stdout lacks %q:\n%s", line, r.stdout)
	}
	if gp == "" {
		return
	}
	b, err := os.ReadFile(gp)
	if err != nil {
		t.Fatal(err)
	}
	mark := "no saturation point within the ramp"
	if rp.Saturation > 0 {
		mark = "set arrow 1 from "
	}
	if !strings.Contains(string(b), mark) {
		t.Errorf("the plot lacks %q:\n%s", mark, b)
	}
}

// TestRampConcurrencySteps ramps concurrency 2 to 8 against a server of
// 4 workers taking 100 ms each (/limited). It checks what does not
// depend on the machine's speed: keep-alive connections are carried from
// step to step, every request reaches the server, the saturation line
// and the plot agree with the JSON, and the files are consistent.
func TestRampConcurrencySteps(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	f := func(name string) string { return filepath.Join(dir, name) }
	r := gbProcess(t, "ramp", "-k", "--from", "2", "--to", "8", "--step", "2", "--per-user", "6", "--pause", "0",
		"--csv", f("ramp.csv"), "--autobench", f("ramp.tsv"), "--plot", f("ramp.gp"), "--json", f("ramp.json"),
		srv.URL()+"/limited?d=100ms&max=4")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rp := readRamp(t, f("ramp.json"))
	if len(rp.Steps) != 4 || rp.By != ramp.ByConcurrency || rp.MaxErrors != 0.01 {
		t.Fatalf("%d steps by %q, max errors %v; want 4 by concurrency, 1%%", len(rp.Steps), rp.By, rp.MaxErrors)
	}
	checkSaturation(t, r, rp, f("ramp.gp"))
	var total int64
	for i, s := range rp.Steps {
		c := 2 * (i + 1)
		if s.Load.Concurrency != c || s.Complete() != int64(6*c) || s.StoppedBy != stats.StopCount || len(s.Check()) > 0 {
			t.Errorf("step %d: concurrency %d, complete %d, stopped by %s, check %v", i+1, s.Load.Concurrency, s.Complete(), s.StoppedBy, s.Check())
		}
		if s.Counts.ConnsOpened != 2 { // two more connections per step; the others carried over
			t.Errorf("step %d opened %d connections, want 2", i+1, s.Counts.ConnsOpened)
		}
		total += s.Complete()
	}
	l := srv.Ledger().HTTP
	if l.Requests != total || l.Conns != 8 {
		t.Errorf("server saw %d requests on %d connections; gb completed %d, want 8 connections", l.Requests, l.Conns, total)
	}
	rows := csvRows(t, f("ramp.csv"))
	if len(rows) != 5 || len(rows[0]) != 18 || rows[0][1] != "concurrency" || rows[2][1] != "4" || rows[2][2] != "24" {
		t.Errorf("CSV: %d rows, header %v, row 2 %v", len(rows), rows[0], rows[2])
	}
	tsv, _ := os.ReadFile(f("ramp.tsv"))
	if !strings.HasPrefix(string(tsv), "dem_req_rate\treq_rate_127.0.0.1\t") || strings.Count(string(tsv), "\n") != 5 {
		t.Errorf("autobench file:\n%s", tsv)
	}
	renderPlot(t, dir, "ramp.gp", "ramp.png")
}

// renderPlot runs gnuplot on the script in dir and checks the PNG. It is
// skipped without gnuplot, unless GB_REQUIRE_NGINX=1 (CI installs both).
func renderPlot(t *testing.T, dir, gp, png string) {
	t.Helper()
	bin, err := exec.LookPath("gnuplot")
	if err != nil {
		if os.Getenv("GB_REQUIRE_NGINX") == "1" {
			t.Fatal("gnuplot is required (GB_REQUIRE_NGINX=1) but not installed")
		}
		t.Log("gnuplot not installed: plot not rendered")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, filepath.Base(gp))
	cmd.Dir = dir // the script names its files as given to gb, relative here
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("gnuplot %s: %v\n%s", gp, err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, png))
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("%s: %v, not a PNG", png, err)
	}
}

// TestRampRateSteps ramps the rate 100 to 400 req/s in half-second steps
// over a pool of 8 connections. It checks what does not depend on the
// machine's speed: each step schedules exactly rate × step time
// requests, the pool carries over after a step that ended by its count,
// the saturation line and the plot agree with the JSON, and the CSV has
// a row per step.
func TestRampRateSteps(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	r := gbProcess(t, "ramp", "-k", "-c", "8", "--rate-from", "100", "--rate-to", "400", "--step-time", "500ms", "--pause", "0",
		"--csv", filepath.Join(dir, "r.csv"), "--plot", filepath.Join(dir, "r.gp"), "--json", filepath.Join(dir, "ramp.json"),
		srv.URL()+"/delay?d=2ms")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rp := readRamp(t, filepath.Join(dir, "ramp.json"))
	if len(rp.Steps) != 4 || rp.By != ramp.ByRate || !strings.Contains(r.stdout, "rate/s") {
		t.Fatalf("%d steps by %q; stdout:\n%s", len(rp.Steps), rp.By, r.stdout)
	}
	checkSaturation(t, r, rp, filepath.Join(dir, "r.gp"))
	for i, s := range rp.Steps {
		rate := float64(100 * (i + 1))
		if s.Load.Rate != rate || s.Load.Concurrency != 8 || s.Counts.Scheduled != int64(rate/2) || len(s.Check()) > 0 {
			t.Errorf("step %d: rate %v pool %d scheduled %d check %v", i+1, s.Load.Rate, s.Load.Concurrency, s.Counts.Scheduled, s.Check())
		}
		if s.Latency[stats.Corrected] == nil {
			t.Errorf("step %d has no corrected latency", i+1)
		}
		if i > 0 && rp.Steps[i-1].StoppedBy == stats.StopCount && s.Counts.ConnsOpened != 0 {
			t.Errorf("step %d opened %d connections; the pool should carry over", i+1, s.Counts.ConnsOpened)
		}
	}
	rows := csvRows(t, filepath.Join(dir, "r.csv"))
	if len(rows) != 5 || rows[1][13] != "100.00" || rows[4][13] != "400.00" {
		t.Errorf("CSV rows %v", rows)
	}
	renderPlot(t, dir, "r.gp", "r.png")
}

// TestRampNon2xx: a server that answers 503 saturates at the first step,
// whatever the machine's speed: every response is non-2xx, above
// --max-errors' 1%. With --max-errors 100% the errors mark no step.
func TestRampNon2xx(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	js := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, "ramp", "-k", "--from", "1", "--to", "2", "--per-user", "5", "--pause", "0", "--json", js, srv.URL()+"/status?s=503")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rp := readRamp(t, js)
	if rp.Saturation != 1 || !strings.Contains(r.stdout, "saturation: step 1, concurrency 1: 100% of its requests failed or were answered non-2xx (0 failed, 5 non-2xx; --max-errors 1%)") {
		t.Errorf("saturation step %d:\n%s", rp.Saturation, r.stdout)
	}
	r = runGB(t, "ramp", "-k", "--from", "1", "--to", "2", "--per-user", "5", "--pause", "0", "--max-errors", "100", "--json", js, srv.URL()+"/status?s=503")
	if rp = readRamp(t, js); r.code != 0 || rp.MaxErrors != 1 || strings.Contains(r.stdout, "non-2xx") {
		t.Errorf("--max-errors 100: exit %d, max errors %v:\n%s", r.code, rp.MaxErrors, r.stdout)
	}
}

// TestRampFileFails: an output file that cannot be written at the end
// (/dev/full takes no byte) is one line naming gb ramp and the file, and
// exit 1; the steps ran and were printed.
func TestRampFileFails(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	srv := testsupport.Server(t, testserver.Options{})
	r := runGB(t, "ramp", "-k", "--from", "1", "--to", "1", "--per-user", "3", "--pause", "0", "--json", "/dev/full", srv.URL()+"/hello")
	if r.code != 1 || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "gb ramp: cannot write --json /dev/full: ") ||
		!strings.Contains(r.stdout, "saturation:") {
		t.Errorf("exit %d; stderr %q; stdout:\n%s", r.code, r.stderr, r.stdout)
	}
}

// TestRampJSONToStdout: with --json -, the process's stdout carries the
// JSON alone and the step lines go to stderr. It runs the binary: the JSON
// goes to the process's standard output, not to run's stdout writer.
func TestRampJSONToStdout(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	r := runGB(t, "ramp", "-k", "--from", "1", "--to", "2", "--per-user", "3", "--pause", "0", "--json", "-", srv.URL()+"/hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rp ramp.Ramp
	if err := json.Unmarshal([]byte(r.stdout), &rp); err != nil {
		t.Fatalf("stdout is not the JSON alone: %v\n%s", err, r.stdout)
	}
	if len(rp.Steps) != 2 || rp.Steps[1].Complete() != 6 || !strings.Contains(r.stderr, "concurrency") || !strings.Contains(r.stderr, "saturation:") {
		t.Errorf("%d steps; stderr:\n%s", len(rp.Steps), r.stderr)
	}
}

// TestRampNginx ramps against nginx: every request is in its access log,
// and with keep-alive the connections of one step serve the next.
func TestRampNginx(t *testing.T) {
	ngx := testsupport.StartNginx(t, testsupport.NginxOptions{})
	js := filepath.Join(t.TempDir(), "n.json")
	r := runGB(t, "ramp", "-k", "--from", "2", "--to", "8", "--step", "2", "--per-user", "50", "--pause", "0",
		"--json", js, ngx.URL+"/10k.dat")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rp := readRamp(t, js)
	var complete, bytesIn int64
	for _, s := range rp.Steps {
		complete += s.Complete()
		bytesIn += s.Counts.BytesIn
	}
	log := ngx.Totals(t)
	if complete != 1000 || log.Requests != 1000 || log.Status[200] != 1000 || log.BytesSent != bytesIn {
		t.Errorf("gb %d requests %d bytes; nginx logged %d (%d ok) %d bytes", complete, bytesIn, log.Requests, log.Status[200], log.BytesSent)
	}
	if log.Conns != 8 {
		t.Errorf("nginx saw %d connections, want 8 (connections carried across steps)", log.Conns)
	}
}

// TestRampSIGINT interrupts a ramp during its second step: the completed
// step is in the CSV, the cut one only in the JSON, and gb exits 1. Each
// step lasts at least 5 s (500 requests of 10 ms per connection), and the
// signal goes as soon as the server sees the second step's requests, so
// it lands in that step however slow the machine.
func TestRampSIGINT(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	csv, js := filepath.Join(dir, "s.csv"), filepath.Join(dir, "s.json")
	cmd, out, errb := startGB(t, "ramp", "-k", "--from", "1", "--to", "3", "--per-user", "500", "--pause", "0",
		"--csv", csv, "--json", js, srv.URL()+"/delay?d=10ms")
	deadline := time.Now().Add(60 * time.Second)
	for srv.Ledger().HTTP.Requests <= 500 && time.Now().Before(deadline) { // step 1 is 500 requests
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitExit(t, cmd, 20*time.Second)
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", code, errb)
	}
	if !strings.Contains(errb.String(), "gb ramp: interrupted") || !strings.Contains(out.String(), "saturation:") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errb)
	}
	if rows := csvRows(t, csv); len(rows) != 2 {
		t.Errorf("CSV has %d rows, want the header and step 1", len(rows))
	}
	rp := readRamp(t, js)
	if len(rp.Steps) != 2 || rp.Steps[0].StoppedBy != stats.StopCount || rp.Steps[1].StoppedBy != stats.StopSignal {
		t.Fatalf("JSON: %d steps", len(rp.Steps))
	}
	if cut := rp.Steps[1]; len(cut.Check()) > 0 || cut.Counts.Dispatched != cut.Complete()+cut.Counts.Outcomes[stats.AbortedSignal] {
		t.Errorf("cut step: check %v, dispatched %d", cut.Check(), cut.Counts.Dispatched)
	}
}

// TestRampBadOptions: each bad command line gives one line on stderr and
// its exit code (22 for usage errors), and sends nothing. The transcript,
// with gb ramp -h's usage, is testdata/ramp-bad-options.golden.
func TestRampBadOptions(t *testing.T) {
	const url = "http://127.0.0.1:1/"
	var all strings.Builder
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{url}, 22, "gb ramp: give --from and --to (concurrency steps) or --rate-from and --rate-to (rate steps)"},
		{[]string{"--from", "10", url}, 22, "gb ramp: --from and --to are both needed"},
		{[]string{"--from", "10", "--to", "5", url}, 22, "gb ramp: --to 5 is below --from 10"},
		{[]string{"--from", "1", "--to", "1000001", url}, 22, "gb ramp: --to 1000001: concurrency is at most 1000000"},
		{[]string{"--from", "0", "--to", "5", url}, 22, `gb ramp: invalid value "0" for --from`},
		{[]string{"--from", "1", "--to", "5000", "--step", "1", url}, 22, "gb ramp: 5000 steps; at most 1000"},
		{[]string{"--from", "1", "--to", "5", "--rate-from", "10", "--rate-to", "20", "-c", "5", url}, 22, "not both"},
		{[]string{"-c", "5", "--from", "1", "--to", "5", url}, 22, "gb ramp: -c is set by the steps"},
		{[]string{"--rate-from", "10", "--rate-to", "20", url}, 22, "gb ramp: rate steps need -c"},
		{[]string{"--rate-from", "1", "--rate-to", "2", "-c", "1", "--step-time", "500ms", url}, 22, "is less than one request"},
		{[]string{"--rate-from", "1.5", "--rate-to", "2", "-c", "1", url}, 22, `gb ramp: invalid value "1.5" for --rate-from`},
		{[]string{"--from", "1", "--to", "5", "--per-user", "10", "--rate-to", "5", url}, 22, "not both"},
		{[]string{"--from", "1", "--to", "5", "-n", "100", url}, 22, "gb ramp: -n is set per step"},
		{[]string{"--from", "1", "--to", "5", "-t", "10", url}, 22, "gb ramp: -t: use --step-time"},
		{[]string{"--from", "1", "--to", "5", "-R", "10", url}, 22, "gb ramp: -R: use --rate-from"},
		{[]string{"--from", "1", "--to", "5", "-e", "x.csv", url}, 22, "gb ramp: -e is for one run's report"},
		{[]string{"--from", "1", "--to", "5", "--profile", url}, 22, "gb ramp: --profile is for one run"},
		{[]string{"--from", "1", "--to", "5", "--plot", "p.gp", url}, 22, "gb ramp: --plot file.gp needs --csv"},
		{[]string{"--from", "1", "--to", "5", "--pause", "soon", url}, 22, `gb ramp: invalid value "soon" for --pause`},
		{[]string{"--from", "1", "--to", "5", "--step-time", "0", url}, 22, `gb ramp: invalid value "0" for --step-time`},
		{[]string{"--from", "1", "--to", "5", "--max-sockets", "-1", url}, 22, `gb ramp: invalid value "-1" for --max-sockets`},
		{[]string{"--from", "1", "--to", "5", "--max-errors", "120%", url}, 22, `gb ramp: invalid value "120%" for --max-errors`},
		{[]string{"--from", "1", "--to", "5", "--csv", "-", "--json", "-", url}, 22, "gb ramp: --csv and --json both write to -: give each its own file"},
		{[]string{"--from", "1", "--to", "5", "--csv", "same.out", "--json", "same.out", url}, 22, "gb ramp: --csv and --json both write to same.out"},
		{[]string{"--from", "1", "--to", "5", "--csv", "r.png", "--plot", "r.gp", url}, 22, "gb ramp: --csv and --plot both write to r.png"},
		{[]string{"--from", "1", "--to", "5"}, 22, "gb ramp: want one URL"},
		{[]string{"--from", "1", "--to", "5", "-j", url}, 22, "gb ramp: illegal option -- j"},
		{[]string{"--bogus", url}, 22, "gb ramp: unknown option --bogus"},
		{[]string{"--from", "1", "--to", "5", "-c", "0", url}, 22, "gb ramp: -c is set by the steps"},
		{[]string{"--from", "1", "--to", "5", "ftp://x/"}, 22, `gb ramp: unsupported URL scheme "ftp"`},
		{[]string{"--from", "1", "--to", "5", "--csv", "/nonexistent/dir/r.csv", url}, 1, "gb ramp: cannot write --csv /nonexistent/dir/r.csv"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := runGB(t, append([]string{"ramp"}, tc.args...)...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
			if lines := strings.Count(r.stderr, "\n"); lines != 1 || !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("stderr (%d lines) %q, want one line containing %q", lines, r.stderr, tc.msg)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q", r.stdout)
			}
			transcript(&all, append([]string{"ramp"}, tc.args...), r, "")
		})
	}
	r := runGB(t, "ramp", "-h")
	if r.code != 22 || !strings.HasPrefix(r.stderr, "Usage: gb ramp") || !strings.Contains(r.stderr, "--per-user") {
		t.Errorf("gb ramp -h: exit %d\n%s", r.code, r.stderr)
	}
	transcript(&all, []string{"ramp", "-h"}, r, "")
	golden(t, "ramp-bad-options", all.String())
}

// TestRampInProcess runs a ramp through run() in this process, so that
// go test -race watches the pool, the step context and the progress
// sampling while real workers use them. Its output, timings masked, is
// testdata/ramp-report.golden.
func TestRampInProcess(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	js := filepath.Join(t.TempDir(), "p.json")
	var out, errb bytes.Buffer
	// 200 requests per connection: with fewer, the carried-over connections
	// of a step could take its whole budget before the new one dialed
	// (seen once in CI with 20: 3 server connections).
	code := run([]string{"ramp", "-k", "--from", "1", "--to", "4", "--per-user", "200", "--pause", "0", "--json", js, srv.URL() + "/hello"},
		&out, &errb, make(chan os.Signal))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	golden(t, "ramp-report", maskRamp(out.String(), srv.URL()))
	rp := readRamp(t, js)
	if len(rp.Steps) != 4 || rp.Steps[3].Complete() != 800 || srv.Ledger().HTTP.Conns != 4 {
		t.Errorf("%d steps, last complete %d, server connections %d (want 4, 800, 4)", len(rp.Steps), rp.Steps[3].Complete(), srv.Ledger().HTTP.Conns)
	}
}
