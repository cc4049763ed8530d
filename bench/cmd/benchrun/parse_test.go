package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParsers(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	wrkErrs := strings.Replace(read("wrk-404.txt"), "  Non-2xx or 3xx responses: 43887\n",
		"  Socket errors: connect 1, read 12, write 0, timeout 3\n  Non-2xx or 3xx responses: 43887\n", 1)
	for _, tc := range []struct {
		name  string
		parse func(string) (report, error)
		in    string
		want  report
	}{
		// Every sample answered 404, so every response is also a failure.
		{"gb", parseAB, read("gb-404.txt"), report{rps: 59940.51, requests: 20000, failed: 20000}},
		{"ab", parseAB, read("ab-404.txt"), report{rps: 66653.34, requests: 20000, failed: 20000}},
		{"wrk", parseWrk, read("wrk-404.txt"), report{rps: 43844.82, requests: 43887, failed: 43887}},
		{"wrk socket errors", parseWrk, wrkErrs, report{rps: 43844.82, requests: 43887, failed: 43887 + 16}},
		{"h2load", parseH2load, read("h2load-404.txt"), report{rps: 65539.60, requests: 20000, failed: 20000}},
		{"h2load refused", parseH2load, read("h2load-refused.txt"), report{rps: 0, requests: 0, failed: 10}},
		{"hey", parseHey, read("hey-404.txt"), report{rps: 34712.2464, requests: 20000, failed: 20000}},
	} {
		got, err := tc.parse(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
	if _, err := parseHey(read("hey-refused.txt")); err == nil {
		t.Error("hey with no responses: no error")
	}
	if _, err := parseAB("apr_socket_connect(): Connection refused (111)\n"); err == nil {
		t.Error("ab without a report: no error")
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
