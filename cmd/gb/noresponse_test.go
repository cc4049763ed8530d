package main

import (
	"io"
	"net"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testsupport"
)

// TestNoResponseInFlight: when -t ends a run whose requests were all
// still waiting for an answer, the no-response line says they were in
// flight (aborted), not that "0 requests failed".
func TestNoResponseInFlight(t *testing.T) {
	addr := testsupport.Serve(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) }) // reads, never answers
	code, _, errs := inProcess("-n", "4", "-c", "2", "-t", "1", "-s", "60", "http://"+addr+"/")
	want := "gb: no request got a response: all 2 requests sent were still in flight when the run stopped (aborted: no answer before the end)\n"
	if code != 1 || !strings.Contains(errs, want) || strings.Contains(errs, "0 requests failed") {
		t.Errorf("exit %d, stderr %q; want %q", code, errs, want)
	}
}
