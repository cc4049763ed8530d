package probe

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// inputLimit bounds one gb report, compare or merge of a hostile file: it
// reads a file, so only a hang (a read that never ends, a loop) takes this
// long, whatever else runs on the machine.
const inputLimit = 60 * time.Second

var (
	gbOnce sync.Once
	gbPath string
	gbErr  error
)

// gbBinary builds gb once for the input suite, into a directory that
// lives as long as the test binary's temporary files.
func gbBinary(t *testing.T) string {
	t.Helper()
	gbOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gb-probe-inputs-")
		if err != nil {
			gbErr = err
			return
		}
		gbPath = filepath.Join(dir, "gb")
		if out, err := exec.Command("go", "build", "-o", gbPath, "github.com/gb-bench/gb/cmd/gb").CombinedOutput(); err != nil {
			gbErr = fmt.Errorf("building gb: %v\n%s", err, out)
		}
	})
	if gbErr != nil {
		t.Fatal(gbErr)
	}
	return gbPath
}

// gbRun runs gb with args, bounded by inputLimit, and returns its exit
// code and output.
func gbRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), inputLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, gbBinary(t), args...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("gb %q still running after %v: killed", args, inputLimit)
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, out.String(), errs.String()
}

// rawControl returns the first control character in s that a terminal
// acts on (C0 but newline, DEL, C1), and false when it has none.
func rawControl(s string) (rune, bool) {
	for _, r := range s {
		if r == utf8.RuneError || (r < ' ' && r != '\n') || (r >= 0x7f && r < 0xa0) {
			return r, true
		}
	}
	return 0, false
}

// results writes the results the cases are made of into dir: a run of
// 20 requests (good.json) and the two shards of another (s0.json,
// s1.json), all against a server that answers 200.
func results(t *testing.T, dir string) (good, s0, s1 string) {
	t.Helper()
	srv, err := Start(func(c *Conn) { c.Serve(ok200) })
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	url := "http://" + srv.Addr() + "/"
	good, s0, s1 = filepath.Join(dir, "good.json"), filepath.Join(dir, "s0.json"), filepath.Join(dir, "s1.json")
	for _, args := range [][]string{
		{"-q", "-k", "-n", "20", "-c", "2", "--json", good, url},
		{"-q", "-k", "-n", "20", "-c", "2", "--shard", "0/2", "--json", s0, url},
		{"-q", "-k", "-n", "20", "-c", "2", "--shard", "1/2", "--json", s1, url},
	} {
		if code, _, errs := gbRun(t, args...); code != 0 {
			t.Fatalf("gb %q: exit %d, %s", args, code, errs)
		}
	}
	return good, s0, s1
}

// inputCase is a hostile input file and what gb must make of it.
type inputCase struct {
	name string
	doc  func(good []byte) []byte // the file, from a good result
	code int                      // exit code of gb report and gb merge of it
	msg  string                   // in the one line of stderr when code != 0
}

// inCounts replaces old by new in the "counts" object of doc (the
// "totals" before it repeat some of its keys).
func inCounts(doc []byte, old, new string) []byte {
	i := bytes.Index(doc, []byte(`"counts"`))
	return append(append([]byte{}, doc[:i]...), bytes.Replace(doc[i:], []byte(old), []byte(new), 1)...)
}

// replace replaces old by new in doc once.
func replace(old, new string) func([]byte) []byte {
	return func(doc []byte) []byte { return bytes.Replace(doc, []byte(old), []byte(new), 1) }
}

// escapes are terminal control sequences as JSON writes them: retitle
// the window, clear the screen, an 8-bit CSI, a bidirectional override.
const escapes = `\u001b]0;owned\u0007\u001b[2J\u009b31m\u202e`

