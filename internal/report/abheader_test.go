package report

import (
	"bytes"
	"net/url"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/fakerun"
	"github.com/gb-bench/gb/stats"
)

// TestHeaderSeveralTargets: with several targets ab's header block says
// "(several)" for what the targets do not share (the first response's
// server and length describe one target only), keeps what they share, and
// with one target stays ab's, byte for byte (the goldens).
func TestHeaderSeveralTargets(t *testing.T) {
	for _, tc := range []struct {
		name    string
		urls    []string
		varLen  bool
		want    []string
		notWant []string
	}{
		{"two servers", []string{"http://127.0.0.1:8080/a", "http://127.0.0.1:9090/b"}, false, []string{
			"Server Software:        (several)\n", "Server Hostname:        127.0.0.1\n", "Server Port:            (several)\n",
			"Document Path:          (several)\n", "Document Length:        (several)\n",
		}, nil},
		{"one server, two paths", []string{"http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b?x=1"}, true, []string{
			"Server Port:            8080\n", "Document Path:          (several)\n", "Document Length:        Variable\n",
		}, []string{"Server Software:        (several)"}},
		{"two hosts, default ports", []string{"http://a.test/x", "http://b.test/x"}, false, []string{
			"Server Hostname:        (several)\n", "Server Software:        (several)\n", "Document Path:          /x\n",
		}, []string{"Server Port:            (several)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := *fakerun.Fixtures()["plain"]
			r.Load.VariableLength = tc.varLen
			r.Targets = nil
			first, _ := url.Parse(tc.urls[0]) // the run's Target is the first target's
			r.Load.Host, r.Load.Path = first.Hostname(), first.RequestURI()
			for _, u := range tc.urls {
				r.Targets = append(r.Targets, stats.TargetStats{URL: u, Method: "GET"})
			}
			var text bytes.Buffer
			if err := Text(&text, &r, Options{}); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(text.String(), w) {
					t.Errorf("no %q in\n%s", w, text.String())
				}
				label, value, _ := strings.Cut(strings.TrimSpace(w), ":")
				h := headerOf(&r)
				if got := map[string]string{"Server Software": h.software, "Server Hostname": h.host, "Server Port": h.port,
					"Document Path": h.path, "Document Length": h.length}[label]; got != strings.TrimSpace(value) {
					t.Errorf("%s = %q for the HTML report, want %q", label, got, strings.TrimSpace(value))
				}
			}
			for _, n := range tc.notWant {
				if strings.Contains(text.String(), n) {
					t.Errorf("%q in\n%s", n, text.String())
				}
			}
		})
	}
}
