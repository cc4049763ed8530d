package gb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// tlsCounts are a result's TLS handshakes: all, full and resumed.
type tlsCounts struct{ all, full, resumed int64 }

func handshakes(res *gb.Result) tlsCounts {
	n := func(d *stats.Dist) int64 {
		if d == nil {
			return 0
		}
		return d.Count
	}
	return tlsCounts{n(res.Latency[stats.TLS]), n(res.Latency[stats.TLSFull]), n(res.Latency[stats.TLSResumed])}
}

// checkResume checks a no-keep-alive run's handshakes: every opened
// connection had one, each full or resumed; with resumption on (resumes),
// only a connection that opened before a first session was in hand is
// full (at most one per concurrent connection: in a closed loop a
// connection's successor opens after its response, by which time its
// session ticket was read), and with it off (the server refuses) none
// resumed. The run has no failure and its invariants hold.
func checkResume(t *testing.T, res *gb.Result, resumes bool) {
	t.Helper()
	h, opened := handshakes(res), res.Counts.ConnsOpened
	if h.all != opened || h.full+h.resumed != opened || opened != res.Counts.Dispatched {
		t.Errorf("handshakes %+v for %d connections opened, %d requests", h, opened, res.Counts.Dispatched)
	}
	if res.Failed() != 0 || len(res.Check()) > 0 {
		t.Errorf("failed %d, outcomes %v, check %v", res.Failed(), res.Counts.Outcomes, res.Check())
	}
	switch {
	case resumes && (h.resumed == 0 || h.full > int64(res.Load.Concurrency)):
		t.Errorf("resumption on: %+v with concurrency %d", h, res.Load.Concurrency)
	case !resumes && h.resumed != 0:
		t.Errorf("the server refuses resumption, yet %d resumed", h.resumed)
	}
}

// TestTLSResume: with TLS.Resume, new connections to gb's test server
// resume sessions (TLS 1.3 tickets, TLS 1.2 session tickets) on both
// engines; without it, or against the server with tickets off, every
// handshake is full and the run has no error. The report says which, and
// notes a server that refuses resumption.
func TestTLSResume(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		srv, err := testserver.Start(testserver.Options{Addr: "127.0.0.1:0", TLS: true, NoPprof: true, NoResume: refuse})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		for _, engine := range engines {
			for _, proto := range []string{"TLS1.2", "TLS1.3"} {
				for _, resume := range []bool{false, true} {
					name := fmt.Sprintf("%s %s resume=%v refused=%v", engine, proto, resume, refuse)
					res, err := gb.Run(context.Background(), gb.Config{URL: srv.TLSURL() + "/hello", Concurrency: 3, Requests: 30,
						Engine: engine, TLS: gb.TLS{Insecure: true, Protocol: proto, Resume: resume}})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					t.Run(name, func(t *testing.T) {
						checkResume(t, res, resume && !refuse)
						if res.Load.TLSResume != resume {
							t.Errorf("target.tls_resume %v", res.Load.TLSResume)
						}
						checkReportLine(t, res, resume && refuse)
					})
				}
			}
		}
	}
}

// checkReportLine checks the text report's "tls handshakes" line: the
// counts, and the note that the server refused resumption when refused.
func checkReportLine(t *testing.T, res *gb.Result, refused bool) {
	t.Helper()
	var out bytes.Buffer
	if err := report.Text(&out, res, report.Options{}); err != nil {
		t.Fatal(err)
	}
	h := handshakes(res)
	want := fmt.Sprintf("  tls handshakes:       full=%d resumed=%d", h.full, h.resumed)
	line := lineWith(out.String(), "tls handshakes:")
	if !strings.HasPrefix(line, want) {
		t.Errorf("report line %q, want %q...", line, want)
	}
	if got := strings.Contains(line, "the server resumed none of the"); got != refused {
		t.Errorf("refusal note %v, want %v: %q", got, refused, line)
	}
}

