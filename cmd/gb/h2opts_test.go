package main

import (
	"path/filepath"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// TestH2FirstByteTimeout: --h2c with --first-byte-timeout far below -s
// against gb serve's /delay answering after 3 s: every stream ends at
// its own deadline as failed.timeout.ttfb and is reset, on the one
// connection (-c 1), and the run ends by its count (the time limit is
// only a bound); no response, so exit 1 saying why.
func TestH2FirstByteTimeout(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	js := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, "--h2c", "--first-byte-timeout", "0.2", "-s", "60", "-t", "30", "-n", "6", "-c", "1", "--streams", "3",
		"-q", "--json", js, s.URL()+"/delay?d=3s")
	if r.code != 1 || r.stderr != "gb: no request got a response: http2: stream timed out\n" {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := readResult(t, js)
	want(t, "failed.timeout.ttfb", res.Counts.Outcomes[stats.TimeoutFirstByte], 6)
	want(t, "connections", res.Counts.ConnsOpened, 1)
	if res.StoppedBy != stats.StopCount {
		t.Errorf("stopped by %s, want the count", res.StoppedBy)
	}
}
