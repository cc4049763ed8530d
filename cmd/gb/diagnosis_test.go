package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// TestDiagnosisKnownCauses runs the gb binary with --profile against
// gb's server (in this process, so the profiles hold the server alone)
// on endpoints slow for one known reason each, and checks that the
// diagnosis names that reason first, in the JSON and on the report's
// first diagnosis line. The causes dominate by construction (work in one
// user function; a lock held across a sleep under -c 8; megabytes of
// garbage per request; thousands of write(2) calls per request; a
// goroutine kept per request; goroutines that outnumber the Ps started
// per request), not by speed, and each load is a few hundred requests.
// Every load also takes the execution trace, so that the scheduling
// analysis runs beside each cause and must not take the first line from
// it; its numbers are checked for presence and order, never size.
func TestDiagnosisKnownCauses(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	for _, tc := range []struct {
		name, path, kinds, c, n string
		bound, names            string // Diagnosis.Bound, and what the verdict names
	}{
		{"cpu", "/slow/cpu?n=2000000", "cpu,allocs,trace", "2", "200", "user_cpu", "testserver.burn"},
		{"mutex", "/slow/mutex?d=2ms", "cpu,mutex,trace", "8", "160", "contention", "testserver.holdLock"},
		{"garbage", "/slow/garbage?n=20000", "cpu,allocs,trace", "2", "200", "gc", "testserver.makeGarbage"},
		{"syscall", "/slow/syscall?n=5000", "cpu,trace", "2", "200", "syscalls", "testserver.writeBytes"},
		{"leak", "/slow/leak", "cpu,goroutine,trace", "2", "400", "goroutine_leak", "testserver.leakUntil"},
		{"starved", "/slow/starved?n=1000000", "cpu,trace", "16", "400", "scheduling", "testserver.spin"},
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
			if tc.bound == "gc" && (d.GC == nil || d.GC.CyclesPer1000 <= 0 || d.GC.MaxPause <= 0 || len(d.GC.Sites) == 0) {
				t.Errorf("gc %+v", d.GC)
			}
			checkScheduling(t, d.Scheduling, sec, tc.bound == "scheduling")
			t.Logf("\n%s", sec)
		})
	}
}

// checkScheduling checks the trace's analysis for what any load
// guarantees: waits measured and ordered, shares within 0..1, the
// section's lines; starved, that requests waited for a P behind the
// server's other goroutines.
func checkScheduling(t *testing.T, s *stats.DiagnosisScheduling, sec string, starved bool) {
	t.Helper()
	if s == nil {
		t.Fatalf("no scheduling analysis:\n%s", sec)
	}
	if s.Traced <= 0 || s.Procs <= 0 || s.Events == 0 || s.Waits == 0 || s.Truncated != "" {
		t.Errorf("scheduling %+v", *s)
	}
	if s.WaitP50 <= 0 || s.WaitP99 < s.WaitP50 || s.WaitMax < s.WaitP99 || s.STWTotal < s.STWMax {
		t.Errorf("waits p50 %v p99 %v max %v; stop-the-world total %v longest %v", s.WaitP50, s.WaitP99, s.WaitMax, s.STWTotal, s.STWMax)
	}
	if s.RequestWait < s.Starving || s.Starving < 0 {
		t.Errorf("request wait %v, starving %v", s.RequestWait, s.Starving)
	}
	for _, v := range []float64{s.ServingShare, s.OtherShare, s.Busy, s.IdleWhileRunnable, s.Starved} {
		if v < 0 || v > 1 || s.ServingShare+s.OtherShare > 1 {
			t.Errorf("a share out of 0..1: %+v", *s)
		}
	}
	for _, key := range []string{"\n  sched wait:", "\n  sched ps:", "\n  stop the world:"} {
		if !strings.Contains(sec, key) {
			t.Errorf("no %q line", key)
		}
	}
	if starved && (s.Starving <= 0 || s.OtherShare <= s.ServingShare || s.Starved <= 0) {
		t.Errorf("starved: request wait %v, starving %v, other share %v, serving share %v, all Ps busy %v",
			s.RequestWait, s.Starving, s.OtherShare, s.ServingShare, s.Starved)
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

// TestDiagnosisWithoutExpvar: a server with net/http/pprof but no expvar
// gets the allocations from the allocs profile, and a missing line
// saying how to add exact counts.
func TestDiagnosisWithoutExpvar(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "Hello, World!") })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	js := filepath.Join(t.TempDir(), "run.json")
	r := gbProcess(t, "-q", "-k", "-c", "2", "-n", "200", "--profile", "--profile-dir", filepath.Join(t.TempDir(), "p"),
		"--json", js, srv.URL+"/hello")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	d := readResult(t, js).Profile.Diagnosis
	if d == nil || d.GC == nil || d.GC.Source != "allocs_profile" ||
		!slices.ContainsFunc(d.Missing, func(m string) bool { return strings.Contains(m, `import _ "expvar"`) }) {
		t.Errorf("diagnosis %+v", d)
	}
	if !strings.Contains(r.stdout, `  missing:              memstats: no expvar: add import _ "expvar"`) {
		t.Errorf("no missing line:\n%s", r.stdout)
	}
}
