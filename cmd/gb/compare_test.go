package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/compare"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
	pprof "github.com/google/pprof/profile"
)

// Paths of gb's built-in server's slow and fast endpoints.
const (
	slowPath = "/leftpad?str=x&len=2000&chr=0"
	fastPath = "/hello"
)

// runsFile runs the gb binary k times with args against url, each run
// writing its JSON result, and writes the k results as one stats.Runs
// file (what --repeat k writes) in dir. It returns the file's path.
func runsFile(t *testing.T, dir, name string, k int, url string, args ...string) string {
	t.Helper()
	var rs stats.Runs
	for i := range k {
		js := filepath.Join(dir, name+"-"+string(rune('a'+i))+".json")
		a := append([]string{"-q", "--json", js}, args...)
		if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--profile") }) {
			a = append(a, "--profile-dir", filepath.Join(dir, name+"-profiles-"+string(rune('a'+i))))
		}
		res := runOnce(t, js, append(a, url))
		if p := res.Profile; p != nil && p.Runtime == nil {
			// The server's memstats were not read (once, in CI under full
			// load, for a reason the notes now keep): compare's allocation
			// rows need them in every run, so this run is made again.
			t.Logf("gb %v: no server memstats, run again; notes: %q", a, p.Notes)
			res = runOnce(t, js, append(a, url))
		}
		rs.Runs = append(rs.Runs, res)
	}
	path := filepath.Join(dir, name+".json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := rs.Write(f); err != nil {
		t.Fatal(err)
	}
	return path
}

// runOnce runs gb with args, which write the result to js, and reads it.
func runOnce(t *testing.T, js string, args []string) *stats.Result {
	t.Helper()
	r := runGB(t, args...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("gb %v: exit %d, stderr %q", args, r.code, r.stderr)
	}
	return readResult(t, js)
}

// compareRun is one call of compareCmd.
type compareRun struct {
	stdout, stderr string
	code           int
}

func runCompare(args ...string) compareRun {
	var out, errb bytes.Buffer
	code := compareCmd(args, &out, &errb)
	return compareRun{out.String(), errb.String(), code}
}

// row returns the table row of label.
func row(t *testing.T, table, label string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(label) + `  .*$`).FindString(table)
	if m == "" {
		t.Fatalf("no %q row in:\n%s", label, table)
	}
	return m
}

// significant matches a change significant at α = 0.05 (p below 0.05) over
// five runs against five. Perfect separation (p=0.008, the smallest five
// against five can give) is not required: on a busy machine one fast run's
// tail may reach a slow run's.
var significant = regexp.MustCompile(`  ([+-])[0-9.]+% \(p=0\.0[0-4][0-9]* n=5\)$`)

