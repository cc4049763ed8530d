package report

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/fakerun"
	"github.com/gb-bench/gb/stats"
)

func TestTextGolden(t *testing.T) {
	fx := fakerun.Fixtures()
	for _, tc := range []struct {
		file, fixture string
		o             Options
	}{
		{"text_plain.txt", "plain", Options{}},
		{"text_keepalive.txt", "keepalive", Options{}},
		{"text_failures.txt", "failures", Options{}},
		{"text_post.txt", "post", Options{}},
		{"text_noconfidence.txt", "plain", Options{NoConfidence: true}},
		{"text_nopercentiles.txt", "plain", Options{NoPercentiles: true}},
		{"text_https.txt", "https", Options{}},
		{"text_zero.txt", "zero", Options{}},
		{"text_one.txt", "one", Options{}},
		{"text_confidence.txt", "confidence", Options{}},
		{"text_rate.txt", "rate", Options{}},
		{"text_variable.txt", "variable", Options{NoPercentiles: true, NoConfidence: true}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			r := fx[tc.fixture]
			if errs := r.Check(); len(errs) > 0 {
				t.Fatalf("fixture %s is inconsistent: %v", tc.fixture, errs)
			}
			var b bytes.Buffer
			if err := Text(&b, r, tc.o); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.file, b.Bytes())
		})
	}
}

// TestTextFromJSON checks that a Result read back from its JSON renders to
// the same text as the live Result (gb report re-renders saved runs),
// server profile included.
func TestTextFromJSON(t *testing.T) {
	all := fakerun.Fixtures()
	maps.Copy(all, fakerun.ProfileFixtures())
	for name, r := range all {
		var live, js, again bytes.Buffer
		if err := Text(&live, r, Options{}); err != nil {
			t.Fatal(err)
		}
		if err := JSON(&js, r); err != nil {
			t.Fatal(err)
		}
		var back stats.Result
		if err := json.Unmarshal(js.Bytes(), &back); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := Text(&again, &back, Options{}); err != nil {
			t.Fatal(err)
		}
		if live.String() != again.String() {
			t.Errorf("%s: text from JSON differs:\n%s\nvs live:\n%s", name, again.String(), live.String())
		}
	}
}

func TestSoftware(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"nginx/1.22.1", "nginx/1.22.1"},
		{"Apache/2.4.41 (Ubuntu)", "Apache/2.4.41"},
		{"", ""},
		{" leading", ""},
		{"a\tb", "a"},
		{"caddy\x1b[31m", "caddy"},
		{"café", "caf"},
		{"del\x7fx", "del"},
		{string(bytes.Repeat([]byte{'x'}, 2000)), string(bytes.Repeat([]byte{'x'}, 1023))},
	} {
		if got := software(tc.in); got != tc.want {
			t.Errorf("software(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTLSInfo(t *testing.T) {
	for _, tc := range []struct {
		s    stats.Server
		want string
	}{
		{stats.Server{}, ""},
		{stats.Server{TLSProtocol: "TLS 1.3", TLSCipher: "TLS_AES_128_GCM_SHA256"},
			"TLSv1.3,TLS_AES_128_GCM_SHA256,0,128"},
		{stats.Server{TLSProtocol: "TLS 1.2", TLSCipher: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"},
			"TLSv1.2,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,0,256"},
		{stats.Server{TLSProtocol: "TLSv1.3", TLSCipher: "TLS_CHACHA20_POLY1305_SHA256"},
			"TLSv1.3,TLS_CHACHA20_POLY1305_SHA256,0,256"},
		{stats.Server{TLSProtocol: "TLS 1.0", TLSCipher: "TLS_RSA_WITH_3DES_EDE_CBC_SHA"},
			"TLSv1,TLS_RSA_WITH_3DES_EDE_CBC_SHA,0,112"},
		{stats.Server{TLSProtocol: "TLS 1.1", TLSCipher: "TLS_FAKE"}, "TLSv1.1,TLS_FAKE,0,0"},
	} {
		if got := tlsInfo(tc.s); got != tc.want {
			t.Errorf("tlsInfo(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// TestTLSLinesOnlyForHTTPS checks that TLS fields of a plain-http Result
// (which a proxy or a mistake could leave) print nothing.
func TestTLSLinesOnlyForHTTPS(t *testing.T) {
	r := fakerun.Fixtures()["plain"]
	r.Server.TLSProtocol, r.Server.TLSCipher = "TLS 1.3", "TLS_AES_128_GCM_SHA256"
	var b bytes.Buffer
	if err := Text(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte("SSL/TLS")) {
		t.Errorf("TLS line for an http URL:\n%s", b.String())
	}
}

// TestClientRSSPerConnection checks the client line's memory: the whole
// process's RSS divided by -c is never shown as a per-connection cost;
// with a baseline and enough connections, the growth above it is.
func TestClientRSSPerConnection(t *testing.T) {
	for _, tc := range []struct {
		conns     int
		base, max int64 // bytes
		want      string
	}{
		{50, 0, 14 << 20, "rss=14.0MiB\n"},
		{50, 10 << 20, 14 << 20, "rss=14.0MiB\n"},
		{1000, 0, 60 << 20, "rss=60.0MiB\n"},
		{1000, 10 << 20, 60 << 20, "rss=60.0MiB (50.0MiB above the baseline, 51.2KiB per connection)\n"},
	} {
		r := fakerun.Fixtures()["keepalive"]
		r.Load.Concurrency = tc.conns
		r.Client.BaseRSS, r.Client.MaxRSS = tc.base, tc.max
		var b bytes.Buffer
		if err := Text(&b, r, Options{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), " "+tc.want) {
			_, client, _ := strings.Cut(b.String(), "  client:")
			t.Errorf("-c %d, base %d, max %d: client line%s\nwant it to end in %q", tc.conns, tc.base, tc.max, client, tc.want)
		}
	}
}
