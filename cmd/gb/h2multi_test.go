package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// TestH2SeveralAddresses: targets on two servers (two URLs and a
// --targets file naming both) over h2c and --http2 (TLS), both engines,
// closed loop and -R: each worker holds a connection per address, each
// request goes to its target's server, the report's target rows and the
// JSON count each target, and each server's ledger counts exactly the
// requests of its targets.
func TestH2SeveralAddresses(t *testing.T) {
	a := testsupport.Server(t, testserver.Options{TLS: true})
	b := testsupport.Server(t, testserver.Options{TLS: true})
	dir := t.TempDir()
	for _, tc := range []struct {
		tls   bool
		flags []string
	}{
		{false, []string{"--h2c"}},
		{false, []string{"--h2c", "--engine", "goroutine"}},
		{false, []string{"--h2c", "-R", "3000"}},
		{true, []string{"--http2", "--insecure"}},
		{true, []string{"--http2", "--insecure", "--engine", "goroutine"}},
	} {
		urlA, urlB := a.URL(), b.URL()
		if tc.tls {
			urlA, urlB = a.TLSURL(), b.TLSURL()
		}
		file := tempFile(t, "targets.txt", fmt.Sprintf("POST %s/ok?status=201\n\nGET %s/hello\n", urlB, urlA))
		js := filepath.Join(dir, "out.json")
		beforeA, beforeB := a.Ledger(), b.Ledger()
		args := append(append([]string{"-q", "-n", "400", "-c", "3", "--targets", file, "--json", js}, tc.flags...),
			urlA+"/hello", urlB+"/status?s=503")
		r := runGB(t, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d:\n%s", tc.flags, r.code, r.stderr)
		}
		rows := targetLine.FindAllStringSubmatch(r.stdout, -1)
		want := [][]string{{"100", "0.250", "0", "0", "GET", urlA + "/hello"},
			{"100", "0.250", "0", "100", "GET", urlB + "/status?s=503"},
			{"100", "0.250", "0", "0", "POST", urlB + "/ok?status=201"},
			{"100", "0.250", "0", "0", "GET", urlA + "/hello"}}
		if len(rows) != len(want) {
			t.Fatalf("%v: gb section:\n%s", tc.flags, r.stdout)
		}
		for i, row := range rows {
			if strings.Join(row[1:], " ") != strings.Join(want[i], " ") {
				t.Errorf("%v: target %d: %q, want %q", tc.flags, i+1, row[1:], want[i])
			}
		}
		res := readResult(t, js)
		if len(res.Targets) != 4 || res.Targets[0].BodyIn != 100*13 || res.Counts.ConnsOpened != 6 ||
			!strings.HasPrefix(res.Load.Engine, "h2") || res.Counts.Dispatched != 400 {
			t.Errorf("%v: engine %s, requests %d, connections %d, JSON targets %+v", tc.flags, res.Load.Engine,
				res.Counts.Dispatched, res.Counts.ConnsOpened, res.Targets)
		}
		seen := func(before, after testserver.Ledger) int64 {
			return after.HTTP.Requests + after.TLS.Requests - before.HTTP.Requests - before.TLS.Requests
		}
		if gotA, gotB := seen(beforeA, a.Ledger()), seen(beforeB, b.Ledger()); gotA != 200 || gotB != 200 {
			t.Errorf("%v: servers saw %d and %d requests, want 200 each", tc.flags, gotA, gotB)
		}
	}
}

// TestH2SeveralAddressesRefused: what HTTP/2 cannot do with targets on
// several addresses is one line, exit 22: more than one stream per
// connection (a worker waits on one connection at a time), and a target
// of the other scheme (named).
func TestH2SeveralAddressesRefused(t *testing.T) {
	a := testsupport.Server(t, testserver.Options{TLS: true})
	b := testsupport.Server(t, testserver.Options{TLS: true})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--h2c", "--streams", "4", a.URL() + "/hello", b.URL() + "/hello"},
			"gb: --streams 4 with targets on several addresses is not supported: a worker waits on one connection at a time, so each of its connections (one per address) carries one stream; leave --streams at 1 or give targets of one scheme://host:port\n"},
		{[]string{"--http2", "--insecure", a.TLSURL() + "/hello", b.URL() + "/hello"},
			"gb: target 2: --http2 needs an https:// URL (use --h2c for HTTP/2 over cleartext)\n"},
	} {
		r := runGB(t, append([]string{"-n", "10"}, tc.args...)...)
		if r.code != 22 || r.stderr != tc.want {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}
