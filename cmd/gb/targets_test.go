package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// targetLine matches a "target N" line of gb's section.
var targetLine = regexp.MustCompile(`(?m)^  target \d+: +requests=(\d+) +rps=\S+ +share=(\S+) +p50=\S+ +p99=\S+ +failed=(\d+) +non2xx=(\d+) +(\S+) (\S+)$`)

// TestTargetsOnTheCommandLine: two URLs and a --targets file make one
// load of three targets: -m applies to the command line's URLs, the file's
// target keeps its own method, -H goes to all; options may follow the
// URLs. The report's gb section has the targets table, the JSON the
// targets, and gb report renders the same table from the JSON.
func TestTargetsOnTheCommandLine(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	body := filepath.Join(dir, "body.json")
	if err := os.WriteFile(body, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	file := tempFile(t, "targets.txt", fmt.Sprintf("POST %s/ok?status=201\nContent-Type: application/json\n@%s\n", srv.URL(), body))
	js := filepath.Join(dir, "out.json")
	r := runGB(t, "-q", "-k", "-m", "PUT", "-H", "X-All: 1", srv.URL()+"/hello", srv.URL()+"/status?s=503",
		"-n", "300", "-c", "3", "--targets", file, "--json", js)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	rows := targetLine.FindAllStringSubmatch(r.stdout, -1)
	want := [][]string{{"100", "0.333", "0", "0", "PUT", srv.URL() + "/hello"},
		{"100", "0.333", "0", "100", "PUT", srv.URL() + "/status?s=503"},
		{"100", "0.333", "0", "0", "POST", srv.URL() + "/ok?status=201"}}
	if len(rows) != 3 || !strings.Contains(r.stdout, "  targets:              3, round-robin\n") {
		t.Fatalf("gb section:\n%s", r.stdout)
	}
	for i, row := range rows {
		if strings.Join(row[1:], " ") != strings.Join(want[i], " ") {
			t.Errorf("target %d: %q, want %q", i+1, row[1:], want[i])
		}
	}
	res := readResult(t, js)
	if len(res.Targets) != 3 || res.Targets[2].BytesOut <= res.Targets[0].BytesOut {
		t.Errorf("JSON targets %+v", res.Targets)
	}
	again := runGB(t, "report", js)
	if got := targetLine.FindAllString(again.stdout, -1); strings.Join(got, "\n") != strings.Join(targetLine.FindAllString(r.stdout, -1), "\n") {
		t.Errorf("gb report's targets:\n%s\nthe run's:\n%s", strings.Join(got, "\n"), r.stdout)
	}
	if l := srv.Ledger(); l.HTTP.Requests != 300 {
		t.Errorf("server saw %d requests", l.HTTP.Requests)
	}
}

// TestTargetsBadInput: a malformed targets file, a missing body file or
// targets file, and an unknown order are each one line on stderr and
// exit 22, before any load.
func TestTargetsBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := tempFile(t, "targets.txt", "GET http://127.0.0.1:1/a\n\nGETT\n")
	nobody := tempFile(t, "targets.txt", "# a body that is not there\nPOST http://127.0.0.1:1/a\n@"+dir+"/missing.json\n")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--targets", bad}, "gb: " + bad + `:3: want "METHOD URL", got "GETT"`},
		{[]string{"--targets", nobody, "http://127.0.0.1:1/"}, "gb: " + nobody + `:3: cannot read body file "` + dir + `/missing.json": no such file or directory`},
		{[]string{"--targets", dir + "/none.txt"}, "gb: cannot read targets file " + dir + "/none.txt: no such file or directory"},
		{[]string{"-n", "2", "--pipeline", "2", "http://127.0.0.1:1/a", "http://127.0.0.1:1/b"}, "gb: --pipeline with several targets is not supported: pipeline one URL at a time"},
		{[]string{"http://127.0.0.1:1/a", "http://"}, `gb: target 2: invalid URL "http://"`},
	} {
		r := runGB(t, tc.args...)
		if r.code != 22 || r.stderr != tc.msg+"\n" || r.stdout != "" {
			t.Errorf("gb %q: exit %d, stderr %q; want 22 and %q", tc.args, r.code, r.stderr, tc.msg)
		}
	}
}

