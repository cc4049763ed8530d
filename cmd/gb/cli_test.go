package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// TestBadInput runs gb with bad command lines: each gives its exit code and
// one clear line on stderr (-h: the usage), never a panic or a stack trace,
// and nothing is sent. testdata/bad-input.golden holds every case's exit
// code and whole stderr.
func TestBadInput(t *testing.T) {
	var all strings.Builder
	dir := t.TempDir()
	notRegular := dir // a directory as -p file
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{}, 22, "gb: wrong number of arguments"},
		{[]string{"--order", "sideways", "http://127.0.0.1:1/", "http://127.0.0.1:2/"}, 22, `gb: invalid value "sideways" for --order: want round-robin or random`},
		{[]string{"http://127.0.0.1:1/", "-n", "10", "extra"}, 22, "gb: wrong number of arguments"},
		{[]string{"-j", "http://127.0.0.1:1/"}, 22, "gb: illegal option -- j"},
		{[]string{"-n"}, 22, "gb: option requires an argument -- n"},
		{[]string{"--bogus", "http://127.0.0.1:1/"}, 22, "gb: unknown option --bogus"},
		{[]string{"-h"}, 22, "Usage: gb [options] [http[s]://]hostname[:port]/path"},
		{[]string{"-n", "abc", "http://127.0.0.1:1/"}, 22, `gb: invalid value "abc" for -n`},
		{[]string{"-n", "0", "http://127.0.0.1:1/"}, 22, "gb: Invalid number of requests"},
		{[]string{"-R", "100", "http://127.0.0.1:1/"}, 22, "gb: -R needs -n or -t: gb never runs unbounded"},
		{[]string{"http://127.0.0.1:1/", "--rate", "5/1s"}, 22, "gb: -R needs -n or -t: gb never runs unbounded"},
		{[]string{"-R", "1/10s", "-t", "2", "http://127.0.0.1:1/"}, 22, "gb: -R 0.1 sends no request within -t 2s"},
		{[]string{"-c", "0", "http://127.0.0.1:1/"}, 22, "gb: Invalid Concurrency [Range 1..1000000]"},
		{[]string{"-c", "1000001", "-n", "2000000", "http://127.0.0.1:1/"}, 22, "gb: Invalid Concurrency [Range 1..1000000]"},
		{[]string{"-B", "127.0.0.9-127.0.0.1", "http://127.0.0.1:1/"}, 22, `gb: invalid -B "127.0.0.9-127.0.0.1": the range ends before it starts`},
		{[]string{"-c", "10", "-n", "5", "http://127.0.0.1:1/"}, 22, "gb: Cannot use concurrency level greater than total number of requests"},
		{[]string{"-t", "-3", "http://127.0.0.1:1/"}, 22, `gb: invalid value "-3" for -t`},
		{[]string{"-s", "soon", "http://127.0.0.1:1/"}, 22, `gb: invalid value "soon" for -s`},
		{[]string{"http://"}, 22, "gb: invalid URL"},
		{[]string{"ftp://127.0.0.1/"}, 22, `gb: unsupported URL scheme "ftp"`},
		{[]string{"http://127.0.0.1:99999/"}, 22, `gb: invalid port "99999" in URL`},
		{[]string{"-H", "NoColon", "http://127.0.0.1:1/"}, 22, `gb: invalid header "NoColon": expected "Name: value"`},
		{[]string{"-H", "X-A: b\r\nX-B: c", "http://127.0.0.1:1/"}, 22, "gb: invalid header: X-A value contains CR, LF or NUL"},
		{[]string{"-i", "-p", "/dev/null", "http://127.0.0.1:1/"}, 22, "gb: Cannot mix POST with other methods"},
		{[]string{"-p", "/nonexistent/body", "http://127.0.0.1:1/"}, 1, "gb: Could not open POST data file (/nonexistent/body): no such file or directory"},
		{[]string{"-p", notRegular, "http://127.0.0.1:1/"}, 1, "is not a regular file"},
		{[]string{"-g", "/nonexistent/dir/out.tsv", "http://127.0.0.1:1/"}, 1, "gb: cannot write -g /nonexistent/dir/out.tsv"},
		{[]string{"-f", "SSL3", "https://127.0.0.1:1/"}, 22, "gb: -f SSL3: Go does not speak SSL 2 or 3"},
		{[]string{"-Z", "RC4-MD5", "https://127.0.0.1:1/"}, 22, `gb: -Z: unknown cipher suite "RC4-MD5"`},
		{[]string{"http://nx.invalid/"}, 1, `gb: cannot resolve host "nx.invalid"`},
		{[]string{"--engine=fast", "http://127.0.0.1:1/"}, 22, `gb: invalid value "fast" for --engine: want auto, loop, loop-tasks or goroutine`},
		{[]string{"--live=sometimes", "http://127.0.0.1:1/"}, 22, `gb: invalid value "sometimes" for --live: want auto, on or off`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := runGB(t, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
			first, _, _ := strings.Cut(r.stderr, "\n")
			if !strings.Contains(first, tc.msg) {
				t.Errorf("first stderr line %q, want it to contain %q", first, tc.msg)
			}
			if stackTrace.MatchString(r.stderr) || strings.Contains(r.stderr, "panic:") {
				t.Errorf("stack trace on stderr:\n%s", r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout not empty: %q", r.stdout)
			}
			transcript(&all, tc.args, r, dir)
		})
	}
	golden(t, "bad-input", all.String())
}

