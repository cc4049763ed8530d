package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
)

// TestReportHTMLDiagnosis runs the gb binary with --profile and --html
// against gb's server's /slow/mutex, closes the server, and re-renders
// the saved JSON with gb report --html: the page's diagnosis section (the
// verdict naming the lock, the wait, the mutex profile to open next) is
// the live page's, byte for byte: it comes from the JSON, with nothing
// to fetch from the server that is gone.
func TestReportHTMLDiagnosis(t *testing.T) {
	srv, err := testserver.Start(testserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	js, live, again := filepath.Join(dir, "run.json"), filepath.Join(dir, "live.html"), filepath.Join(dir, "again.html")
	r := gbProcess(t, "-q", "-k", "-c", "8", "-n", "160", "--profile=cpu,mutex,goroutine", "--profile-dir", filepath.Join(dir, "p"),
		"--json", js, "--html", live, srv.URL()+"/slow/mutex?d=2ms")
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	rep := gbProcess(t, "report", js, "--html", again)
	if rep.code != 0 || rep.stderr != "" {
		t.Fatalf("gb report: exit %d, stderr %q", rep.code, rep.stderr)
	}
	section := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return regexp.MustCompile(`(?s)<section id="diagnosis">.*?</section>\n`).FindString(string(b))
	}
	sec := section(live)
	if sec == "" || sec != section(again) {
		t.Fatalf("the re-rendered diagnosis differs from the live one:\nlive:\n%s\nagain:\n%s", sec, section(again))
	}
	for _, want := range []string{`<p class="headline">lock and channel waits: `, "testserver.holdLock", "<td class=\"text\">wait mutex</td>",
		"<td class=\"text\">mutex</td><td class=\"text\">go tool pprof -http=127.0.0.1:0 "} {
		if !strings.Contains(sec, want) {
			t.Errorf("the section lacks %q:\n%s", want, sec)
		}
	}
}
