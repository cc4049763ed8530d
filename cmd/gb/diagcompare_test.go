package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/compare"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// TestCompareDiagnosisRows runs the gb binary with --repeat 5
// --profile=cpu,mutex against gb's server's /slow/mutex (one lock held
// for d per request under -c 8) with d = 2ms and then d = 0, and
// compares the two files: the diagnosis's lock wait per request falls,
// significantly at α = 0.05 (the lock is held across a 2 ms sleep, then
// across none: the direction holds by construction, whatever the
// machine's speed; a short sleep instead of none can oversleep into
// milliseconds on a busy machine), the
// regression gate on that row fails the way back, and the benchmark
// format carries the row.
func TestCompareDiagnosisRows(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	runs := func(name, d string) string {
		js := filepath.Join(dir, name+".json")
		r := gbProcess(t, "-q", "-k", "-c", "8", "-n", "160", "--repeat", "5", "--profile=cpu,mutex",
			"--profile-dir", filepath.Join(dir, name), "--json", js, srv.URL()+"/slow/mutex?d="+d)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		return js
	}
	slow, fast := runs("slow", "2ms"), runs("fast", "0")

	r := runCompare("--top=0", slow, fast)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("gb compare slow.json fast.json:\n%s", r.stdout)
	if m := significant.FindStringSubmatch(row(t, r.stdout, "server mutex wait/req")); m == nil || m[1] != "-" {
		t.Errorf("want a significant fall of the mutex wait: %q", row(t, r.stdout, "server mutex wait/req"))
	}
	// From a median of 0 the change is infinite, which compare writes "?".
	back := runCompare("--top=0", "--max-regression", "diag.wait.mutex=+10%", fast, slow)
	if back.code != exitRegression || !regexp.MustCompile(`\n  diag.wait.mutex=\+10%: `+regexp.QuoteMeta(slow)+` (\+[0-9.]+%|\?) \(p=0\.0[0-4][0-9]*\): FAIL\n`).MatchString(back.stdout) {
		t.Errorf("fast → slow: exit %d, want 99 and a FAIL line:\n%s", back.code, back.stdout)
	}

	f, err := os.Open(slow)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := stats.ReadRuns(f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := compare.BenchFormat(&b, "mutex", rs.Runs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Unit diag-wait-mutex-ns/op better=lower\n") ||
		len(regexp.MustCompile(`(?m)^BenchmarkGB/mutex\t.*\t[0-9.e+]+ diag-wait-mutex-ns/op`).FindAllString(b.String(), -1)) != 5 {
		t.Errorf("the bench format lacks the mutex wait:\n%s", b.String())
	}
}
