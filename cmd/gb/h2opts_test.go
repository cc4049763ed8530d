package main

import (
	"fmt"
	"path/filepath"
	"strings"
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

// TestH2Compressed: --compressed over h2c against gb serve's /compressed:
// every coding decodes to the size the server coded, the wire bytes are
// the coded bodies, and the counts equal the server's; bodies that do
// not decode end as failed.decode, each of them, with the connections
// kept.
func TestH2Compressed(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	const n, size = 60, 50000
	for _, enc := range []string{"gzip", "br", "zstd"} {
		url := fmt.Sprintf("%s/compressed?enc=%s&size=%d", s.URL(), enc, size)
		wire := codedLength(t, url)
		before := s.Ledger().HTTP.Requests
		r := compressedRun(t, 0, url, "--h2c", "--compressed", "-n", fmt.Sprint(n), "-c", "2", "--streams", "4")
		c := &r.Counts
		if c.Outcomes[stats.OK] != n || c.DecodedIn != n*size || c.BodyIn != n*wire || !r.Target.Compressed || r.Target.Engine != "h2c" {
			t.Errorf("%s: outcomes %v, decoded %d (want %d), body %d (want %d)", enc, c.Outcomes, c.DecodedIn, n*size, c.BodyIn, n*wire)
		}
		want(t, enc+": server's requests", s.Ledger().HTTP.Requests-before, n)
		want(t, enc+": connections", c.ConnsOpened, 2)
	}
	for _, tc := range []struct{ query, arg, err string }{
		{"enc=gzip&break=corrupt", "", "gzip body corrupt"},
		{"enc=zstd", "Accept-Encoding: gzip, br", "content-encoding zstd not asked for"},
		{"enc=deflate", "", "unknown content-encoding"},
		{"enc=br&break=cut", "", "br body ends inside the compressed stream"},
	} {
		args := []string{"--h2c", "--compressed", "-n", "40", "-c", "2", "--streams", "4"}
		if tc.arg != "" {
			args = append(args, "-H", tc.arg)
		}
		r := compressedRun(t, 1, s.URL()+"/compressed?"+tc.query+"&size=20000", args...)
		want(t, tc.query+": failed.decode", r.Counts.Outcomes[stats.FailDecode], 40)
		want(t, tc.query+": connections", r.Counts.ConnsOpened, 2)
		found := false
		for msg := range r.Counts.Errors {
			found = found || strings.Contains(msg, tc.err)
		}
		if !found {
			t.Errorf("%s: errors %v, want one with %q", tc.query, r.Counts.Errors, tc.err)
		}
	}
}
