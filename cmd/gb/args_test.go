package main

import (
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/getopt"
)

func TestParseArgsForms(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		rest []string
		chk  func(o *options) bool
	}{
		{[]string{"-c100", "-n1000", "u"}, []string{"u"}, func(o *options) bool { return o.cfg.Concurrency == 100 && o.cfg.Requests == 1000 }},
		{[]string{"-kc", "10", "u"}, []string{"u"}, func(o *options) bool { return o.cfg.KeepAlive && o.cfg.Concurrency == 10 }},
		{[]string{"-kqS", "u"}, []string{"u"}, func(o *options) bool { return o.cfg.KeepAlive && o.quiet && o.noConfidence }},
		{[]string{"-H", "A: b, c", "-H", "X: y:z", "u"}, []string{"u"}, func(o *options) bool {
			return len(o.cfg.Headers) == 2 && o.cfg.Headers[0] == "A: b, c" && o.cfg.Headers[1] == "X: y:z"
		}},
		{[]string{"--requests=5", "--concurrency", "2", "u"}, []string{"u"}, func(o *options) bool { return o.cfg.Requests == 5 && o.cfg.Concurrency == 2 }},
		{[]string{"-t", "1m30s", "-s2", "u"}, []string{"u"}, func(o *options) bool { return o.cfg.Duration == 90*time.Second && o.cfg.Timeout == 2*time.Second }},
		{[]string{"-n", "200k", "u"}, []string{"u"}, func(o *options) bool { return o.cfg.Requests == 200000 }},
		{[]string{"--", "-u"}, []string{"-u"}, func(o *options) bool { return true }},
		{[]string{"u", "-n", "5"}, []string{"u", "-n", "5"}, func(o *options) bool { return o.cfg.Requests == 1 }},
		{[]string{"-R", "50/1s", "u"}, []string{"u"}, func(o *options) bool { return o.cfg.Rate.PerSecond() == 50 }},
	} {
		o := defaultOptions()
		rest, err := getopt.Parse(tc.argv, abSpecs, &o)
		if err != nil || strings.Join(rest, " ") != strings.Join(tc.rest, " ") || !tc.chk(&o) {
			t.Errorf("%q: rest %q err %v options %+v", tc.argv, rest, err, o)
		}
	}
}

func TestRedactArgs(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"-A", "user:pw", "http://h/"}, []string{"-A", "***", "http://h/"}},
		{[]string{"-Auser:pw", "-kc5", "http://h/"}, []string{"-A***", "-kc5", "http://h/"}},
		{[]string{"-H", "Authorization: Bearer tok", "http://h/"}, []string{"-H", "Authorization: Bearer ***", "http://h/"}},
		{[]string{"--header=Cookie: a=b", "http://h/"}, []string{"--header=Cookie: ***", "http://h/"}},
		{[]string{"-C", "s=1", "-P", "p:q", "http://u:pw@h/"}, []string{"-C", "***", "-P", "***", "http://u:xxxxx@h/"}},
		{[]string{"-H", "X-Trace: 1", "http://h/"}, []string{"-H", "X-Trace: 1", "http://h/"}},
	} {
		if got := redactArgs(tc.in); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzParseArgs: any argv parses or fails with a usage error; it never
// panics, and no secret value survives redaction.
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{"-kc10\x00-n100\x00http://h/", "-H\x00A: b\x00u", "--json=x\x00-A\x00u:p", "-\x00--\x00-n", "-Zx\x00-c\x00-1", "--rate\x0050/1s", "-B-A\xff\xff:p\x00-A\xff\xff:p"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		argv := strings.Split(s, "\x00")
		o := defaultOptions()
		if _, err := getopt.Parse(argv, abSpecs, &o); err != nil {
			if _, ok := err.(*getopt.Error); !ok {
				t.Fatalf("%q: error %v is not a usage error", argv, err)
			}
		}
		// Read back, the redacted command line must not give -A's value:
		// a substring test is not enough, since another option's value may
		// hold the same text (-B-Au:p -Au:p), which is not a credential.
		red := redactArgs(argv)
		o2 := defaultOptions()
		if _, err := getopt.Parse(red, abSpecs, &o2); err == nil && o.cfg.BasicAuth != "" && o.cfg.BasicAuth != "***" && o2.cfg.BasicAuth == o.cfg.BasicAuth {
			t.Fatalf("%q: -A value survived redaction: %q", argv, red)
		}
	})
}
