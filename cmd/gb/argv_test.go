package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// TestLongOptionTypo: a mistyped long option names the option meant, in
// one line, exit 22, in gb and in its subcommands.
func TestLongOptionTypo(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--jsn", "x.json", "http://127.0.0.1:1/"}, "gb: unknown option --jsn; did you mean --json?\n"},
		{[]string{"http://127.0.0.1:1/", "--thresold", "p99<1s"}, "gb: unknown option --thresold; did you mean --threshold?\n"},
		{[]string{"--insec", "http://127.0.0.1:1/"}, "gb: unknown option --insec; did you mean --insecure?\n"},
		{[]string{"report", "--htm", "x.html", "r.json"}, "gb report: unknown option --htm; did you mean --html?\n"},
		{[]string{"merge", "a.json", "--outptu", "m.json"}, "gb merge: unknown option --outptu; did you mean --output?\n"},
		{[]string{"compare", "a.json", "b.json", "--tpo", "3"}, "gb compare: unknown option --tpo; did you mean --top?\n"},
		{[]string{"compare", "--max-regresion=p99=+5%", "a.json", "b.json"}, "gb compare: unknown option --max-regresion; did you mean --max-regression?\n"},
	} {
		r := runGB(t, tc.args...)
		if r.code != 22 || r.stderr != tc.want || r.stdout != "" {
			t.Errorf("gb %q: exit %d, stderr %q, want 22 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// TestOptionsAnywhere: gb report and gb merge take their options after
// the files too, as gb URL -n 10 does.
func TestOptionsAnywhere(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	js := filepath.Join(dir, "r.json")
	if r := runGB(t, "-q", "-n", "10", "--json", js, srv.URL()+"/hello"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, tc := range [][]string{
		{"report", js, "--json", filepath.Join(dir, "again.json")},
		{"report", js, "--text", "-e", filepath.Join(dir, "r.csv")},
		{"merge", js, "-o", filepath.Join(dir, "merged.json")},
		{"merge", js, "--output=" + filepath.Join(dir, "merged2.json")},
	} {
		r := runGB(t, tc...)
		if r.code != 0 || !strings.Contains(r.stdout, "Complete requests:") && tc[2] != "--json" {
			t.Errorf("gb %q: exit %d, stderr %q", tc, r.code, r.stderr)
		}
		if out := tc[len(tc)-1]; !strings.HasPrefix(out, "--output=") {
			if _, err := os.Stat(out); err != nil {
				t.Errorf("gb %q: %v", tc, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "merged2.json")); err != nil {
		t.Error(err)
	}
}

// TestSubcommandHelp: --help anywhere in a command's arguments prints its
// usage on stdout and exits 0, gb k8s job --help included; gb help
// version explains gb version.
func TestSubcommandHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"k8s", "job", "--help"}, "Usage: gb k8s job "},
		{[]string{"k8s", "job", "--parallelism", "2", "--help", "http://127.0.0.1:1/"}, "Usage: gb k8s job "},
		{[]string{"merge", "a.json", "--help"}, "Usage: gb merge "},
		{[]string{"report", "r.json", "--help"}, "Usage: gb report "},
		{[]string{"help", "version"}, "Usage: gb version\n"},
		{[]string{"version", "--help"}, "Usage: gb version\n"},
		{[]string{"-n", "10", "http://127.0.0.1:1/", "--help"}, "Usage: gb [options]"},
	} {
		r := runGB(t, tc.args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, tc.want) || r.stderr != "" {
			t.Errorf("gb %q: exit %d, stdout %.60q, stderr %q", tc.args, r.code, r.stdout, r.stderr)
		}
	}
	if r := runGB(t, "help", "version"); strings.Contains(r.stdout+r.stderr, "no command") {
		t.Errorf("gb help version: %s%s", r.stdout, r.stderr)
	}
}

// TestStepSummaryNotRegular: a GITHUB_STEP_SUMMARY that is a named pipe
// (no reader) or a directory is refused with one warning; the run ends
// as usual.
func TestStepSummaryNotRegular(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	fifo := filepath.Join(dir, "summary")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes:", err)
	}
	for _, path := range []string{fifo, dir} {
		t.Setenv("GITHUB_STEP_SUMMARY", path)
		r := runGB(t, "-q", "-n", "10", "--threshold", "p99<60s", srv.URL()+"/hello")
		want := "gb: warning: GITHUB_STEP_SUMMARY: " + path + " is not a regular file\n"
		if r.code != 0 || !strings.Contains(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q", path, r.code, r.stderr)
		}
	}
}

// TestRepeatTooFewForInterval: --repeat below 6 says on its repeat line
// that gb compare cannot give a 95% interval and what --repeat can.
func TestRepeatTooFewForInterval(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	const note = "too few runs for a 95 percent interval; use --repeat 6 or more"
	r := runGB(t, "-q", "--repeat", "2", "-n", "10", srv.URL()+"/hello")
	if r.code != 0 || !strings.Contains(r.stdout, "n=2: "+note) {
		t.Errorf("--repeat 2: exit %d, stdout:\n%s", r.code, r.stdout)
	}
	r = runGB(t, "-q", "--repeat", "6", "-n", "10", srv.URL()+"/hello")
	if r.code != 0 || strings.Contains(r.stdout, note) || !strings.Contains(r.stdout, "repeat:                 6 runs: ") {
		t.Errorf("--repeat 6: exit %d, stdout:\n%s", r.code, r.stdout)
	}
}
