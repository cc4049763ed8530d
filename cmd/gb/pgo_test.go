package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	pprof "github.com/google/pprof/profile"
)

// cpuTotal is the sum of a saved CPU profile's nanoseconds.
func cpuTotal(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := pprof.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	i := len(p.SampleType) - 1
	if i < 0 || p.SampleType[i].Unit != "nanoseconds" {
		t.Fatalf("%s: not a CPU profile: %v", path, p.SampleType)
	}
	var sum int64
	for _, s := range p.Sample {
		sum += s.Value[i]
	}
	return sum
}

// TestPGO: --pgo writes the CPU profile of the measured loads, merged
// over --repeat (its samples are the runs' samples, summed), that the go
// command's PGO reader accepts; with GB_PGO_BUILD=1, go build -pgo takes
// it: the binary built from bench/hello says so in go version -m.
func TestPGO(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	pgo := filepath.Join(dir, "default.pgo")
	r := gbProcess(t, "-q", "-k", "-c", "2", "-n", "100", "--repeat", "2", "--pgo", pgo,
		"--profile-dir", filepath.Join(dir, "prof"), srv.URL()+"/slow/cpu?n=500000")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	runs := cpuTotal(t, filepath.Join(dir, "prof", "run-1", "cpu.pb.gz")) + cpuTotal(t, filepath.Join(dir, "prof", "run-2", "cpu.pb.gz"))
	if got := cpuTotal(t, pgo); got != runs || got == 0 {
		t.Errorf("the PGO profile holds %dns of CPU, the runs %dns", got, runs)
	}
	// The go command's own PGO reader accepts it (fast: no build).
	if out, err := exec.Command("go", "tool", "preprofile", "-i", pgo, "-o", filepath.Join(dir, "pre.out")).CombinedOutput(); err != nil {
		t.Fatalf("go tool preprofile: %v\n%s", err, out)
	}
	// A build with a new profile recompiles the standard library: minutes
	// on a busy machine, so only when asked (GB_PGO_BUILD=1, as CI does).
	if os.Getenv("GB_PGO_BUILD") != "1" {
		t.Skip("set GB_PGO_BUILD=1 to build bench/hello with the profile")
	}
	bin := filepath.Join(dir, "hello")
	build := exec.Command("go", "build", "-pgo="+pgo, "-o", bin, "./bench/hello")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -pgo: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "version", "-m", bin).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "-pgo="+pgo) {
		t.Errorf("go version -m: %v\n%s", err, out)
	}
}

// TestPGOErrors: --pgo on stdout or without cpu in --profile is a usage
// error; a target without pprof gives no file and exits 1 with one line.
func TestPGOErrors(t *testing.T) {
	url := testsupport.Server(t, testserver.Options{NoPprof: true}).URL() + "/hello"
	pgo := filepath.Join(t.TempDir(), "default.pgo")
	for _, args := range [][]string{{"--pgo", "-"}, {"--profile=allocs", "--pgo", pgo}} {
		r := runGB(t, append(append([]string{"-q", "-n", "10"}, args...), url)...)
		if r.code != exitUsage || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "--pgo") {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	r := runGB(t, "-q", "-n", "10", "--pgo", pgo, url)
	if r.code != exitFailure || !strings.Contains(r.stderr, "gb: --pgo "+pgo+": no CPU profile was saved") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(pgo); !os.IsNotExist(err) {
		t.Errorf("a PGO file without a profile: %v", err)
	}
}
