//go:build linux

package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// TestBothEnginesCountEveryResponse runs the floor client over epoll and
// io_uring, with and without pipelining, against gb's test server and
// checks the report and the server's ledger: every request answered, none
// lost or extra (1000 is not a multiple of 16: the last batches are short).
func TestBothEnginesCountEveryResponse(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	for _, tc := range []struct{ engine, depth string }{{"epoll", "1"}, {"uring", "1"}, {"epoll", "16"}, {"uring", "16"}} {
		engine := tc.engine
		t.Run(engine+"/pipeline="+tc.depth, func(t *testing.T) {
			before := srv.Ledger().HTTP.Requests
			var out bytes.Buffer
			err := run([]string{"-engine", engine, "-pipeline", tc.depth, "-c", "8", "-n", "1000", srv.URL() + "/bytes/5000"}, &out)
			if err != nil {
				if engine == "uring" && strings.Contains(err.Error(), "io_uring_setup") {
					t.Skipf("io_uring unavailable here: %v", err)
				}
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "Complete requests:      1000\n") {
				t.Errorf("report:\n%s", out.String())
			}
			// 1000 requests plus the one that measured the response size.
			if got := srv.Ledger().HTTP.Requests - before; got != 1001 {
				t.Errorf("server saw %d requests, want 1001", got)
			}
		})
	}
}

// TestReconnectOneConnectionPerRequest: -reconnect opens a connection for
// every request, and the server's ledger says so.
func TestReconnectOneConnectionPerRequest(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	var out bytes.Buffer
	if err := run([]string{"-reconnect", "-c", "4", "-n", "200", srv.URL() + "/bytes/6"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Complete requests:      200\n") {
		t.Errorf("report:\n%s", out.String())
	}
	testsupport.WaitFor(t, "the connections to close", func() bool { return srv.Ledger().HTTP.Open == 0 })
	// 200 requests plus the one that measured the response size, each alone.
	if l := srv.Ledger().HTTP; l.Requests != 201 || l.Conns != 201 || l.RequestsPerConn[1] != 201 {
		t.Errorf("server saw %d requests on %d connections: %v", l.Requests, l.Conns, l.RequestsPerConn)
	}
}

// TestDuration: -d ends the run by time, with every request sent answered.
func TestDuration(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	var out bytes.Buffer
	if err := run([]string{"-c", "3", "-d", "300ms", srv.URL() + "/bytes/6"}, &out); err != nil {
		t.Fatal(err)
	}
	var done int64
	if _, err := fmt.Sscanf(out.String()[strings.Index(out.String(), "Complete"):], "Complete requests: %d", &done); err != nil || done < 3 {
		t.Fatalf("report:\n%s", out.String())
	}
	if got := srv.Ledger().HTTP.Requests; got != done+1 {
		t.Errorf("server saw %d requests, the report %d (+1)", got, done)
	}
}

func TestRefusesNonLoopbackAndBadArgs(t *testing.T) {
	for _, args := range [][]string{
		{"http://10.1.2.3:80/"},
		{"https://127.0.0.1:1/"},
		{"-engine", "kqueue", "http://127.0.0.1:1/"},
		{"-c", "10", "-n", "5", "http://127.0.0.1:1/"},
		{"-reconnect", "-engine", "uring", "http://127.0.0.1:1/"},
		{"-reconnect", "-pipeline", "4", "http://127.0.0.1:1/"},
		{},
	} {
		if err := run(args, &bytes.Buffer{}); err == nil {
			t.Errorf("run(%q) succeeded", args)
		} else if strings.Contains(fmt.Sprint(err), "\n") {
			t.Errorf("run(%q): error is not one line: %v", args, err)
		}
	}
}

// TestMeasureRecordsEveryResponse: -measure parses and records each
// response that arrives in one read (all of them, for a small body), and
// the counts still match the server's ledger.
func TestMeasureRecordsEveryResponse(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	before := srv.Ledger().HTTP.Requests
	var out bytes.Buffer
	if err := run([]string{"-measure", "-c", "8", "-n", "1000", srv.URL() + "/bytes/6"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Complete requests:      1000\n") || !strings.Contains(out.String(), "Measured responses:     1000 (p50 ") {
		t.Errorf("report:\n%s", out.String())
	}
	if got := srv.Ledger().HTTP.Requests - before; got != 1001 {
		t.Errorf("server saw %d requests, want 1001", got)
	}
	if err := run([]string{"-measure", "-pipeline", "4", srv.URL() + "/bytes/6"}, &out); err == nil {
		t.Error("-measure with -pipeline was accepted")
	}
}