// transcript appends a run's command line, exit code and stderr to a
// golden file's text, with dir (unless "") written as $DIR and the
// resolver's own words (which differ between machines) left out.
func transcript(b *strings.Builder, args []string, r result, dir string) {
	text := fmt.Sprintf("$ gb %q\nexit %d\n%s\n", args, r.code, resolverError.ReplaceAllString(r.stderr, "$1: ..."))
	if dir != "" {
		text = strings.ReplaceAll(text, dir, "$DIR")
	}
	b.WriteString(text)
}

// resolverError matches a failed lookup's message after the host name.
var resolverError = regexp.MustCompile(`(cannot resolve host "[^"]*"): .*`)

// stackTrace matches a goroutine dump's header line ("goroutine 1 [running]:").
var stackTrace = regexp.MustCompile(`goroutine \d+ \[`)

// TestClusteredFlagsAndHeaders checks ab's getopt forms: clusters,
// attached values, repeated -H with commas and colons kept whole.
func TestClusteredFlagsAndHeaders(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	js := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, "-kc5", "-n20", "-H", "Accept: a, b", "-H", "X-Token: Bearer a:b", "-A", "user:secret",
		"-C", "session=abc", "--json="+js, srv.URL()+"/hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if field(t, r.stdout, "Concurrency Level") != "5" || number(t, r.stdout, "Complete requests") != 20 ||
		number(t, r.stdout, "Keep-Alive requests") != 20 {
		t.Errorf("report:\n%s", r.stdout)
	}
	b, _ := os.ReadFile(js)
	var raw struct{ Command []string }
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	cmdline := strings.Join(raw.Command, " ")
	if strings.Contains(cmdline, "secret") || strings.Contains(cmdline, "session=abc") || !strings.Contains(cmdline, "Accept: a, b") {
		t.Errorf("command line in JSON not redacted as expected: %q", cmdline)
	}
}

