package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// inProcess runs gb's command line in this process and returns its exit
// code, stdout and stderr.
func inProcess(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb, nil)
	return code, out.String(), errb.String()
}

// TestHelpOnStdout: --help and gb help print usage on stdout and exit 0
// (so `gb --help | grep rate` works); -h stays ab's: stderr, exit 22.
func TestHelpOnStdout(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "Usage: gb [options]"},
		{[]string{"help"}, "Usage: gb [options]"},
		{[]string{"help", "ramp"}, "Usage: gb ramp"},
		{[]string{"ramp", "--help"}, "Usage: gb ramp"},
		{[]string{"serve", "--help"}, "Usage: gb serve"},
		{[]string{"demo", "--help"}, "Usage: gb demo"},
	} {
		code, out, errs := inProcess(tc.args...)
		if code != 0 || !strings.HasPrefix(out, tc.want) || errs != "" {
			t.Errorf("%q: exit %d, stdout %.40q, stderr %q", tc.args, code, out, errs)
		}
	}
	if code, out, errs := inProcess("-h"); code != 22 || out != "" || !strings.HasPrefix(errs, "Usage: gb") {
		t.Errorf("-h: exit %d, stdout %q, stderr %.40q", code, out, errs)
	}
	if !strings.Contains(func() string { _, o, _ := inProcess("--help"); return o }(), "-R rate") {
		t.Error("--help does not list -R")
	}
}

// TestUnknownCommand: a first argument that reads as a command gets one
// line (with a suggestion for a typo), never a DNS lookup of it.
func TestUnknownCommand(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"rmap", `gb: unknown command "rmap"; did you mean ramp? (gb help lists the commands)`},
		{"sevre", `did you mean serve?`},
		{"bench", `gb: unknown command "bench" (gb help lists the commands)`},
	} {
		code, out, errs := inProcess(tc.arg, "http://127.0.0.1:1/")
		if code != 22 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, stderr %q", tc.arg, code, errs)
		}
	}
	if code, _, errs := inProcess("help", "bogus"); code != 22 || !strings.Contains(errs, `no command "bogus"`) {
		t.Errorf("help bogus: exit %d, stderr %q", code, errs)
	}
}

// TestOptionsAfterURL: hey's and oha's order (gb URL -n 10) works, and
// fractional seconds are taken as ab takes them.
func TestOptionsAfterURL(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	code, out, errs := inProcess(srv.URL()+"/hello", "-n", "10", "-c", "2", "-s", "1.5", "-t", "2.5")
	if code != 0 || !strings.Contains(out, "Complete requests:      10\n") || !strings.Contains(out, "Concurrency Level:      2\n") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	if code, _, errs := inProcess("-s", "0", srv.URL()); code != 22 || !strings.Contains(errs, `invalid value "0" for -s`) {
		t.Errorf("-s 0: exit %d, stderr %q", code, errs)
	}
}

// TestNoResponseExitsOne: a run in which nothing got a response says why
// on stderr and exits 1 whatever -n (ab's abort needs 10 failures); the
// -e file it cannot fill is named, not silently skipped.
func TestNoResponseExitsOne(t *testing.T) {
	csv, js := filepath.Join(t.TempDir(), "p.csv"), filepath.Join(t.TempDir(), "r.json")
	code, _, errs := inProcess("-n", "1", "-e", csv, "--json", js, "http://"+testsupport.ClosedAddr(t)+"/")
	if _, err := os.Stat(js); err != nil {
		t.Errorf("--json is not written when -e cannot be: %v", err)
	}
	if code != 1 || !strings.Contains(errs, "gb: no request got a response: connection refused\n") ||
		!strings.Contains(errs, "-e "+csv+" not written: no request completed") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	srv := testsupport.Server(t, testserver.Options{TLS: true})
	code, _, errs = inProcess("-n", "1", srv.TLSURL()+"/hello")
	if code != 1 || !strings.Contains(errs, "unknown authority") || !strings.Contains(errs, "--cacert") {
		t.Errorf("self-signed: exit %d, stderr %q", code, errs)
	}
}

