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

func TestRefusesNonLoopbackAndBadArgs(t *testing.T) {
	for _, args := range [][]string{
		{"http://10.1.2.3:80/"},
		{"https://127.0.0.1:1/"},
		{"-engine", "kqueue", "http://127.0.0.1:1/"},
		{"-c", "10", "-n", "5", "http://127.0.0.1:1/"},
		{},
	} {
		if err := run(args, &bytes.Buffer{}); err == nil {
			t.Errorf("run(%q) succeeded", args)
		} else if strings.Contains(fmt.Sprint(err), "\n") {
			t.Errorf("run(%q): error is not one line: %v", args, err)
		}
	}
}
