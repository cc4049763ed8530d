package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// profileSection returns the report's server profile section.
func profileSection(t *testing.T, report string) string {
	t.Helper()
	_, sec, ok := strings.Cut(report, "\ngb server profile:\n")
	if !ok {
		t.Fatalf("no server profile section:\n%s", report)
	}
	return sec
}

// TestProfileEndToEnd runs the gb binary with --profile against gb's
// server (in this process, so the profile holds the server alone): the
// slow /leftpad shows in the CPU and allocs tops with a non-zero
// allocation per request; /bytes/1024 does not.
func TestProfileEndToEnd(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	for _, tc := range []struct {
		name, path string
		leftpad    bool
	}{
		// bytes first: the allocs profile of the server (this process) may
		// still publish an earlier run's allocations after a GC cycle
		{"bytes", "/bytes/1024", false},
		{"leftpad", "/leftpad?str=x&len=2000&chr=0", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "profiles")
			js := filepath.Join(t.TempDir(), "run.json")
			r := gbProcess(t, "-q", "-k", "-c", "4", "-n", "1000000", "-t", "1.5s", "--profile=cpu,allocs,trace",
				"--profile-dir", dir, "--json", js, srv.URL()+tc.path)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			sec := profileSection(t, r.stdout)
			if got := strings.Contains(sec, "testserver.leftpad"); got != tc.leftpad {
				t.Errorf("leftpad in the section = %v, want %v:\n%s", got, tc.leftpad, sec)
			}
			m := regexp.MustCompile(`per request: +allocated=(\d+)B objects=`).FindStringSubmatch(sec)
			if m == nil {
				t.Fatalf("no allocation per request:\n%s", sec)
			}
			if n, _ := strconv.ParseInt(m[1], 10, 64); n <= 0 || (tc.leftpad && n < 1<<20) {
				t.Errorf("allocated %d B per request", n)
			}
			for _, want := range []string{"cpu:", "cores;", "runtime:", "cpu by flat:", "cpu by cum:", "alloc by flat:",
				"go tool pprof -top " + dir + "/cpu.pb.gz", "go tool trace " + dir + "/trace.out"} {
				if !strings.Contains(sec, want) {
					t.Errorf("section lacks %q:\n%s", want, sec)
				}
			}
			res := readResult(t, js)
			sp := res.Profile
			if sp == nil || sp.CPU == nil || sp.Allocs == nil || sp.Runtime == nil || len(sp.Notes) > 0 {
				t.Fatalf("JSON server_profile: %+v", sp)
			}
			if sp.Requests != res.Complete() || len(sp.CPU.TopCum.Functions) == 0 {
				t.Errorf("requests %d of %d, cum top %+v", sp.Requests, res.Complete(), sp.CPU.TopCum)
			}
			var kinds []string
			for _, f := range sp.Files {
				kinds = append(kinds, f.Kind)
				if fi, err := os.Stat(f.Path); err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("%s: %v %v", f.Path, fi, err)
				}
			}
			if !slices.Equal(kinds, []string{"cpu", "allocs", "trace"}) {
				t.Errorf("saved %q", kinds)
			}
		})
	}
}

// TestProfileWithoutPprof: a target without pprof (gb serve --no-pprof,
// nginx) gives one warning line and the run completes.
func TestProfileWithoutPprof(t *testing.T) {
	targets := map[string]func(t *testing.T) string{
		"no-pprof": func(t *testing.T) string {
			return testsupport.Server(t, testserver.Options{NoPprof: true}).URL() + "/hello"
		},
		"nginx": func(t *testing.T) string {
			return testsupport.StartNginx(t, testsupport.NginxOptions{}).URL + "/small.txt"
		},
	}
	for name, url := range targets {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "profiles")
			r := runGB(t, "-q", "-k", "-c", "2", "-n", "200", "--profile", "--profile-dir", dir, url(t))
			if r.code != 0 || number(t, r.stdout, "Complete requests") != 200 {
				t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "gb: warning: server profile: no pprof at ") {
				t.Errorf("stderr %q, want one warning line", r.stderr)
			}
			if strings.Contains(r.stdout, "gb server profile:") {
				t.Errorf("a server profile section without a profile:\n%s", r.stdout)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("profile folder created: %v", err)
			}
		})
	}
}

func TestProfileUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--profile=cpu,disk", "-n", "1", "http://127.0.0.1:1/"},
		{"--profile-dir", "x", "-n", "1", "http://127.0.0.1:1/"},
		{"--profile", "--profile-url", "ftp://h/", "-n", "1", "http://127.0.0.1:1/"},
	} {
		if r := runGB(t, args...); r.code != 22 || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("gb %q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

// TestDemoProfile: gb demo profiles gb serve, run as a child process, so
// the server's profile holds no frame of gb's load engine.
func TestDemoProfile(t *testing.T) {
	r := gbProcess(t, "demo", "-q", "-c", "4", "-n", "20000", "-t", "1", "--profile-dir", filepath.Join(t.TempDir(), "p"))
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	sec := profileSection(t, r.stdout)
	if !strings.Contains(sec, "net/http.(*conn).serve") || strings.Contains(sec, "internal/load.") {
		t.Errorf("the demo's server profile is not gb serve's alone:\n%s", sec)
	}
}

// TestProfileWarmup: --warmup used to drop --profile (no section, no
// server_profile, no folder: gb compare had no server rows). With
// --warmup and --repeat, every run keeps its profile of the measured load,
// and gb compare of two such results shows the server's rows and gb's.
func TestProfileWarmup(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	var files []string
	for i, repeat := range []string{"2", "1"} {
		js := filepath.Join(dir, strconv.Itoa(i)+".json")
		r := gbProcess(t, "-q", "-k", "-c", "2", "-n", "2000", "--warmup", "300ms", "--repeat", repeat, "--profile=cpu,allocs",
			"--profile-dir", filepath.Join(dir, "p"+strconv.Itoa(i)), "--json", js, srv.URL()+"/hello")
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("--repeat %s: exit %d, stderr %q", repeat, r.code, r.stderr)
		}
		sec := profileSection(t, r.stdout)
		if !strings.Contains(sec, "cores;") || !strings.Contains(sec, "cpu by flat:") {
			t.Errorf("--repeat %s: the profile section lacks the CPU profile:\n%s", repeat, sec)
		}
		f, err := os.Open(js)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := stats.ReadRuns(f)
		f.Close()
		if n, _ := strconv.Atoi(repeat); err != nil || len(rs.Runs) != n {
			t.Fatalf("%s: %v, %d runs", js, err, len(rs.Runs))
		}
		for k, res := range rs.Runs {
			sp := res.Profile
			if res.Warmup == nil || sp == nil || sp.CPU == nil || sp.CPU.Windows == 0 || sp.Allocs == nil || len(sp.Files) != 2 {
				t.Fatalf("run %d of --repeat %s: warm-up %+v, server_profile %+v", k+1, repeat, res.Warmup, sp)
			}
			if res.Client.CPU <= 0 || res.Client.CPUWindow <= 0 {
				t.Errorf("run %d of --repeat %s: gb's CPU %v over %v", k+1, repeat, res.Client.CPU, res.Client.CPUWindow)
			}
		}
		files = append(files, js)
	}
	c := runCompare(files...)
	if c.code != 0 {
		t.Fatalf("gb compare: exit %d, %s", c.code, c.stderr)
	}
	for _, row := range []string{"server CPU/req", "server alloc/req", "gb CPU/req"} {
		if !strings.Contains(c.stdout, row) {
			t.Errorf("gb compare lacks the %q row:\n%s", row, c.stdout)
		}
	}
}

// TestDemoProfileDir: gb demo leaves nothing in the working directory (it
// used to leave ./gb-profiles/<time>): its profiles go to a new folder in
// the temporary directory, which its output names; --profile-dir still
// chooses.
func TestDemoProfileDir(t *testing.T) {
	cwd, tmp := t.TempDir(), t.TempDir()
	t.Chdir(cwd)
	t.Setenv("TMPDIR", tmp)
	r := gbProcess(t, "demo", "-q", "-c", "2", "-n", "2000", "-t", "1")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if left, _ := os.ReadDir(cwd); len(left) > 0 {
		t.Errorf("gb demo left %v in the working directory", left)
	}
	m := regexp.MustCompile(`(?m)^gb demo: the server's profiles go to (\S+) \(a temporary folder\)$`).FindStringSubmatch(r.stdout)
	if m == nil || filepath.Dir(m[1]) != tmp {
		t.Fatalf("the demo does not say where its profiles go, in %s:\n%s", tmp, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(m[1], "cpu.pb.gz")); err != nil || !strings.Contains(profileSection(t, r.stdout), "saved:                "+m[1]+" (") {
		t.Errorf("profiles not saved where the demo said (%v):\n%s", err, r.stdout)
	}
}
