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

// TestH2CheckReport: TestCheckReport's 1000 requests to /wrong (every
// 100th body wrong, with an X-Wrong header) over HTTP/2 with several
// streams, h2c on both engines and TLS: the header and body checks count
// what HTTP/1.1's do (the same block, 10 failures of the body and the
// header check), every response failing a check is failed.check once,
// and the server served exactly the 1000 requests. One body check alone
// fails exactly the server's 10 wrong bodies.
func TestH2CheckReport(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{NoPprof: true, TLS: true})
	out := filepath.Join(t.TempDir(), "r.json")
	for _, tc := range []struct {
		tls   bool
		flags []string
	}{
		{false, []string{"--h2c"}},
		{false, []string{"--h2c", "--engine", "goroutine"}},
		{true, []string{"--http2", "--insecure"}},
	} {
		url := srv.URL() + "/wrong"
		if tc.tls {
			url = srv.TLSURL() + "/wrong"
		}
		srv.ResetLedger()
		args := append(append([]string{"-q", "-c", "4", "--streams", "8", "-n", "1000", "--json", out}, tc.flags...), wrongChecks...)
		r := runGB(t, append(args, url)...)
		if r.code != 0 || !strings.HasSuffix(r.stdout, wrongBlock) || !strings.Contains(r.stdout, "ok=0 non2xx=0 failed.check=1000\n") {
			t.Fatalf("%v: exit %d, stderr %q, stdout:\n%s\nwant it to end with:%s", tc.flags, r.code, r.stderr, r.stdout, wrongBlock)
		}
		res := readResult(t, out)
		want := []stats.CheckStats{cs("status==200", 1000, 0), cs(`body contains "ok":true`, 990, 10),
			cs("header[X-Wrong] !contains 1", 990, 10), cs("header[Content-Type] contains json", 1000, 0),
			cs("size==11", 1000, 0), cs("status in 500-599", 0, 1000), cs(`body matches ^\{"(ok|no)":true\}$`, 1000, 0)}
		if !slices.Equal(res.Checks, want) || res.Counts.Outcomes[stats.FailCheck] != 1000 || len(res.Check()) > 0 ||
			!strings.HasPrefix(res.Load.Engine, "h2") {
			t.Errorf("%v: engine %s, JSON checks %+v, failed.check %d, invariants %v", tc.flags, res.Load.Engine,
				res.Checks, res.Counts.Outcomes[stats.FailCheck], res.Check())
		}
		if l := srv.Ledger(); l.HTTP.Requests+l.TLS.Requests != 1000 {
			t.Errorf("%v: the server served %d requests, want 1000", tc.flags, l.HTTP.Requests+l.TLS.Requests)
		}

		srv.ResetLedger()
		r = runGB(t, append(append([]string{"-q", "-c", "10", "--streams", "4", "-n", "1000"}, tc.flags...),
			"--check", `body contains "ok"`, url)...)
		block := "\ngb checks:\n  ✗ body contains \"ok\"     990 passed      10 failed   99.00 pct\n"
		if r.code != 0 || !strings.HasSuffix(r.stdout, block) || !strings.Contains(r.stdout, "ok=990 non2xx=0 failed.check=10\n") {
			t.Errorf("%v: one body check: exit %d, stderr %q, stdout:\n%s", tc.flags, r.code, r.stderr, r.stdout)
		}
	}
}
