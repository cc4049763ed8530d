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
	for _, engine := range []gb.Engine{gb.EngineLoop, gb.EngineGoroutine} {
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

// TestTLSFailedNotOpened: connections whose TLS handshake fails (a
// certificate gb does not trust) are not counted as opened, on either
// engine: "opened" counts connections the requests could use.
func TestTLSFailedNotOpened(t *testing.T) {
	srv, err := testserver.Start(testserver.Options{Addr: "127.0.0.1:0", TLS: true, NoPprof: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, engine := range []gb.Engine{gb.EngineLoop, gb.EngineGoroutine} {
		res, err := gb.Run(context.Background(), gb.Config{URL: srv.TLSURL() + "/hello", Concurrency: 2, Requests: 6,
			Engine: engine})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Counts
		if c.Outcomes[stats.FailTLS] == 0 || c.Outcomes[stats.FailTLS] != res.Failed() || c.ConnsOpened != 0 || c.ConnsClosed != 0 {
			t.Errorf("%s: outcomes %v, opened %d, closed %d; want failed.tls and no connection opened", engine, c.Outcomes, c.ConnsOpened, c.ConnsClosed)
		}
		if errs := res.Check(); len(errs) > 0 {
			t.Errorf("%s: invariants %v", engine, errs)
		}
	}
}