var inputCases = []inputCase{
	{name: "truncated", doc: func(g []byte) []byte { return g[:bytes.Index(g, []byte(`"counts"`))+8] }, code: 1, msg: "not a gb result: unexpected end of JSON input"},
	{name: "deeply nested", doc: func([]byte) []byte {
		return []byte(`{"version":2,"target":` + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + "}")
	}, code: 1, msg: "exceeded max depth"},
	{name: "empty version 2", doc: func([]byte) []byte { return []byte(`{"version":2}`) }, code: 1, msg: "run 1: not a gb result (no target url)"},
	{name: "version 4", doc: replace(`"version": 3`, `"version": 4`), code: 1, msg: "run 1: format version 4 is newer than this gb reads (3)"},
	{name: "version -1", doc: replace(`"version": 3`, `"version": -1`), code: 1, msg: "run 1: not a gb result (format version -1)"},
	{name: "version string", doc: replace(`"version": 3`, `"version": "3"`), code: 1, msg: "not a gb result: json: cannot unmarshal string"},
	{name: "negative count", doc: func(g []byte) []byte { return inCounts(g, `"ok": 20`, `"ok": -20`) }, code: 1,
		msg: "run 1: not a gb result: counts.outcomes.ok is -20, below 0"},
	{name: "negative bytes", doc: func(g []byte) []byte { return inCounts(g, `"bytes_out": `, `"bytes_out": -`) }, code: 1, msg: "counts.bytes_out is -"},
	{name: "sums disagree", doc: func(g []byte) []byte { return inCounts(g, `"dispatched": 20`, `"dispatched": 25`) }, code: 1,
		msg: "run 1: inconsistent result: I2: dispatched 25 != ok+non2xx+failed+aborted 20"},
	{name: "control bytes in a key", doc: func(g []byte) []byte { return inCounts(g, `"200": 20`, `"`+escapes+`": 20`) }, code: 1,
		msg: "not a gb result: json: cannot unmarshal number \\x1b]0;owned\\x07\\x1b[2J\\xc2\\x9b31m\\u202e into Go struct field"},
	{name: "control bytes in strings", doc: func(g []byte) []byte {
		g = bytes.Replace(g, []byte(`"url": "http://127.0.0.1:`), []byte(`"url": "http://`+escapes+`127.0.0.1:`), -1)
		g = bytes.Replace(g, []byte(`"path": "/"`), []byte(`"path": "/`+escapes+`"`), 1)
		g = bytes.Replace(g, []byte(`"command": [`), []byte(`"command": ["`+escapes+`", `), 1)
		return bytes.Replace(g, []byte(`"stopped_by": "count"`), []byte(`"stopped_by": "count", "stop_error": "`+escapes+`"`), 1)
	}, code: 0},
}

