package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSeriesOnlyWhenRead: a run keeps its time series (Config.Interval 0,
// one second, or the --interval given) only when something it shows or
// writes reads it: the live panel, the --web page, the Prometheus
// endpoint, --json, --html, --hlog or a script; a plain ab-style run
// (stderr not a terminal) keeps none
// (Interval -1), so its memory does not grow with its length.
func TestSeriesOnlyWhenRead(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	if err := os.WriteFile(script, []byte("request = function() return wrk.format() end\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want time.Duration
	}{
		{nil, -1},
		{[]string{"-g", filepath.Join(dir, "g.tsv"), "-e", filepath.Join(dir, "e.csv"), "--hgrm", filepath.Join(dir, "h.hgrm")}, -1},
		{[]string{"--json", filepath.Join(dir, "r.json")}, 0},
		{[]string{"--json", "-"}, 0},
		{[]string{"--html", filepath.Join(dir, "r.html")}, 0},
		{[]string{"--hlog", filepath.Join(dir, "r.hlog")}, 0},
		{[]string{"--script", script}, 0},
		{[]string{"--live", "off", "--json", filepath.Join(dir, "r.json")}, 0},
		{[]string{"--live", "on"}, 0},
		{[]string{"--web", "127.0.0.1:0"}, 0},
		{[]string{"--metrics-addr", "127.0.0.1:0"}, 0},
		{[]string{"--interval", "2s"}, 2 * time.Second},
	} {
		o := defaultOptions()
		args := append([]string{"-n", "10"}, c.args...)
		rest, err := parseAll(append(args, "http://127.0.0.1:9/"), abSpecs, &o)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		p, err := o.plan(o.setURLs(rest), args, io.Discard)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if got := p.Config().Interval; got != c.want {
			t.Errorf("%q: Config.Interval = %v, want %v", args, got, c.want)
		}
		p.Close()
	}
}
