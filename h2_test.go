package gb_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/stats"
)

// TestHTTP2Config: what HTTP/2 cannot run is a *ConfigError from NewPlan,
// before any connection.
func TestHTTP2Config(t *testing.T) {
	for _, tc := range []struct {
		cfg gb.Config
		msg string
	}{
		{gb.Config{URL: "http://127.0.0.1:1/", Protocol: gb.ProtocolHTTP2}, "needs an https:// URL"},
		{gb.Config{URL: "https://127.0.0.1:1/", Protocol: gb.ProtocolH2C}, "needs an http:// URL"},
		{gb.Config{URL: "http://127.0.0.1:1/", Streams: 2}, "Config.Streams is HTTP/2's and HTTP/3's: add Config.Protocol \"h2\""},
		{gb.Config{URL: "http://127.0.0.1:1/", Protocol: gb.ProtocolH2C, Pipeline: 2}, "Config.Pipeline is HTTP/1.1's"},
		{gb.Config{URL: "http://127.0.0.1:1/", Protocol: gb.ProtocolH2C, Streams: 2, Targets: []gb.Target{{URL: "http://127.0.0.1:2/b"}}}, "Config.Streams 2 with targets on several addresses is not supported"},
		{gb.Config{URL: "http://127.0.0.1:1/", Protocol: gb.ProtocolH2C, Streams: gb.MaxStreams + 1}, "out of range"},
		{gb.Config{URL: "http://127.0.0.1:1/", Protocol: "h9"}, "unknown Config.Protocol \"h9\""},
		{gb.Config{URL: "http://127.0.0.1:1/", Protocol: gb.ProtocolH2C, Headers: []string{"TE: gzip"}}, "only \"trailers\""},
	} {
		tc.cfg.Requests = 10
		_, err := gb.NewPlan(tc.cfg)
		var ce *gb.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%+v: %v, want a ConfigError with %q", tc.cfg, err, tc.msg)
		}
	}
}

// TestHTTP2Run: gb.Run over h2c with streams: the server served every
// request over HTTP/2, and the Result's target names the protocol.
func TestHTTP2Run(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			served.Add(1)
		}
		_, _ = io.WriteString(w, "hello")
	}))
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	srv.Config.Protocols = &p
	srv.Start()
	defer srv.Close()
	res, err := gb.Run(context.Background(), gb.Config{URL: srv.URL + "/", Protocol: gb.ProtocolH2C, Streams: 5,
		Concurrency: 2, Requests: 500})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts.Outcomes[stats.OK] != 500 || served.Load() != 500 || res.Load.Engine != "h2c" ||
		res.Load.Streams != 5 || !res.Load.KeepAlive || res.Counts.ConnsOpened != 2 {
		t.Errorf("ok %d, served %d, target %+v, connections %d", res.Counts.Outcomes[stats.OK], served.Load(), res.Load, res.Counts.ConnsOpened)
	}
}