// TestOutputFiles writes -e, -g and --json and checks their shapes.
func TestOutputFiles(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	csv, tsv, js := filepath.Join(dir, "p.csv"), filepath.Join(dir, "g.tsv"), filepath.Join(dir, "r.json")
	r := runGB(t, "-k", "-c", "3", "-n", "200", "-q", "-e", csv, "-g", tsv, "--json", js, srv.URL()+"/hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	golden(t, "report-keepalive", maskReport(r.stdout, srv.URL()))
	c, _ := os.ReadFile(csv)
	if lines := strings.Split(strings.TrimSpace(string(c)), "\n"); lines[0] != "Percentage served,Time in ms" || len(lines) != 102 {
		t.Errorf("-e file: %d lines, header %q", len(lines), lines[0])
	}
	g, _ := os.ReadFile(tsv)
	lines := strings.Split(strings.TrimSpace(string(g)), "\n")
	if lines[0] != "starttime\tseconds\tctime\tdtime\tttime\twait" || len(lines) != 201 {
		t.Errorf("-g file: %d lines, header %q", len(lines), lines[0])
	}
	if f := strings.Fields(lines[1]); len(f) != 10 {
		t.Errorf("-g row has %d whitespace fields, want 10 (5-token date): %q", len(f), lines[1])
	}
	for _, p := range []string{csv, tsv, js} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v err %v, want 0600", p, fi.Mode(), err)
		}
	}
	if !strings.Contains(r.stdout, "..done") || r.stderr != "" {
		t.Errorf("-q: stdout %q... stderr %q", r.stdout[:min(200, len(r.stdout))], r.stderr)
	}
	res := readResult(t, js)
	if res.Version != stats.FormatVersion || res.GBVersion != gbVersion(t) || res.Complete() != 200 {
		t.Errorf("json: version %d gb %q complete %d", res.Version, res.GBVersion, res.Complete())
	}
}

func TestProgressLinesAndVersion(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	r := runGB(t, "-k", "-c", "2", "-n", "1000", srv.URL()+"/hello")
	want := "Completed 100 requests\n"
	if !strings.HasPrefix(r.stderr, want) || !strings.HasSuffix(r.stderr, "Completed 1000 requests\nFinished 1000 requests\n") {
		t.Errorf("progress on stderr:\n%s", r.stderr)
	}
	v := runGB(t, "version")
	if v.code != 0 || v.stderr != "" {
		t.Errorf("version: exit %d, stderr %q", v.code, v.stderr)
	}
	golden(t, "version", v.stdout)
	v = runGB(t, "-V")
	golden(t, "version-V", v.stdout)
	if v.code != 0 || !strings.HasPrefix(v.stdout, "This is gb, Version "+gbVersion(t)) {
		t.Errorf("-V: %d %q", v.code, v.stdout)
	}
}

// gbVersion returns the version that gb version prints after "gb ".
func gbVersion(t *testing.T) string {
	t.Helper()
	r := runGB(t, "version")
	v, ok := strings.CutPrefix(r.stdout, "gb ")
	if r.code != 0 || !ok || strings.Count(v, "\n") != 1 || !strings.HasSuffix(v, "\n") {
		t.Fatalf("gb version: exit %d, %q", r.code, r.stdout)
	}
	return strings.TrimSuffix(v, "\n")
}

// TestReportGolden checks the report's lines for non-2xx responses and for
// failed requests against testdata/report-*.golden, timings masked.
func TestReportGolden(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	for _, tc := range []struct {
		name string
		args []string
		base string
		code int // 1: no request got a response
	}{
		{"report-non2xx", []string{"-c", "2", "-n", "20", srv.URL() + "/status?s=503"}, srv.URL(), 0},
		{"report-failed", []string{"-k", "-c", "2", "-n", "20", srv.FaultURL() + "/reset?body=200&size=1000"}, srv.FaultURL(), 1},
		{"report-post", []string{"-k", "-c", "2", "-n", "20", "-T", "text/plain", "-p", tempFile(t, "body", "x=1"), srv.URL() + "/ok"}, srv.URL(), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runGB(t, tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			golden(t, tc.name, maskReport(r.stdout, tc.base))
		})
	}
}

// TestServeUsage: gb serve's usage and bad options, against
// testdata/serve-usage.golden.
func TestServeUsage(t *testing.T) {
	var all strings.Builder
	for _, args := range [][]string{{"serve", "-h"}, {"serve", "--bogus"}, {"serve", "--addr"}, {"serve", "--addr", "10.0.0.1:80"}, {"serve", "--addr", "nocolon"}, {"serve", "--unix"}, {"serve", "--unix="}, {"serve", "--tl"}, {"serve", "stray"}} {
		r := runGB(t, args...)
		if r.code != 22 || r.stdout != "" {
			t.Errorf("gb %q: exit %d, stdout %q", args, r.code, r.stdout)
		}
		transcript(&all, args, r, "")
	}
	golden(t, "serve-usage", all.String())
}

// tempFile writes content to a new file name in a temporary directory
// and returns its path.
func tempFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
