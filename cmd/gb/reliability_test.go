package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// TestRefusedStopsEarly (F03): nothing listens; gb stops after a bounded
// number of attempts with ab's message and a full report, and exits 1.
func TestRefusedStopsEarly(t *testing.T) {
	js := filepath.Join(t.TempDir(), "r.json")
	start := time.Now()
	r := runGB(t, "-n", "100", "-c", "10", "--json", js, "http://"+testsupport.ClosedAddr(t)+"/")
	if r.code != 1 || !strings.Contains(r.stderr, "Test aborted") || !strings.Contains(r.stderr, "connection refused") {
		t.Errorf("exit %d stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "Complete requests:      0") || time.Since(start) > 60*time.Second { // a hang bound; the failed.connect count below is the check
		t.Errorf("after %v:\n%s", time.Since(start), r.stdout)
	}
	res := readResult(t, js)
	if n := res.Counts.Outcomes[stats.FailConnect]; n < 10 || n > 20 || res.Latency[stats.Total] != nil || len(res.Check()) > 0 {
		t.Errorf("failed.connect %d (want about 10), check %v", n, res.Check())
	}
}

// TestStalePOSTIsNotRetried (F08): a non-idempotent request that meets
// the keep-alive close race fails as stale_conn; the server never sees it.
func TestStalePOSTIsNotRetried(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	body := tempFile(t, "body", "x=1")
	js := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, "-k", "-c", "2", "-n", "100", "-p", body, "--json", js, srv.FaultURL()+"/ok?closeafter=1&conn=silent")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := readResult(t, js)
	stale, ok := res.Counts.Outcomes[stats.FailStaleConn], res.Counts.Outcomes[stats.OK]
	if res.Counts.Retries != 0 || ok+stale != 100 || srv.Ledger().Fault.Requests != ok {
		t.Errorf("ok %d stale %d retries %d ledger %d", ok, stale, res.Counts.Retries, srv.Ledger().Fault.Requests)
	}
}

// TestEarlyResponse (F31): the server answers 413 before reading a large
// body; gb records the response, not a write error.
func TestEarlyResponse(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	body := tempFile(t, "body", string(make([]byte, 10<<20)))
	for _, drain := range []string{"0", "1"} {
		js := filepath.Join(t.TempDir(), "r.json")
		r := runGB(t, "-c", "1", "-n", "5", "-p", body, "--json", js, srv.FaultURL()+"/early-response?code=413&drain="+drain)
		if r.code != 0 {
			t.Fatalf("drain=%s: exit %d: %s", drain, r.code, r.stderr)
		}
		res := readResult(t, js)
		o := res.Counts.Outcomes
		if o[stats.Non2xx]+o[stats.FailWrite]+o[stats.FailReset] != 5 || (drain == "1" && o[stats.Non2xx] != 5) {
			t.Errorf("drain=%s: outcomes %v", drain, o)
		}
	}
}

// TestTLSHandshakeFailure (F33): a protocol the server refuses fails the
// handshake: failed.tls, and the run stops as nothing can connect.
func TestTLSHandshakeFailure(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{TLS: true})
	js := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, "--insecure", "-f", "TLS1", "-n", "50", "--json", js, srv.TLSURL()+"/hello")
	res := readResult(t, js)
	if r.code != 1 || res.Counts.Outcomes[stats.FailTLS] == 0 || res.Counts.Outcomes[stats.FailTLS] > 20 {
		t.Errorf("exit %d, outcomes %v", r.code, res.Counts.Outcomes)
	}
}

// TestRedirectNotFollowed (F39): a 302 is a non-2xx response; its target
// is never contacted.
func TestRedirectNotFollowed(t *testing.T) {
	other := testsupport.Server(t, testserver.Options{})
	ngx := testsupport.StartNginx(t, testsupport.NginxOptions{Extra: "location = /redir { return 302 " + other.URL() + "/hello; }"})
	r := runGB(t, "-n", "20", "-H", "Authorization: Bearer secret", ngx.URL+"/redir")
	if r.code != 0 || number(t, r.stdout, "Non-2xx responses") != 20 {
		t.Errorf("exit %d:\n%s", r.code, r.stdout)
	}
	if n := other.Ledger().HTTP.Requests; n != 0 {
		t.Errorf("the redirect target saw %d requests", n)
	}
}

// TestFileLimit (F37): a -c beyond the open-file limit (counting the
// event loops' own descriptors) is refused before the run in one line
// naming the limit, exit 22.
func TestFileLimit(t *testing.T) {
	skipUnderRace(t)
	cmd := exec.Command("bash", "-c", `ulimit -n 64 && exec "$0" -c 200 -n 200 http://127.0.0.1:1/`, gbBin(t))
	out, _ := cmd.CombinedOutput()
	want := fmt.Sprintf("gb: -c 200 needs %d open files; the limit is 64 (ulimit -n)\n", 200+32+3*runtime.NumCPU()) // 3 per event loop, one loop per core at most
	if cmd.ProcessState.ExitCode() != 22 || string(out) != want {
		t.Errorf("exit %d: %s", cmd.ProcessState.ExitCode(), out)
	}
}

