package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// TestCountsEqualServerLedger runs gb against gb's own server and checks
// the report and the JSON result against what the server saw.
func TestCountsEqualServerLedger(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	for _, tc := range []struct {
		name  string
		args  []string
		n     int64
		conns int64
	}{
		{"keepalive", []string{"-k", "-c", "10", "-n", "1001"}, 1001, 10},
		{"close", []string{"-c", "4", "-n", "101"}, 101, 101},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.ResetLedger()
			js := filepath.Join(t.TempDir(), "r.json")
			r := runGB(t, append(tc.args, "--json", js, srv.URL()+"/bytes/1000")...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			l := srv.Ledger().HTTP
			if got := number(t, r.stdout, "Complete requests"); got != tc.n || l.Requests != tc.n {
				t.Errorf("complete %d, ledger %d, want %d", got, l.Requests, tc.n)
			}
			if got := number(t, r.stdout, "HTML transferred"); got != 1000*tc.n {
				t.Errorf("HTML transferred %d", got)
			}
			res := readResult(t, js)
			c := res.Counts
			if c.ConnsOpened != tc.conns || l.Conns != tc.conns {
				t.Errorf("connections: gb %d, server %d, want %d", c.ConnsOpened, l.Conns, tc.conns)
			}
			if c.BytesIn != l.BytesOut || c.BytesOut != l.BytesIn {
				t.Errorf("bytes: gb in %d out %d, server out %d in %d", c.BytesIn, c.BytesOut, l.BytesOut, l.BytesIn)
			}
			if got := number(t, r.stdout, "Total transferred"); got != l.BytesOut {
				t.Errorf("Total transferred %d, server wrote %d", got, l.BytesOut)
			}
			if errs := res.Check(); len(errs) > 0 || res.Counts.Dispatched != tc.n {
				t.Errorf("invariants %v, dispatched %d", errs, res.Counts.Dispatched)
			}
		})
	}
}

// TestNginxCountsEqualAccessLog checks gb's counts and bytes against
// nginx's access log exactly.
func TestNginxCountsEqualAccessLog(t *testing.T) {
	ngx := testsupport.StartNginx(t, testsupport.NginxOptions{})
	js := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, "-k", "-c", "20", "-n", "2003", "--json", js, ngx.URL+"/10k.dat")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	log := ngx.Totals(t)
	res := readResult(t, js)
	if res.Complete() != 2003 || log.Requests != 2003 || log.Status[200] != 2003 {
		t.Errorf("complete %d, nginx logged %d (200s: %d)", res.Complete(), log.Requests, log.Status[200])
	}
	if got := number(t, r.stdout, "Total transferred"); got != log.BytesSent || res.Counts.BytesIn != log.BytesSent {
		t.Errorf("Total transferred %d, nginx $bytes_sent %d", got, log.BytesSent)
	}
	if got := number(t, r.stdout, "HTML transferred"); got != log.BodyBytes {
		t.Errorf("HTML transferred %d, nginx $body_bytes_sent %d", got, log.BodyBytes)
	}
	if res.Counts.BytesOut != log.RequestBytes {
		t.Errorf("bytes out %d, nginx $request_length %d", res.Counts.BytesOut, log.RequestBytes)
	}
	if log.Conns != 20 || res.Counts.ConnsOpened != 20 {
		t.Errorf("connections: nginx %d, gb %d", log.Conns, res.Counts.ConnsOpened)
	}
	if !strings.HasPrefix(res.Server.Software, "nginx") || field(t, r.stdout, "Document Length") != "10240 bytes" {
		t.Errorf("server %q, document length %q", res.Server.Software, field(t, r.stdout, "Document Length"))
	}
}