// lineWith returns the first line of s that contains sub, or "".
func lineWith(s, sub string) string {
	for l := range strings.Lines(s) {
		if strings.Contains(l, sub) {
			return strings.TrimSuffix(l, "\n")
		}
	}
	return ""
}

// TestTLSResumeJSON: the JSON nests the split inside the tls phase
// (latency.tls.full, latency.tls.resumed) so that the latency object keeps
// only the phase names older readers know; reading it back restores both.
func TestTLSResumeJSON(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{TLS: true})
	res, err := gb.Run(context.Background(), gb.Config{URL: srv.TLSURL() + "/hello", Concurrency: 2, Requests: 20,
		TLS: gb.TLS{Insecure: true, Resume: true}})
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := json.NewEncoder(&js).Encode(res); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Target  map[string]any                        `json:"target"`
		Latency map[string]map[string]json.RawMessage `json:"latency"`
	}
	if err := json.Unmarshal(js.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	old := []string{"connect", "processing", "waiting", "total", "corrected", "lag", "tls"}
	for k := range raw.Latency {
		if !slices.Contains(old, k) {
			t.Errorf("latency.%s: a phase older readers refuse", k)
		}
	}
	h := handshakes(res)
	for key, want := range map[string]int64{"full": h.full, "resumed": h.resumed} {
		var d struct {
			Count int64   `json:"count"`
			P99   float64 `json:"p99_ms"`
		}
		if err := json.Unmarshal(raw.Latency["tls"][key], &d); err != nil || d.Count != want || want == 0 {
			t.Errorf("latency.tls.%s: %s (%v), want count %d", key, raw.Latency["tls"][key], err, want)
		}
	}
	if raw.Target["tls_resume"] != true {
		t.Errorf("target.tls_resume %v", raw.Target["tls_resume"])
	}
	back, err := stats.ReadResult(bytes.NewReader(js.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got := handshakes(back); got != h {
		t.Errorf("read back %+v, wrote %+v", got, h)
	}
	sch, err := jsonschema.NewCompiler().Compile("stats/result.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	res.Command = []string{"gb"} // a library run has none, which the schema refuses
	doc, _ := json.Marshal(res)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("schema: %v", err)
	}
	inst.(map[string]any)["latency"].(map[string]any)["tls"].(map[string]any)["resumed"].(map[string]any)["count"] = json.Number("-1")
	if sch.Validate(inst) == nil {
		t.Errorf("the schema takes a negative latency.tls.resumed.count")
	}
}

// TestTLSResumeNginx: against nginx over TLS 1.2 and 1.3, with its
// default session tickets and with tickets and the session cache off:
// gb's resumed handshakes are the requests nginx logged on resumed
// sessions ($ssl_session_reused), and with resumption off nginx resumed
// none, which is no error.
func TestTLSResumeNginx(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		o := testsupport.NginxOptions{TLS: true}
		if refuse {
			o.Extra = "ssl_session_tickets off; ssl_session_cache off;"
		}
		o.Extra += " ssl_protocols TLSv1.2 TLSv1.3;" // nginx before 1.23.4 leaves TLS 1.3 out by default
		ng := testsupport.StartNginx(t, o)
		for _, engine := range engines {
			for _, proto := range []string{"TLS1.2", "TLS1.3"} {
				before := ng.Totals(t)
				res, err := gb.Run(context.Background(), gb.Config{URL: ng.TLSURL + "/small.txt", Concurrency: 3, Requests: 30,
					Engine: engine, TLS: gb.TLS{CAFile: ng.CertFile, Protocol: proto, Resume: true}})
				if err != nil {
					t.Fatal(err)
				}
				t.Run(fmt.Sprintf("%s %s refused=%v", engine, proto, refuse), func(t *testing.T) {
					checkResume(t, res, !refuse)
					after := ng.Settled(t, before, 30)
					if n, r := after.Requests-before.Requests, after.Resumed-before.Resumed; n != 30 || r != handshakes(res).resumed {
						t.Errorf("nginx logged %d requests, %d on resumed sessions; gb resumed %d", n, r, handshakes(res).resumed)
					}
				})
			}
		}
	}
}
