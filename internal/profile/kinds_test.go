package profile

import (
	"net/url"
	"slices"
	"testing"
)

func TestParseKinds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Kind
	}{
		{"cpu,allocs", []Kind{CPU, Allocs}},
		{"trace,cpu,cpu, heap", []Kind{CPU, Heap, Trace}},
		{"mutex,block,goroutine,allocs,heap,cpu,trace", kinds},
		{"", nil},
		{"cpu,", nil},
		{"CPU", nil},
		{"../etc", nil},
	} {
		got, err := ParseKinds(tc.in)
		if !slices.Equal(got, tc.want) || (err != nil) != (tc.want == nil) {
			t.Errorf("ParseKinds(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestURLs(t *testing.T) {
	for _, tc := range []struct{ in, base, vars string }{
		{"http://127.0.0.1:8080/debug/pprof/", "http://127.0.0.1:8080/debug/pprof/", "/debug/vars"},
		{"http://127.0.0.1:8080/debug/pprof", "http://127.0.0.1:8080/debug/pprof/", "/debug/vars"},
		{"https://u:p@h:6060/app/debug/pprof/?x=1#f", "https://u:p@h:6060/app/debug/pprof/", "/app/debug/vars"},
		{"http://h/pprof", "http://h/pprof/", "/debug/vars"},
	} {
		u, err := baseURL(tc.in)
		if err != nil || u.String() != tc.base || varsURL(u, "") != tc.vars {
			t.Errorf("%q: base %v vars %q err %v; want %q %q", tc.in, u, varsURL(u, ""), err, tc.base, tc.vars)
		}
	}
	for _, bad := range []string{"ftp://h/", "/debug/pprof/", "http:///x", "%"} {
		if _, err := baseURL(bad); err == nil {
			t.Errorf("baseURL(%q) accepted", bad)
		}
	}
	u, _ := url.Parse("http://h/debug/pprof/")
	if got := varsURL(u, "http://other:1/vars"); got != "http://other:1/vars" {
		t.Errorf("explicit vars URL: %q", got)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"gb-profiles/20261121-135130/cpu.pb.gz": "gb-profiles/20261121-135130/cpu.pb.gz",
		"my profiles/cpu.pb.gz":                 "'my profiles/cpu.pb.gz'",
		"it's/$(rm)/x":                          `'it'\''s/$(rm)/x'`,
		"":                                      "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
