package gb_test

import (
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb"
)

// flagWords matches a command-line flag in a message: "--streams", "-R ".
var flagWords = regexp.MustCompile(`(^|[\s(])(--[a-z]|-[A-Za-z](\s|$))`)

// TestLibraryErrorsNameFields: a Go program that hands gb a Config that
// cannot run gets a *ConfigError whose Field is a real field of Config
// (or of Profile) and whose message names fields, never a command-line
// flag.
func TestLibraryErrorsNameFields(t *testing.T) {
	u := "http://127.0.0.1:1/"
	for _, tc := range []struct {
		cfg   gb.Config
		opts  []gb.Option
		field string
	}{
		{gb.Config{URL: u, Streams: 2, Requests: 1}, nil, "Streams"},
		{gb.Config{URL: u, Protocol: gb.ProtocolHTTP2, Requests: 1}, nil, "Protocol"},
		{gb.Config{URL: "https://127.0.0.1:1/", Protocol: gb.ProtocolHTTP3, TLS: gb.TLS{NoSNI: true}, Requests: 1}, nil, "TLS.NoSNI"},
		{gb.Config{URL: u, Checks: []string{"status=="}, Requests: 1}, nil, "Checks"},
		{gb.Config{URL: u, Protocol: gb.ProtocolH2C, Proxy: "127.0.0.1:3128", Requests: 1}, nil, "Proxy"},
		{gb.Config{Protocol: gb.ProtocolHTTP3, Targeter: func(*gb.Target) error { return nil }, Requests: 1}, nil, "Targeter"},
		{gb.Config{URL: u, Rate: gb.Rate{Freq: 5}}, nil, "Rate"},
		{gb.Config{URL: u, Pipeline: 2, Rate: gb.Rate{Freq: 5}, Requests: 5}, nil, "Pipeline"},
		{gb.Config{URL: u, Requests: 1, MaxDecoded: 10}, nil, "MaxDecoded"},
		{gb.Config{URL: u, Requests: 1, LocalAddr: "nowhere"}, nil, "LocalAddr"},
		{gb.Config{URL: u, Requests: 1, ConnectTo: []string{"a:b"}}, nil, "ConnectTo"},
		{gb.Config{URL: u, Requests: 1, Proxy: "noport"}, nil, "Proxy"},
		{gb.Config{URL: "https://127.0.0.1:1/", Requests: 1, TLS: gb.TLS{ServerName: "x", NoSNI: true}}, nil, "TLS.ServerName"},
		{gb.Config{URL: u, Requests: 1, TLS: gb.TLS{ServerName: "x"}}, nil, "TLS.ServerName"},
		{gb.Config{URL: "https://127.0.0.1:1/", Requests: 1, TLS: gb.TLS{Protocol: "SSL3"}}, nil, "TLS.Protocol"},
		{gb.Config{URL: "https://127.0.0.1:1/", Requests: 1, TLS: gb.TLS{Ciphers: "NOPE"}}, nil, "TLS.Ciphers"},
		{gb.Config{URL: "https://127.0.0.1:1/", Requests: 1, TLS: gb.TLS{CAFile: "/nonexistent/ca.pem"}}, nil, "TLS.CAFile"},
		{gb.Config{URL: u, Requests: 1, Headers: []string{"Transfer-Encoding: chunked"}}, nil, "Headers"},
		{gb.Config{URL: u, Requests: 1, Order: "sideways", Targets: []gb.Target{{URL: u}}}, nil, "Order"},
		{gb.Config{URL: u, Requests: 1, Engine: "fast"}, nil, "Engine"},
		{gb.Config{URL: u, Requests: 1, Warmup: -time.Second}, nil, "Warmup"},
		{gb.Config{URL: u, Requests: 2, Concurrency: 3}, nil, "Concurrency"},
		{gb.Config{URL: u, Requests: 10, Concurrency: 2, Shard: gb.Shard{Index: 0, Count: 3}}, nil, "Shard"},
		{gb.Config{URL: u, Requests: 1, Script: "s.lua", ScriptSource: []byte("x"), Pipeline: 2}, nil, "Pipeline"},
		{gb.Config{URL: u, Requests: 1, Script: "s.lua", ScriptSource: []byte("x"), Protocol: gb.ProtocolH2C}, nil, "Script"},
		{gb.Config{URL: u, Requests: 1}, []gb.Option{gb.WithProfile(gb.Profile{URL: "http://127.0.0.1:1/debug/pprof/"})}, "Profile.URL"},
		{gb.Config{URL: u, Requests: 1}, []gb.Option{gb.WithProfile(gb.Profile{Kinds: "cpu", URL: "ftp://x/"})}, "Profile.URL"},
		{gb.Config{URL: u, Requests: 1}, []gb.Option{gb.WithProfile(gb.Profile{Kinds: "cpu,nope"})}, "Profile.Kinds"},
	} {
		_, err := gb.NewPlan(tc.cfg, tc.opts...)
		var ce *gb.ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s: %v is not a *ConfigError", tc.field, err)
			continue
		}
		if ce.Field != tc.field || !isField(ce.Field) {
			t.Errorf("%v: Field %q, want %q", err, ce.Field, tc.field)
		}
		if msg := err.Error(); flagWords.MatchString(msg) || strings.HasPrefix(msg, "gb: ") || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q names a flag, is prefixed or is not one line", tc.field, msg)
		}
		for _, ref := range ce.Refs() {
			if name, _, _ := strings.Cut(ref, "="); !isField(name) {
				t.Errorf("%v: refers to %q, no field of Config or Profile", err, ref)
			}
		}
	}
}

// isField reports whether path ("Rate", "TLS.Ciphers", "Profile.URL")
// names a field of gb.Config, or of gb.Profile.
func isField(path string) bool {
	typ := reflect.TypeFor[gb.Config]()
	if rest, ok := strings.CutPrefix(path, "Profile."); ok {
		typ, path = reflect.TypeFor[gb.Profile](), rest
	}
	for name := range strings.SplitSeq(path, ".") {
		f, ok := typ.FieldByName(name)
		if !ok {
			return false
		}
		typ = f.Type
	}
	return true
}

// TestValidateTouchesNothing: Validate answers from the Config alone: a
// host that does not resolve and a CA file that does not exist are
// NewPlan's to find, and Validate finds the same shape errors NewPlan
// does.
func TestValidateTouchesNothing(t *testing.T) {
	ok := gb.Config{URL: "https://no-such-host.invalid:8443/x", Requests: 10, Concurrency: 2,
		TLS: gb.TLS{CAFile: "/nonexistent/ca.pem"}, Targets: []gb.Target{{URL: "https://no-such-host.invalid:8443/y"}}}
	if err := ok.Validate(); err != nil {
		t.Errorf("Validate of a well-formed Config: %v", err)
	}
	if _, err := gb.NewPlan(ok); err == nil {
		t.Errorf("NewPlan of a Config whose host and CA file do not exist: no error")
	}
	bad := ok
	bad.Targets = []gb.Target{{URL: "https://no-such-host.invalid:8443/y", Headers: []string{"Transfer-Encoding: chunked"}}}
	var ce *gb.ConfigError
	if err := bad.Validate(); !errors.As(err, &ce) || ce.Field != "Headers" || !strings.HasPrefix(err.Error(), "target 2: ") {
		t.Errorf("Validate of a Config whose second target has a framing header: %v", err)
	}
}