// TestHintNamesTheFailure: only an unknown authority is pointed at
// --cacert; a certificate for other names or out of date says so.
func TestHintNamesTheFailure(t *testing.T) {
	for _, tc := range []struct{ err, want, not string }{
		{"tls: failed to verify certificate: x509: certificate signed by unknown authority", "--cacert", ""},
		{"tls: failed to verify certificate: x509: certificate is valid for a.example, not b.example", "does not name this host", "--cacert"},
		{"tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2030-01-01T00:00:00Z is after 2027-01-01T00:00:00Z", "validity period", "--cacert"},
		{"connection refused", "", "--cacert"},
	} {
		h := hint(tc.err)
		if (tc.want != "" && !strings.Contains(h, tc.want)) || (tc.not != "" && strings.Contains(h, tc.not)) {
			t.Errorf("hint(%q) = %q", tc.err, h)
		}
	}
}

// TestSecretsNeverEchoed: credentials in a malformed -X or --profile-url
// are hidden in the error, and -v hides secret-looking headers.
func TestSecretsNeverEchoed(t *testing.T) {
	for _, args := range [][]string{
		{"-X", "u:PASSWORD@127.0.0.1:3128:9", "http://127.0.0.1:1/"},
		{"--profile", "--profile-url", "http://u:PASSWORD@%zz/", "http://127.0.0.1:1/"},
	} {
		code, out, errs := inProcess(args...)
		if code != 22 || strings.Contains(out+errs, "PASSWORD") || !strings.Contains(errs, "u:xxxxx@") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
	}
	for line, want := range map[string]string{
		"X-Api-Key: abc123":          "X-Api-Key: ***",
		"X-Auth-Token: t0k":          "X-Auth-Token: ***",
		"Authorization: Bearer zz":   "Authorization: Bearer ***",
		"Accept: application/json":   "Accept: application/json",
		"X-Client-Secret: s3cr3t":    "X-Client-Secret: ***",
		"Keep-Alive: timeout=5":      "Keep-Alive: timeout=5",
		"Content-Type: text/plain":   "Content-Type: text/plain",
		"X-Session-Id: deadbeef0001": "X-Session-Id: ***",
	} {
		if got := redactHeaderLine(line); got != want {
			t.Errorf("redactHeaderLine(%q) = %q, want %q", line, got, want)
		}
	}
}

// TestManners: two outputs on one path are refused before the run; gb
// serve's bad port is a usage error; -G beyond the cores is capped with a
// warning; gb demo shows the command it really runs.
func TestManners(t *testing.T) {
	if code, _, errs := inProcess("--json", "-", "-g", "-", "http://127.0.0.1:1/"); code != 22 || !strings.Contains(errs, "-g and --json both write to -") {
		t.Errorf("--json - -g -: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := inProcess("--pipeline", "100000000", "-n", "10", "http://127.0.0.1:1/"); code != 22 || !strings.Contains(errs, "above the maximum depth, 1024") {
		t.Errorf("--pipeline 1e8: exit %d, stderr %q", code, errs)
	}
	f := filepath.Join(t.TempDir(), "x")
	if code, _, errs := inProcess("-e", f, "--json", f, "http://127.0.0.1:1/"); code != 22 || !strings.Contains(errs, "both write to") {
		t.Errorf("-e x --json x: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := inProcess("serve", "--addr", "127.0.0.1:99999"); code != 22 || !strings.Contains(errs, `invalid port "99999"`) {
		t.Errorf("serve bad port: exit %d, stderr %q", code, errs)
	}
	srv := testsupport.Server(t, testserver.Options{})
	code, _, errs := inProcess("-q", "-G", "11000", "-n", "5", srv.URL()+"/hello")
	if code != 0 || !strings.Contains(errs, "-G 11000: this machine has") {
		t.Errorf("-G 11000: exit %d, stderr %q", code, errs)
	}
	got := strings.Join(demoCommand([]string{"-c", "8", "--requests=10"}), " ")
	if got != "-k -t 3 --profile -c 8 --requests=10" {
		t.Errorf("demo command %q", got)
	}
	_ = os.Remove(f)
}
