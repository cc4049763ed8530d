package gb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/stats"
)

// TestTLSPhase: over https the handshake of every new connection is its
// own phase (one sample per connection, inside Connect), on both engines
// and with keep-alive or without; plain http has none. The JSON names it
// "tls" with its percentiles.
func TestTLSPhase(t *testing.T) {
	srv, err := testserver.Start(testserver.Options{Addr: "127.0.0.1:0", TLS: true, NoPprof: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, engine := range []string{gb.EngineLoop, gb.EngineGoroutine} {
		for _, ka := range []bool{true, false} {
			res, err := gb.Run(context.Background(), gb.Config{URL: srv.TLSURL() + "/hello", Concurrency: 2, Requests: 40,
				KeepAlive: ka, Engine: engine, TLS: gb.TLS{Insecure: true}})
			if err != nil {
				t.Fatal(err)
			}
			d := res.Latency[stats.TLS]
			if d == nil || d.Count != res.Counts.ConnsOpened || d.Min <= 0 || d.Max > res.Latency[stats.Connect].Max || len(res.Check()) > 0 {
				t.Errorf("%s keep-alive=%v: tls %+v, connections %d, check %v", engine, ka, d, res.Counts.ConnsOpened, res.Check())
				continue
			}
			var js bytes.Buffer
			if err := json.NewEncoder(&js).Encode(res); err != nil {
				t.Fatal(err)
			}
			var back struct {
				Latency map[string]map[string]any `json:"latency"`
			}
			if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Latency["tls"]["p99_ms"] == nil {
				t.Errorf("JSON latency.tls: %v %v", err, back.Latency["tls"])
			}
		}
	}
	res, err := gb.Run(context.Background(), gb.Config{URL: srv.URL() + "/hello", Requests: 10})
	if err != nil || res.Latency[stats.TLS] != nil {
		t.Errorf("plain http has a tls phase: %v", err)
	}
}
