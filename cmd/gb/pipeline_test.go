package main

import (
	"path/filepath"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// TestPipelineCountsEqualAccessLog: pipelined requests against nginx,
// which closes each connection after 100 requests (in the middle of a
// batch): the unanswered requests go again on a new connection, and gb's
// counts equal the access log exactly.
func TestPipelineCountsEqualAccessLog(t *testing.T) {
	ngx := testsupport.StartNginx(t, testsupport.NginxOptions{KeepaliveRequests: 100})
	js := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, "--pipeline", "16", "-c", "4", "-n", "5003", "-q", "--json", js, ngx.URL+"/small.txt")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := readResult(t, js)
	log := ngx.Totals(t)
	want(t, "ok", res.Counts.Outcomes[stats.OK], 5003)
	want(t, "nginx log", log.Requests, 5003)
	want(t, "bytes in", res.Counts.BytesIn, log.BytesSent)
	if res.Load.Pipeline != 16 || res.Counts.Retries == 0 || len(res.Check()) > 0 {
		t.Errorf("pipeline %d, retries %d (nginx closes mid-batch every 100), check %v",
			res.Load.Pipeline, res.Counts.Retries, res.Check())
	}
}

// TestPipelineSilentClose: the server answers one request per connection
// and closes without a word; every pipelined request is still answered
// exactly once, on a new connection.
func TestPipelineSilentClose(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	js := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, "--pipeline", "4", "-c", "2", "-n", "40", "-q", "--json", js, srv.FaultURL()+"/ok?closeafter=1&conn=silent")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := readResult(t, js)
	want(t, "ok", res.Counts.Outcomes[stats.OK], 40)
	want(t, "server requests", srv.Ledger().Fault.Requests, 40)
	if len(res.Check()) > 0 {
		t.Errorf("check %v", res.Check())
	}
}
