package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// wrongChecks are checks on the test server's /wrong, which answers every
// 100th request with a wrong body and an X-Wrong header.
var wrongChecks = []string{
	"--check", "status==200",
	"--check", `body contains "ok":true`,
	"--check", "header[X-Wrong] !contains 1",
	"--check", "header[Content-Type] contains json",
	"--check", "size==11",
	"--check", "status in 500-599",
	"--check", `body matches ^\{"(ok|no)":true\}$`,
}

// wrongBlock is the checks block of 1000 requests to /wrong with
// wrongChecks.
const wrongBlock = `
gb checks:
  ✓ status==200                           1000 passed       0 failed  100.00 pct
  ✗ body contains "ok":true                990 passed      10 failed   99.00 pct
  ✗ header[X-Wrong] !contains 1            990 passed      10 failed   99.00 pct
  ✓ header[Content-Type] contains json    1000 passed       0 failed  100.00 pct
  ✓ size==11                              1000 passed       0 failed  100.00 pct
  ✗ status in 500-599                        0 passed    1000 failed    0.00 pct
  ✓ body matches ^\{"(ok|no)":true\}$     1000 passed       0 failed  100.00 pct
`

// TestCheckReport: 1000 requests to a server whose every 100th body is
// wrong: each check's exact passes and failures in the report's block and
// the JSON, every response failing a check counted once as failed.check
// (here all of them: one check fails everywhere), ab's Failed requests
// and Length counting them, and the exit code 0 (checks are measurements,
// --threshold judges).
func TestCheckReport(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{NoPprof: true})
	out := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{"-q", "-k", "-c", "10", "-n", "1000", "--json", out}, wrongChecks...)
	r := runGB(t, append(args, srv.URL()+"/wrong")...)
	if r.code != 0 || !strings.HasSuffix(r.stdout, wrongBlock) {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s\nwant it to end with:%s", r.code, r.stderr, r.stdout, wrongBlock)
	}
	if got := field(t, r.stdout, "Failed requests"); got != "1000" {
		t.Errorf("Failed requests: %s, want 1000", got)
	}
	if !strings.Contains(r.stdout, "(Connect: 0, Receive: 0, Length: 1000, Exceptions: 0)") ||
		!strings.Contains(r.stdout, "outcomes:             ok=0 non2xx=0 failed.check=1000\n") {
		t.Errorf("the failures are not failed.check in Length:\n%s", r.stdout)
	}
	validateSchema(t, out)
	res := readResult(t, out)
	want := []stats.CheckStats{cs("status==200", 1000, 0), cs(`body contains "ok":true`, 990, 10),
		cs("header[X-Wrong] !contains 1", 990, 10), cs("header[Content-Type] contains json", 1000, 0),
		cs("size==11", 1000, 0), cs("status in 500-599", 0, 1000), cs(`body matches ^\{"(ok|no)":true\}$`, 1000, 0)}
	if !slices.Equal(res.Checks, want) || res.Counts.Outcomes[stats.FailCheck] != 1000 || len(res.Check()) > 0 {
		t.Errorf("JSON checks %+v, failed.check %d, invariants %v; want %+v and 1000", res.Checks, res.Counts.Outcomes[stats.FailCheck], res.Check(), want)
	}
	if served := srv.Ledger().HTTP.Requests; served != 1000 {
		t.Errorf("the server served %d requests, want 1000", served)
	}
	if code, again, errs := inProcess("report", out); code != 0 || !strings.HasSuffix(again, wrongBlock) {
		t.Errorf("gb report: exit %d, %s, stdout:\n%s", code, errs, again)
	}
}

// TestCheckOnePercent: the measurement, a server that fails 1%
// of bodies: -n 1000 gives 990 ✓ and 10 ✗, failed.check 10, ok 990, and
// the 990 good responses alone in ab's counts and latencies.
func TestCheckOnePercent(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{NoPprof: true})
	out := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, "-q", "-k", "-c", "50", "-n", "1000", "--json", out, "--check", `body contains "ok"`, srv.URL()+"/wrong")
	block := "\ngb checks:\n  ✗ body contains \"ok\"     990 passed      10 failed   99.00 pct\n"
	if r.code != 0 || !strings.HasSuffix(r.stdout, block) || field(t, r.stdout, "Complete requests") != "990" ||
		!strings.Contains(r.stdout, "ok=990 non2xx=0 failed.check=10\n") ||
		!strings.Contains(r.stdout, `errors:               check failed: body contains "ok"=10`) {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	res := readResult(t, out)
	if res.Latency[stats.Total].Count != 990 || res.Counts.Status[200] != 990 || len(res.Check()) > 0 {
		t.Errorf("latency samples %d, status 200 %d, invariants %v; want 990 each (a failed check is a failure, as failed.script)",
			res.Latency[stats.Total].Count, res.Counts.Status[200], res.Check())
	}
}

