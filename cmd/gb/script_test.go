package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
)

// TestScriptCommandLine runs --script with the arguments after "--", a
// script that does not compile (exit 22, one line, nothing sent) and one
// that fails during the load (exit 1, the report of what ran).
func TestScriptCommandLine(t *testing.T) {
	srv, err := testserver.Start(testserver.Options{Addr: "127.0.0.1:0", NoPprof: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "args.txt")
	argsLua := tempFile(t, "args.lua", `
function init(args)
   local f = assert(io.open(args[1], "w"))
   f:write(args[0], " ", args[2], "\n")
   f:close()
end
`)
	url := srv.FaultURL() + "/ok"
	r := runGB(t, "-q", "-k", "-n", "3", "--script", argsLua, url, "--", out, "second")
	if r.code != 0 || !strings.Contains(r.stdout, "Complete requests:      3") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != url+" second\n" {
		t.Errorf("init's args wrote %q (%v), want %q", b, err, url+" second\n")
	}

	broken := tempFile(t, "broken.lua", "function request()\n  return wrk.format(\nend\n")
	r = runGB(t, "-n", "3", "--script", broken, url)
	if r.code != 22 || r.stderr != "gb: "+broken+":3: syntax error near 'end'\n" || r.stdout != "" {
		t.Errorf("compile error: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if n := len(srv.Ledger().Exchanges); n != 3 {
		t.Errorf("server saw %d requests, want the first run's 3 only", n)
	}

	r = runGB(t, "--h2c", "-n", "3", "--script", argsLua, url)
	if r.code != 22 || r.stderr != "gb: --script speaks HTTP/1.1 only: not with --http2, --h2c or --http3\n" {
		t.Errorf("--h2c: exit %d, stderr %q", r.code, r.stderr)
	}

	raising := tempFile(t, "raising.lua", "function response(status)\n  error(\"status \" .. status)\nend\n")
	r = runGB(t, "-q", "-k", "-n", "10", "--script", raising, url)
	if r.code != 1 || !strings.Contains(r.stderr, "Test aborted: "+raising+":2: status 200 (in response)") ||
		!strings.Contains(r.stdout, "failed.script=1") {
		t.Errorf("runtime error: exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestScriptDonePrintsAfterTheReport: as wrk, gb prints its report first,
// then calls done(), whose output follows it on stdout.
func TestScriptDonePrintsAfterTheReport(t *testing.T) {
	srv, err := testserver.Start(testserver.Options{Addr: "127.0.0.1:0", NoPprof: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	done := tempFile(t, "done.lua", `
done = function(summary, latency, requests)
   io.write(string.format("done: %d requests\n", summary.requests))
end
`)
	r := gbProcess(t, "-k", "-n", "5", "--script", done, srv.FaultURL()+"/ok")
	report := strings.Index(r.stdout, "Requests per second:")
	if r.code != 0 || report < 0 || !strings.HasSuffix(r.stdout, "\ndone: 5 requests\n") {
		t.Errorf("exit %d; want done()'s line at the end of stdout, after the report:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	raising := tempFile(t, "raising.lua", "function done(summary)\n  error(\"no \" .. summary.requests)\nend\n")
	r = gbProcess(t, "-k", "-n", "5", "--script", raising, srv.FaultURL()+"/ok")
	if r.code != 1 || !strings.Contains(r.stdout, "Complete requests:      5") || r.stderr != "gb: "+raising+":2: no 5 (in done)\n" {
		t.Errorf("done() raising: exit %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
}