// TestCompareSlowFast runs gb five times against the slow /leftpad and
// five times against the fast /hello of gb's server, with --profile, and
// compares them both ways: req/s and p99 differ significantly in the right
// direction, the profile diff names leftpad as the largest change per
// request in CPU and allocation, the diff pair opens in go tool pprof, the
// regression gate fails the slow run and passes the fast one, and the real
// benchstat reads the runs in the benchmark format.
func TestCompareSlowFast(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	load := []string{"-k", "-c", "4", "-n", "1000000", "-t", "1s", "--profile=cpu,allocs"}
	slow := runsFile(t, dir, "slow", 5, srv.URL()+slowPath, load...)
	fast := runsFile(t, dir, "fast", 5, srv.URL()+fastPath, load...)
	diffDir := filepath.Join(dir, "diff")

	r := runCompare("--max-regression", "rps=-5%", "--max-regression=p99=+10%", "--top", "3", "--profile-diff-dir", diffDir, slow, fast)
	if r.code != 0 {
		t.Fatalf("slow → fast: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("gb compare slow.json fast.json:\n%s", r.stdout)
	for label, dir := range map[string]string{"req/s": "+", "latency p99": "-", "server CPU/req": "-", "server alloc/req": "-"} {
		m := significant.FindStringSubmatch(row(t, r.stdout, label))
		if m == nil || m[1] != dir {
			t.Errorf("%s: want a significant %s change: %q", label, dir, row(t, r.stdout, label))
		}
	}
	wantWarn := "gb compare: warning: " + fast + " differs from " + slow + " in target (" + srv.URL() + slowPath + " vs " + srv.URL() + fastPath + ")\n"
	if r.stderr != wantWarn {
		t.Errorf("stderr %q, want %q", r.stderr, wantWarn)
	}
	for _, kind := range []string{"server CPU", "server allocation"} {
		_, sec, ok := strings.Cut(r.stdout, "\n"+kind+" per request by function")
		_, less, ok2 := strings.Cut(sec, "less per request:\n")
		first, _, _ := strings.Cut(less, "\n")
		if !ok || !ok2 || !strings.HasSuffix(first, "  github.com/gb-bench/gb/internal/testserver.leftpad") {
			t.Errorf("%s: leftpad is not the largest decrease: %q\n%s", kind, first, r.stdout)
		}
	}
	for _, line := range []string{"rps=-5%: " + fast + " +", "p99=+10%: " + fast + " -"} {
		if !strings.Contains(r.stdout, "\n  "+line) || strings.Contains(r.stdout, "FAIL") {
			t.Errorf("gate lacks %q or failed:\n%s", line, r.stdout)
		}
	}
	checkDiffPair(t, diffDir)

	back := runCompare("--top=0", "--max-regression", "rps=-5%", "--max-regression", "p99=+10%", fast, slow)
	if back.code != exitRegression || !strings.Contains(back.stdout, "\n  rps=-5%: "+slow+" -") ||
		!strings.Contains(back.stdout, "(p=0.008): FAIL\n") || strings.Contains(back.stdout, "per request by function") {
		t.Errorf("fast → slow: exit %d, want 99 and FAIL lines:\n%s", back.code, back.stdout)
	}

	same := runCompare(fast, fast)
	if same.code != 0 || same.stderr != "" || !strings.HasSuffix(row(t, same.stdout, "req/s"), "  ~ (p=1.000 n=5)") {
		t.Errorf("a file with itself: exit %d %q\n%s", same.code, same.stderr, same.stdout)
	}
	// The same endpoint again: "~" for req/s in most runs, but a real
	// difference of load on a shared machine can make it significant, so
	// only what always holds is asserted: no warning, and no regression
	// of half the throughput.
	fast2 := runsFile(t, dir, "fast2", 5, srv.URL()+fastPath, load...)
	again := runCompare("--top=0", "--max-regression", "rps=-50%", fast, fast2)
	if again.code != 0 || again.stderr != "" || !regexp.MustCompile(`\(p=[01]\.[0-9]{3} n=5\)$`).MatchString(row(t, again.stdout, "req/s")) {
		t.Errorf("the same endpoint twice: exit %d %q\n%s", again.code, again.stderr, again.stdout)
	}
	t.Logf("the same endpoint twice: %s", row(t, again.stdout, "req/s"))
	benchstatReads(t, dir, slow, fast)
}

// checkDiffPair opens the --profile-diff-dir pair with go tool pprof
// -diff_base: leftpad's cumulative CPU shrinks.
func checkDiffPair(t *testing.T, dir string) {
	t.Helper()
	for _, kind := range []string{"cpu", "allocs"} {
		for _, side := range []string{"old", "new"} {
			f, err := os.Open(filepath.Join(dir, kind+"."+side+".pb.gz"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = pprof.Parse(f)
			f.Close()
			if err != nil {
				t.Errorf("%s.%s: %v", kind, side, err)
			}
		}
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", "-cum", "-diff_base",
		filepath.Join(dir, "cpu.old.pb.gz"), filepath.Join(dir, "cpu.new.pb.gz")).CombinedOutput()
	if err != nil || !regexp.MustCompile(`(?m) -[0-9.]+m?s +[0-9.]+% +github\.com/gb-bench/gb/internal/testserver\.leftpad$`).Match(out) {
		t.Errorf("go tool pprof -diff_base: %v: leftpad does not shrink:\n%s", err, out)
	}
}

// benchstatReads writes both inputs in the Go benchmark format under one
// name and checks the real benchstat's comparison: time per request
// (sec/op) and p99 fall, req/s rises, each at p=0.008.
func benchstatReads(t *testing.T, dir, old, new string) {
	t.Helper()
	bin := filepath.Join(dir, "benchstat")
	if out, err := exec.Command("go", "build", "-o", bin, "golang.org/x/perf/cmd/benchstat").CombinedOutput(); err != nil {
		t.Fatalf("building benchstat: %v\n%s", err, out)
	}
	var files []string
	for _, in := range []string{old, new} {
		f, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := stats.ReadRuns(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		txt := strings.TrimSuffix(in, ".json") + ".txt"
		var b bytes.Buffer
		if err := compare.BenchFormat(&b, "endpoint", rs.Runs); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(txt, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, txt)
	}
	out, err := exec.Command(bin, files...).CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out)
	}
	t.Logf("benchstat:\n%s", out)
	blocks := strings.Split(string(out), "\n\n")
	for unit, sign := range map[string]string{"sec/op": "-", "req/s": "+", "p99-sec": "-", "server-B/op": "-"} {
		head := regexp.MustCompile(`│ +` + regexp.QuoteMeta(unit) + ` +│`)
		i := slices.IndexFunc(blocks, head.MatchString)
		var m []string
		if i >= 0 {
			m = regexp.MustCompile(`(?m)^GB/endpoint .* ([+-])[0-9.]+% \(p=0\.0[0-4][0-9]* n=5\)$`).FindStringSubmatch(blocks[i])
		}
		if m == nil || m[1] != sign {
			t.Errorf("benchstat's %s table: want a significant %s change", unit, sign)
		}
	}
}

func TestCompareBadInput(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	c2 := runsFile(t, dir, "c2", 1, srv.URL()+fastPath, "-c", "2", "-n", "200")
	c4 := runsFile(t, dir, "c4", 1, srv.URL()+fastPath, "-c", "4", "-n", "200", "-m", "HEAD")
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"runs": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.json")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string // a regular expression for the whole of stderr
	}{
		{"missing", []string{c2, missing}, 1, `gb compare: .*missing\.json: no such file or directory\n`},
		{"not json", []string{bad, c2}, 1, `gb compare: .*bad\.json: not a gb result: .*\n`},
		{"one file", []string{c2}, 22, `gb compare: want OLD\.json and at least one NEW\.json \(see gb compare --help\)\n`},
		{"bad limit", []string{"--max-regression", "p99<10ms", c2, c4}, 22, `gb compare: max-regression "p99<10ms": want METRIC=\+N% or METRIC=-N%, e\.g\. p99=\+10%\n`},
		{"wrong sign", []string{"--max-regression", "rps=+5%", c2, c4}, 22, `gb compare: max-regression "rps=\+5%": rps regresses the other way, write rps=-5%\n`},
		{"no value", []string{c2, c4, "--max-regression"}, 22, `gb compare: option requires an argument -- max-regression\n`},
		{"unknown", []string{"--bogus", c2, c4}, 22, `gb compare: unknown option --bogus\n`},
		{"bad dir", []string{"--profile-diff-dir=", c2, c4}, 22, `gb compare: --profile-diff-dir needs a directory\n`},
		{"stdin and a file", []string{"--top=3", "-", c2, "--", "--odd.json"}, 1, `gb compare: .*\n`},
		{"bad top", []string{"--top", "x", c2, c4}, 22, `gb compare: --top "x": want a number from 0 to 1000\n`},
		{"-h", []string{"-h"}, 22, `(?s)Usage: gb compare .*Exit codes: .*\n`},
		{"differs", []string{c2, c4}, 0, `gb compare: warning: .*c4\.json differs from .*c2\.json in method \(GET vs HEAD\), concurrency \(2 vs 4\)\n`},
		{"no profiles", []string{"--profile-diff-dir", filepath.Join(dir, "d"), c2, c2}, 0,
			`gb compare: warning: --profile-diff-dir: no saved server profiles \(cpu, allocs\) in both OLD and NEW runs\n`},
		{"unmeasured gate", []string{"--max-regression", "server.cpu=+5%", c2, c2}, 99, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCompare(tc.args...)
			if r.code != tc.code || !regexp.MustCompile(`^`+tc.stderr+`$`).MatchString(r.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, tc.code, tc.stderr)
			}
			if tc.code != 0 && tc.code != 99 && r.stdout != "" {
				t.Errorf("stdout %q", r.stdout)
			}
		})
	}
	help := runCompare("--help")
	if help.code != 0 || help.stderr != "" || !strings.HasPrefix(help.stdout, "Usage: gb compare [options] OLD.json NEW.json") {
		t.Errorf("--help: exit %d stderr %q stdout %q", help.code, help.stderr, help.stdout)
	}
}