// TestSIGTERMStopsLikeSIGINT: every stop path prints the report and keeps
// the accounting exact; a second signal exits at once.
func TestSIGTERMStopsLikeSIGINT(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	js := filepath.Join(t.TempDir(), "r.json")
	cmd, out, _ := startGB(t, "-c", "3", "-t", "60", "--json", js, srv.FaultURL()+"/stall?ms=inf")
	// The signal goes once the server holds all 3 requests: gb catches
	// signals from before its first request, and each connection has its
	// request in flight (a fixed sleep could signal a gb still starting).
	waitFor(t, "3 stalled requests", func() bool { return srv.Ledger().Fault.Requests >= 3 })
	_ = cmd.Process.Signal(syscall.SIGTERM)
	waitExit(t, cmd, signalLimit)
	res := readResult(t, js)
	if cmd.ProcessState.ExitCode() != 1 || res.StoppedBy != stats.StopSignal ||
		res.Counts.Outcomes[stats.AbortedSignal] != 3 || len(res.Check()) > 0 || !strings.Contains(out.String(), "Complete requests:") {
		t.Errorf("exit %d stopped by %q outcomes %v check %v", cmd.ProcessState.ExitCode(), res.StoppedBy, res.Counts.Outcomes, res.Check())
	}
	cmd2, _, _ := startGB(t, "-c", "3", "-t", "60", srv.FaultURL()+"/stall?ms=inf")
	waitFor(t, "3 more stalled requests", func() bool { return srv.Ledger().Fault.Requests >= 6 })
	_ = cmd2.Process.Signal(syscall.SIGINT)
	_ = cmd2.Process.Signal(syscall.SIGINT)
	waitExit(t, cmd2, signalLimit) // the first signal alone waits for no response: only a hang fails
	if code := cmd2.ProcessState.ExitCode(); code != 1 {
		t.Errorf("two SIGINTs: exit %d, want 1", code)
	}
}

// TestNginxChurn: nginx closes connections after 100 requests and after
// 1 s idle; gb's counts still equal the access log exactly, and the
// keep-alive close races it met are counted as retries, not failures.
func TestNginxChurn(t *testing.T) {
	ngx := testsupport.StartNginx(t, testsupport.NginxOptions{KeepaliveRequests: 100, KeepaliveTimeout: time.Second})
	js := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, "-k", "-c", "8", "-n", "3000", "--json", js, ngx.URL+"/small.txt")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := readResult(t, js)
	log := ngx.Totals(t)
	if res.Complete() != 3000 || log.Requests != 3000 || res.Counts.Outcomes.Failed() != 0 {
		t.Errorf("complete %d failed %d, nginx logged %d", res.Complete(), res.Counts.Outcomes.Failed(), log.Requests)
	}
	if res.Counts.BytesIn != log.BytesSent || res.Counts.ConnsOpened < 30 {
		t.Errorf("bytes %d vs nginx %d; connections %d", res.Counts.BytesIn, log.BytesSent, res.Counts.ConnsOpened)
	}
	// Idle races: a slow rate lets nginx's 1 s keepalive_timeout close
	// connections while gb is about to reuse them.
	js2 := filepath.Join(t.TempDir(), "r2.json")
	r = runGB(t, "-k", "-c", "4", "-R", "4", "-t", "4", "--json", js2, ngx.URL+"/small.txt")
	res = readResult(t, js2)
	before := log.Requests
	log = ngx.Totals(t)
	// A request in flight at the time limit is aborted by gb but may
	// still have been served and logged.
	logged, aborted := log.Requests-before, res.Counts.Outcomes.Aborted()
	if r.code != 0 || res.Counts.Outcomes.Failed() != 0 || logged < res.Complete() || logged > res.Complete()+aborted {
		t.Errorf("idle churn: exit %d outcomes %v, nginx logged %d for %d complete", r.code, res.Counts.Outcomes, logged, res.Complete())
	}
	t.Logf("churn: %d connections for 3000 requests; idle run: %d requests, %d retries", ngx.Totals(t).Conns, res.Complete(), res.Counts.Retries)
}

// TestNoSocketsLeftAfterRun: once gb exits, nginx holds no connection of
// gb's (every connection was closed, none left half-open).
func TestNoSocketsLeftAfterRun(t *testing.T) {
	ngx := testsupport.StartNginx(t, testsupport.NginxOptions{})
	if r := runGB(t, "-k", "-c", "50", "-n", "5000", "-q", ngx.URL+"/small.txt"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	port := strings.TrimPrefix(ngx.URL, "http://127.0.0.1:")
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := establishedTo(t, port)
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections to nginx still established after gb exited", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// establishedTo counts ESTABLISHED TCP sockets on this host whose local or
// remote port is port (decimal), from /proc/net/tcp.
func establishedTo(t *testing.T, port string) int {
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		t.Skip("no /proc/net/tcp")
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	hexPort := fmt.Sprintf("%04X", p)
	n := 0
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 4 || f[3] != "01" { // 01 = ESTABLISHED
			continue
		}
		if strings.HasSuffix(f[1], ":"+hexPort) || strings.HasSuffix(f[2], ":"+hexPort) {
			n++
		}
	}
	return n
}