// TestHostileInputFiles: gb report, gb compare and gb merge given hostile
// result files (truncated, nested 200000 deep, wrong versions, negative or
// inconsistent counts, terminal escapes in strings and keys, larger than
// any result) refuse each with one line on stderr and exit 1, or render
// it (escapes made '?'), in bounded time; no raw control byte reaches
// stdout or stderr. gb compare of files naming saved profiles that are a
// device, a FIFO or a gzip bomb warns and ends.
func TestHostileInputFiles(t *testing.T) {
	dir := t.TempDir()
	good, s0, s1 := results(t, dir)
	g, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.json")
	f, err := os.Create(huge)
	if err == nil {
		err = errors.Join(f.Truncate(600<<20), f.Close()) // sparse: nothing is written
	}
	if err != nil {
		t.Fatal(err)
	}
	cases := append([]inputCase{}, inputCases...)
	cases = append(cases, inputCase{name: "600 MiB", code: 1, msg: "not a gb result: 600 MiB, larger than 512 MiB"})
	for _, c := range cases {
		path := huge
		if c.doc != nil {
			path = filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".json")
			if err := os.WriteFile(path, c.doc(g), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		for _, args := range [][]string{{"report", path}, {"compare", good, path}, {"merge", path}} {
			code, out, errs := gbRun(t, args...)
			if r, bad := rawControl(out + errs); bad {
				t.Errorf("%s: gb %s: raw control character %U in the output:\n%q\n%q", c.name, args[0], r, out, errs)
			}
			if code != c.code {
				t.Errorf("%s: gb %s: exit %d, want %d; stderr %q", c.name, args[0], code, c.code, errs)
				continue
			}
			if c.code != 0 && (out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "gb "+args[0]+": ") || !strings.Contains(errs, c.msg)) {
				t.Errorf("%s: gb %s: stdout %q, stderr %q; want one line with %q", c.name, args[0], out, errs, c.msg)
			}
		}
	}

	// A ramp (gb report's other input) of such steps.
	for _, c := range []inputCase{inputCases[6], inputCases[len(inputCases)-1]} {
		path := filepath.Join(dir, "ramp.json")
		ramp := `{"version": 2, "gb_version": "` + escapes + `", "command": ["` + escapes + `"], "steps_by": "concurrency", "saturation_step": 0, "steps": [` + string(c.doc(g)) + `]}`
		if err := os.WriteFile(path, []byte(ramp), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errs := gbRun(t, "report", path)
		r, bad := rawControl(out + errs)
		if want := strings.Replace(c.msg, "run 1", "step 1", 1); bad || code != c.code || (code != 0 && (out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, want))) {
			t.Errorf("ramp of %s: exit %d, control %U (%v), stdout %q, stderr %q; want %d, %q", c.name, code, r, bad, out, errs, c.code, want)
		}
	}

	// Saved profiles the file names that are a device, a FIFO and a gzip
	// bomb: gb compare warns that it cannot diff them, and ends.
	fifo := filepath.Join(dir, "cpu.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	bomb := filepath.Join(dir, "cpu.pb.gz")
	if err := os.WriteFile(bomb, gzipZeros(t, 300<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ path, msg string }{{"/dev/zero", "not a regular file"}, {fifo, "not a regular file"}, {bomb, "larger than 256 MiB unpacked"}} {
		prof := fmt.Sprintf(`"server_profile": {"url": "x", "kinds": ["cpu"], "requests": 20, "files": [{"kind": "cpu", "path": %q, "open": ""}]}, "counts"`, p.path)
		path := filepath.Join(dir, "profile.json")
		if err := os.WriteFile(path, bytes.Replace(g, []byte(`"counts"`), []byte(prof), 1), 0o600); err != nil {
			t.Fatal(err)
		}
		code, _, errs := gbRun(t, "compare", path, path)
		if code != 0 || !strings.Contains(errs, "gb compare: warning: no profile diff: ") || !strings.Contains(errs, p.msg) {
			t.Errorf("compare naming the profile %s: exit %d, stderr %q; want a warning with %q", p.path, code, errs, p.msg)
		}
	}

	// Escapes in both shards' strings: the merge is made, its report and
	// the pod log's text before the JSON print none of them raw.
	for i, s := range []string{s0, s1} {
		b, _ := os.ReadFile(s)
		b = inputCases[len(inputCases)-1].doc(b)
		if i == 1 {
			b = append([]byte("\x1b]0;pod log\x07 text report of the pod\n"), b...)
		}
		if err := os.WriteFile(s, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := gbRun(t, "merge", s0, s1)
	if r, bad := rawControl(out + errs); bad || code != 0 || !strings.Contains(out, "Complete requests:      20\n") || !strings.Contains(out, `\x1b]0;owned\x07\x1b[2J\xc2\x9b31m\u202e`) {
		t.Errorf("merge of shards with escapes: exit %d, control %U (%v); stderr %q, stdout:\n%s", code, r, bad, errs, out)
	}
}

// gzipZeros returns n zero bytes gzipped (about n/1000 bytes).
func gzipZeros(t *testing.T, n int) []byte {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	zero := make([]byte, 1<<20)
	for range n / len(zero) {
		if _, err := z.Write(zero); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