// TestCheckMergeShards: two shards of one load with the same checks sum
// their checks in gb merge (and gb report re-renders the merge's block);
// shards with other checks are refused in one line.
func TestCheckMergeShards(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{NoPprof: true})
	dir := t.TempDir()
	var files []string
	for _, shard := range []string{"0/2", "1/2"} {
		f := filepath.Join(dir, strings.Replace(shard, "/", "-", 1)+".json")
		args := append([]string{"-q", "-k", "-c", "4", "-n", "1000", "--shard", shard, "--json", f}, wrongChecks...)
		if r := runGB(t, append(args, srv.URL()+"/wrong")...); r.code != 0 {
			t.Fatalf("shard %s: exit %d, %s", shard, r.code, r.stderr)
		}
		files = append(files, f)
	}
	all := filepath.Join(dir, "all.json")
	code, out, errs := inProcess("merge", "-o", all, files[0], files[1])
	if code != 0 || !strings.HasSuffix(out, wrongBlock) {
		t.Fatalf("gb merge: exit %d, %s, stdout:\n%s\nwant it to end with:%s", code, errs, out, wrongBlock)
	}
	if m := readResult(t, all); m.Counts.Outcomes[stats.FailCheck] != 1000 || len(m.Checks) != 7 {
		t.Errorf("merged: failed.check %d, %d checks", m.Counts.Outcomes[stats.FailCheck], len(m.Checks))
	}
	if code, again, _ := inProcess("report", all); code != 0 || again != out {
		t.Errorf("gb report of the merge: exit %d, differs from gb merge's:\n%s", code, again)
	}

	other := filepath.Join(dir, "other.json")
	if r := runGB(t, "-q", "-k", "-c", "4", "-n", "1000", "--shard", "1/2", "--json", other, "--check", "status==200", srv.URL()+"/wrong"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	code, _, errs = inProcess("merge", files[0], other)
	if code != 1 || !strings.HasPrefix(errs, `gb merge: result 2 ran other checks ("status==200", not "status==200", "body contains`) || strings.Count(errs, "\n") != 1 {
		t.Errorf("merge of other checks: exit %d, %q", code, errs)
	}
}

// TestCheckBadInput: a bad expression, or --check with what it cannot
// run with, is one line and exit 22, before any request; what it can
// run with (--h2c with status and size checks, --compressed without a
// body check) runs. (Header and body checks over HTTP/2:
// TestH2CheckReport.)
func TestCheckBadInput(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{NoPprof: true})
	url := srv.URL() + "/wrong"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--check", "status==abc"}, `gb: --check "status==abc": "abc" is not a non-negative whole number` + "\n"},
		{[]string{"--check", "latency<5ms"}, `gb: --check "latency<5ms": unknown subject: want status, size, body or header[Name] first` + "\n"},
		{[]string{"--check", "body contain ok"}, `gb: --check "body contain ok": no operator after body: want contains, !contains, matches or !matches` + "\n"},
		{[]string{"--check", "body matches (a"}, `gb: --check "body matches (a": bad regular expression: missing closing ): ` + "`(a`\n"},
		{[]string{"--check", "status in 200,x"}, `gb: --check "status in 200,x": "x" is not a status code or range (e.g. 200,204 or 200-299)` + "\n"},
		{[]string{"--check", "header[A B]==1"}, `gb: --check "header[A B]==1": want header[Name] with a field name, e.g. header[Content-Type]` + "\n"},
		{[]string{"--check", `body contains "a" "b"`}, `gb: --check "body contains \"a\" \"b\"": text in double quotes must be a Go string literal (escape \ and " inside them)` + "\n"},
		{[]string{"--check", "status==\x1b[31m"}, `gb: --check "status==\x1b[31m": "\x1b[31m" is not a non-negative whole number` + "\n"},
		{[]string{"--compressed", "--check", "body contains ok"}, "gb: --check on the body and --compressed cannot be combined: the body is checked as received, and --compressed bodies arrive encoded\n"},
	} {
		r := runGB(t, append(append([]string{"-n", "3"}, tc.args...), url)...)
		if r.code != 22 || r.stderr != tc.want || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 22 and %q", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
	if n := srv.Ledger().HTTP.Requests; n != 0 {
		t.Errorf("the server saw %d requests, want none", n)
	}
	// HTTP/2 runs status and size checks.
	r := runGB(t, "-q", "-k", "-c", "4", "-n", "200", "--h2c", "--check", "status==200", "--check", "size<11", url)
	h2Block := "\ngb checks:\n  ✓ status==200     200 passed       0 failed  100.00 pct\n  ✗ size<11           0 passed     200 failed    0.00 pct\n"
	if r.code != 0 || !strings.HasSuffix(r.stdout, h2Block) || !strings.Contains(r.stdout, "failed.check=200") {
		t.Errorf("--h2c with status and size checks: exit %d, %s, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	// --compressed with status and header checks runs.
	if r := runGB(t, "-q", "-n", "3", "--compressed", "--check", "status==200", "--check", "header[Content-Type] contains json", url); r.code != 0 {
		t.Errorf("--compressed with a status check: exit %d, %s", r.code, r.stderr)
	}
}

// cs is a check's expected account.
func cs(expr string, passes, fails int64) stats.CheckStats {
	return stats.CheckStats{Expr: expr, Passes: passes, Fails: fails}
}