// TestSideBySideWithAB runs ab and gb against the same nginx URL: the same
// labels in the same order, and equal counts and byte totals.
func TestSideBySideWithAB(t *testing.T) {
	ab := "/usr/bin/ab"
	if _, err := os.Stat(ab); err != nil {
		if os.Getenv("GB_REQUIRE_NGINX") == "1" {
			t.Fatal("ab (apache2-utils) is required in CI")
		}
		t.Skip("ab not installed")
	}
	ngx := testsupport.StartNginx(t, testsupport.NginxOptions{})
	for _, args := range [][]string{
		{"-k", "-c", "10", "-n", "2000"},
		{"-c", "5", "-n", "300"},
		{"-k", "-c", "3", "-n", "50", "-S"},
		{"-k", "-c", "3", "-n", "50", "-d"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			url := ngx.URL + "/10k.dat"
			out, err := runAB(ab, append(args, url))
			if err != nil {
				t.Fatalf("ab: %v\n%s", err, out)
			}
			g := gbProcess(t, append(args, url)...)
			if g.code != 0 {
				t.Fatalf("gb exit %d: %s", g.code, g.stderr)
			}
			al, gl := labels(out), labels(g.stdout)
			if strings.Join(al, "|") != strings.Join(gl, "|") {
				t.Errorf("labels differ:\nab: %q\ngb: %q", al, gl)
			}
			for _, label := range []string{"Complete requests", "Failed requests", "Document Length", "HTML transferred", "Total transferred", "Concurrency Level", "Document Path", "Server Software"} {
				if a, g := field(t, out, label), field(t, g.stdout, label); a != g {
					t.Errorf("%s: ab %q, gb %q", label, a, g)
				}
			}
		})
	}
}

// TestProcessExitCodes runs the binary: its exit status is run's code (0
// ok, 1 runtime failure, 22 usage), with one line on stderr for errors and
// never a stack trace.
func TestProcessExitCodes(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-q", "-n", "10", srv.URL() + "/hello"}, 0},
		{[]string{"-n", "10", "http://" + testsupport.ClosedAddr(t) + "/"}, 1},
		{[]string{"-n", "abc", srv.URL() + "/"}, 22},
		{[]string{"ramp", "--from", "2", "--to", "1", srv.URL() + "/"}, 22},
	} {
		r := gbProcess(t, tc.args...)
		if r.code != tc.code || stackTrace.MatchString(r.stderr) {
			t.Errorf("gb %q: exit %d, want %d; stderr:\n%s", tc.args, r.code, tc.code, r.stderr)
		}
		if tc.code == 22 && strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("gb %q: stderr %q, want one line", tc.args, r.stderr)
		}
	}
}

// TestSIGINTPrintsReport interrupts a long run: the full report is still
// printed, the JSON written, every request accounted for, and gb exits 1.
func TestSIGINTPrintsReport(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	js := filepath.Join(t.TempDir(), "r.json")
	cmd, out, errb := startGB(t, "-k", "-c", "4", "-t", "60", "--json", js, srv.URL()+"/delay?d=20ms")
	// gb catches SIGINT from before its first request: once the server
	// has seen requests, the signal stops a run under way.
	waitFor(t, "gb's first requests", func() bool { return srv.Ledger().HTTP.Requests >= 20 })
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitExit(t, cmd, 10*time.Second)
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit %d, want 1; stderr %s", code, errb)
	}
	if !strings.Contains(out.String(), "Percentage of the requests served") || strings.Contains(errb.String(), "Finished") {
		t.Errorf("report:\n%s\nstderr:\n%s", out, errb)
	}
	res := readResult(t, js)
	if res.StoppedBy != stats.StopSignal || len(res.Check()) > 0 || res.Counts.Outcomes[stats.AbortedSignal] > 4 {
		t.Errorf("stopped by %q, check %v, aborted %d", res.StoppedBy, res.Check(), res.Counts.Outcomes[stats.AbortedSignal])
	}
	if res.Counts.Dispatched != res.Complete()+res.Counts.Outcomes[stats.AbortedSignal] {
		t.Errorf("dispatched %d != complete %d + aborted %d", res.Counts.Dispatched, res.Complete(), res.Counts.Outcomes[stats.AbortedSignal])
	}
}

// TestTimeLimitStopsFirst: -n and -t together stop at whichever comes first.
func TestTimeLimitStopsFirst(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	js := filepath.Join(t.TempDir(), "r.json")
	start := time.Now()
	r := runGB(t, "-k", "-c", "2", "-n", "1000000", "-t", "1", "--json", js, srv.URL()+"/delay?d=5ms")
	if r.code != 0 || time.Since(start) > 30*time.Second {
		t.Fatalf("exit %d after %v: %s", r.code, time.Since(start), r.stderr)
	}
	res := readResult(t, js)
	if res.StoppedBy != stats.StopTime || res.Complete() == 0 || res.Complete() >= 1000000 || len(res.Check()) > 0 {
		t.Errorf("stopped by %q after %d requests, check %v", res.StoppedBy, res.Complete(), res.Check())
	}
}