// gbStdin runs the gb binary with args, stdin written by gen.
func gbStdin(t *testing.T, gen func(w io.Writer), args ...string) result {
	t.Helper()
	skipUnderRace(t)
	cmd := exec.Command(gbBin(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer in.Close()
		bw := bufio.NewWriter(in)
		gen(bw)
		_ = bw.Flush()
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(runLimit):
		_ = cmd.Process.Kill()
		t.Fatalf("gb %q did not finish in %v", args, runLimit)
	}
	return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
}

// TestLazyTargetsCommandLine: --lazy --targets - reads vegeta's JSON
// targets from a pipe as the load goes: its end ends the load (exit 0,
// every line sent once, the report's targets table one row per URL
// template); a bad line mid-stream stops the load with one line naming
// stdin and the line, exit 1, and the report of what ran. A bad line in
// a JSON file read whole is exit 22 before any load, and so are an empty
// stream and --lazy with a URL.
func TestLazyTargetsCommandLine(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	lines := func(n, bad int) func(io.Writer) {
		return func(w io.Writer) {
			for i := range n {
				if i == bad {
					fmt.Fprintln(w, `{"method":"GET","url":`)
					continue
				}
				fmt.Fprintf(w, `{"method":"POST","url":"%s/ok?id=%d","body":"e30="}`+"\n", srv.FaultURL(), i)
			}
		}
	}
	r := gbStdin(t, lines(300, -1), "-k", "-c", "2", "--lazy", "--targets", "-", "--targets-format", "json")
	if r.code != 0 || !strings.Contains(r.stdout, "  targets:              1, stream\n") {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if rows := targetLine.FindAllStringSubmatch(r.stdout, -1); len(rows) != 1 || rows[0][1] != "300" || rows[0][6] != srv.FaultURL()+"/ok?*" {
		t.Errorf("targets table %q", rows)
	}
	if l := srv.Ledger(); l.Fault.Requests != 300 || len(l.Exchanges) != 300 || l.Exchanges[299].Method != "POST" {
		t.Errorf("server saw %d requests", l.Fault.Requests)
	}
	r = gbStdin(t, lines(300, 100), "-k", "-c", "1", "--lazy", "--targets", "-", "--targets-format", "json")
	if want := "Test aborted: stdin:101: want a JSON object"; r.code != 1 || !strings.Contains(r.stderr, want) ||
		!strings.Contains(r.stdout, "Complete requests:      100\n") {
		t.Errorf("bad line mid-stream: exit %d, want 1 and %q:\n%s\n%s", r.code, want, r.stdout, r.stderr)
	}
	if r := gbStdin(t, func(io.Writer) {}, "--lazy", "--targets", "-"); r.code != 22 || r.stderr != "gb: stdin: no targets (want \"METHOD URL\" lines)\n" {
		t.Errorf("empty stream: exit %d, stderr %q", r.code, r.stderr)
	}
	file := tempFile(t, "targets.json", `{"method":"GET","url":"http://127.0.0.1:1/"}`+"\n"+`{"url":"http://127.0.0.1:1/"}`+"\n")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--targets", file, "--targets-format", "json"}, "gb: " + file + `:2: want a "method"`},
		{[]string{"--lazy", "--targets", file, "http://127.0.0.1:1/"}, "gb: --lazy reads its targets from --targets alone (no URL)"},
		{[]string{"--targets", file, "--targets-format", "yaml"}, ""},
	} {
		r := runGB(t, tc.args...)
		if r.code != 22 || tc.msg != "" && r.stderr != tc.msg+"\n" || r.stdout != "" {
			t.Errorf("gb %q: exit %d, stderr %q; want 22 and %q", tc.args, r.code, r.stderr, tc.msg)
		}
	}
}
