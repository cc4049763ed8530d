package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// TestDiagnosisKnownCauses runs the gb binary with --profile against
// gb's server (in this process, so the profiles hold the server alone)
// on endpoints slow for one known reason each, and checks that the
// diagnosis names that reason first, in the JSON and on the report's
// first diagnosis line. The causes dominate by construction (work in one
// user function; a lock held across a sleep under -c 8; megabytes of
// garbage per request; thousands of write(2) calls per request; a
// goroutine kept per request), not by speed, and
// each load is a few hundred requests.
func TestDiagnosisKnownCauses(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	for _, tc := range []struct {
		name, path, kinds, c, n string
		bound, names            string // Diagnosis.Bound, and what the verdict names
	}{
		{"cpu", "/slow/cpu?n=2000000", "cpu,allocs", "2", "200", "user_cpu", "testserver.burn"},
		{"mutex", "/slow/mutex?d=2ms", "cpu,mutex", "8", "160", "contention", "testserver.holdLock"},
		{"garbage", "/slow/garbage?n=20000", "cpu,allocs", "2", "200", "gc", "testserver.makeGarbage"},
		{"syscall", "/slow/syscall?n=5000", "cpu", "2", "200", "syscalls", "testserver.writeBytes"},
		{"leak", "/slow/leak", "cpu,goroutine", "2", "400", "goroutine_leak", "testserver.leakUntil"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "profiles")
			js := filepath.Join(t.TempDir(), "run.json")
			r := gbProcess(t, "-q", "-k", "-c", tc.c, "-n", tc.n, "--profile="+tc.kinds,
				"--profile-dir", dir, "--json", js, srv.URL()+tc.path)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			validateSchema(t, js)
			res := readResult(t, js)
			if res.Profile == nil || res.Profile.Diagnosis == nil {
				t.Fatalf("no diagnosis in the JSON:\n%s", r.stdout)
			}
			d := res.Profile.Diagnosis
			_, sec, ok := strings.Cut(r.stdout, "\ngb diagnosis:\n")
			if !ok {
				t.Fatalf("no diagnosis section:\n%s", r.stdout)
			}
			first, _, _ := strings.Cut(sec, "\n")
			if d.Bound != tc.bound || !strings.Contains(d.Verdict, tc.names) || !strings.Contains(first, tc.names) {
				t.Errorf("bound %q, verdict %q; want %s naming %s\n%s", d.Bound, d.Verdict, tc.bound, tc.names, sec)
			}
			t.Logf("\n%s", sec)
		})
	}
}

// TestDiagnosisWithoutPprof: a server without pprof gets one line saying
// what is missing and how to add it, and no diagnosis section (no guess).
func TestDiagnosisWithoutPprof(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{NoPprof: true})
	r := gbProcess(t, "-q", "-k", "-c", "2", "-n", "100", "--profile", "--profile-dir", filepath.Join(t.TempDir(), "p"), srv.URL()+"/hello")
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if r.code != 0 || len(lines) != 1 || !strings.Contains(lines[0], `import _ "net/http/pprof"`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "gb diagnosis:") {
		t.Errorf("a diagnosis without pprof:\n%s", r.stdout)
	}
}
