package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// TestThresholdsGateTheExit: a failed --threshold exits 99 after the full
// report, a passing one 0; the thresholds section, the JUnit file and the
// GitHub step summary say which held.
func TestThresholdsGateTheExit(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	junit, summary := filepath.Join(dir, "j.xml"), filepath.Join(dir, "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	code, out, errs := inProcess("-q", "-n", "100", "--threshold", "p99<1us", "--threshold", "errors<1%", "--junit", junit, srv.URL()+"/hello")
	if code != 99 || !strings.Contains(out, "Complete requests:      100") || !strings.Contains(out, "thresholds:") {
		t.Fatalf("p99<1us: exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	var suite struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	b, err := os.ReadFile(junit)
	if err != nil || xml.Unmarshal(b, &suite) != nil || suite.Tests != 2 || suite.Failures != 1 {
		t.Errorf("junit: %v, %+v:\n%s", err, suite, b)
	}
	if md, err := os.ReadFile(summary); err != nil || !strings.Contains(string(md), "p99") {
		t.Errorf("step summary: %v %q", err, md)
	}
	if code, _, errs := inProcess("-q", "-n", "100", "--threshold", "p99<10s", srv.URL()+"/hello"); code != 0 {
		t.Errorf("p99<10s: exit %d, %s", code, errs)
	}
	if code, _, errs := inProcess("-n", "1", "--threshold", "p99<<1", srv.URL()); code != 22 || strings.Count(errs, "\n") != 1 {
		t.Errorf("malformed threshold: exit %d, %q", code, errs)
	}
}

// TestRepeatAndReport: --repeat 3 keeps every run in the JSON and adds a
// spread line; gb report renders the saved run again as the same text the
// live run printed, and writes .hgrm and .hlog files from it.
func TestRepeatAndReport(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	js, one := filepath.Join(dir, "runs.json"), filepath.Join(dir, "one.json")
	code, out, errs := inProcess("-q", "-k", "-n", "200", "--repeat", "3", "--json", js, "--bench-out", filepath.Join(dir, "b.txt"), srv.URL()+"/hello")
	if code != 0 || !strings.Contains(out, "repeat:                 3 runs: req/s min") {
		t.Fatalf("--repeat 3: exit %d, %s\n%s", code, errs, out)
	}
	f, _ := os.Open(js)
	rs, err := stats.ReadRuns(f)
	f.Close()
	if err != nil || len(rs.Runs) != 3 || rs.Runs[2].Complete() != 200 {
		t.Fatalf("runs file: %v, %d runs", err, len(rs.Runs))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "b.txt")); strings.Count(string(b), "BenchmarkGB/") != 3 {
		t.Errorf("--bench-out: %s", b)
	}
	code, live, _ := inProcess("-q", "-k", "-n", "300", "--json", one, srv.URL()+"/hello")
	if code != 0 {
		t.Fatal("live run failed")
	}
	hgrm, hlog := filepath.Join(dir, "r.hgrm"), filepath.Join(dir, "r.hlog")
	code, again, errs := inProcess("report", "--text", "--hgrm", hgrm, "--hlog", hlog, one)
	if code != 0 || again == "" || !strings.HasSuffix(live, again) {
		t.Errorf("gb report: exit %d, %s; re-rendered text is not the live report's tail:\n%s", code, errs, again)
	}
	for _, p := range []string{hgrm, hlog} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	if code, _, errs := inProcess("report", filepath.Join(dir, "missing.json")); code != 1 || !strings.Contains(errs, "missing.json") {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"version": 99}`), 0o600)
	if code, _, errs := inProcess("report", filepath.Join(dir, "bad.json")); code != 1 || strings.Count(errs, "\n") != 1 {
		t.Errorf("newer version: exit %d, %q", code, errs)
	}
	code, out, errs = inProcess("-k", "-n", "50", "--json", "-", srv.URL()+"/hello")
	if r, err := stats.ReadResult(strings.NewReader(out)); code != 0 || err != nil || r.Complete() != 50 || !strings.Contains(errs, "Complete requests:      50") {
		t.Errorf("--json -: exit %d, %v; stdout must be the JSON alone, the report on stderr:\n%s", code, err, errs)
	}
	if code, out, _ := inProcess("compare", js, js); code != 0 || !strings.Contains(out, "req/s") {
		t.Errorf("gb compare: exit %d\n%s", code, out)
	}
}

// TestRunOnlyOptions: any output on "-" (not only --json) moves the text
// report to stderr; --repeat with --profile-dir keeps each run's profiles
// in its own folder; gb ramp refuses the options that judge one run.
func TestRunOnlyOptions(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	code, out, errs := inProcess("-k", "-n", "50", "--hgrm", "-", srv.URL()+"/hello")
	if code != 0 || !strings.Contains(out, "Percentile") || strings.Contains(out, "Complete requests") || !strings.Contains(errs, "Complete requests:      50") {
		t.Errorf("--hgrm -: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	dir := filepath.Join(t.TempDir(), "prof")
	js := filepath.Join(t.TempDir(), "runs.json")
	code, _, errs = inProcess("-q", "-k", "-t", "1", "-n", "1000000", "--repeat", "2", "--profile=allocs", "--profile-dir", dir, "--json", js, srv.URL()+"/hello")
	if code != 0 {
		t.Fatalf("--repeat --profile: exit %d: %s", code, errs)
	}
	f, _ := os.Open(js)
	runs, err := stats.ReadRuns(f)
	f.Close()
	if err != nil {
		t.Fatalf("--repeat 2 --json: %v", err)
	}
	if len(runs.Runs) != 2 {
		t.Fatalf("--repeat 2 --json: %d runs", len(runs.Runs))
	}
	// Each run's folder has its allocs profile, and its memstats were read
	// before and after the load: the test server serves both, so a note
	// is a fetch that broke (once, the 8 bytes of an event loop's late
	// wake written into the fetch's connection).
	for i, run := range []string{"run-1", "run-2"} {
		sp := runs.Runs[i].Profile
		if sp == nil {
			t.Errorf("%s: no server profile; gb's stderr:\n%s", run, errs)
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, run, "allocs.pb.gz")); err != nil || sp.Runtime == nil {
			t.Errorf("--repeat 2 --profile-dir: %s: %v, runtime %+v; its profile notes: %q", run, err, sp.Runtime, sp.Notes)
		}
	}
	for _, flag := range []string{"--threshold=p99<1s", "--repeat=2", "--warmup=1s", "--hgrm=x.hgrm"} {
		if code, _, errs := inProcess("ramp", "--from", "1", "--to", "2", flag, srv.URL()); code != 22 || !strings.Contains(errs, "is for one run") {
			t.Errorf("ramp %s: exit %d, %q", flag, code, errs)
		}
	}
}
