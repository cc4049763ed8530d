package profile

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// drive loads url from four keep-alive connections for d and returns the
// number of responses. A response may take long on a busy machine: the
// client's timeout is a hang bound, not a speed limit.
func drive(t *testing.T, url string, d time.Duration) int64 {
	t.Helper()
	var n atomic.Int64
	var wg sync.WaitGroup
	end := time.Now().Add(d)
	for range 4 {
		wg.Go(func() {
			c := &http.Client{Transport: &http.Transport{}, Timeout: 60 * time.Second}
			defer c.CloseIdleConnections()
			for time.Now().Before(end) {
				resp, err := c.Get(url)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				n.Add(1)
			}
		})
	}
	wg.Wait()
	return n.Load()
}

// capture profiles srv while drive loads path for d.
func capture(t *testing.T, srv *testserver.Server, path string, d time.Duration, kinds ...Kind) (*stats.ServerProfile, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "profiles")
	c, err := Start(context.Background(), Config{URL: srv.URL() + "/debug/pprof/", Kinds: kinds, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	n := drive(t, srv.URL()+path, d)
	return c.Stop(n), dir
}

// names returns the function names of a top.
func names(top *stats.ProfileTop) []string {
	var out []string
	for _, f := range top.Functions {
		out = append(out, f.Name)
	}
	return out
}

// hasLeftpad reports whether a top lists testserver's leftpad.
func hasLeftpad(top *stats.ProfileTop) bool {
	return slices.ContainsFunc(names(top), func(n string) bool { return strings.HasSuffix(n, "testserver.leftpad") })
}

func TestCaptureLeftpad(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	sp, dir := capture(t, srv, "/leftpad?str=x&len=2000&chr=0", 1500*time.Millisecond, CPU, Allocs, Heap, Goroutine, Trace)
	if len(sp.Notes) > 0 {
		t.Errorf("notes: %q", sp.Notes)
	}
	// How many CPU windows fit in the load is the machine's speed's
	// business (a window's profile request waits for the server): at
	// least one, whose coverage lies within the load.
	if sp.CPU == nil || sp.CPU.Windows < 1 || sp.CPU.Cores <= 0 || sp.CPU.Covered <= 0 || sp.CPU.Covered > sp.CPU.Load {
		t.Fatalf("cpu summary: %+v", sp.CPU)
	}
	if !hasLeftpad(&sp.CPU.TopCum) {
		t.Errorf("leftpad is not in the CPU top by cum: %q", names(&sp.CPU.TopCum))
	}
	if sp.Allocs == nil || !hasLeftpad(sp.Allocs) || !strings.HasSuffix(sp.Allocs.Functions[0].Name, "leftpad") {
		t.Errorf("leftpad does not lead the allocs top: %+v", sp.Allocs)
	}
	if sp.Runtime == nil || sp.Runtime.AllocBytes/sp.Requests < 2000 || sp.Runtime.GCCycles == 0 {
		t.Errorf("runtime: %+v for %d requests", sp.Runtime, sp.Requests)
	}
	var kinds []string
	for _, f := range sp.Files {
		kinds = append(kinds, f.Kind)
		fi, err := os.Stat(f.Path)
		if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() == 0 {
			t.Errorf("%s: %v %v", f.Path, fi, err)
		}
	}
	if want := []string{"cpu", "heap", "allocs", "goroutine", "trace"}; !slices.Equal(kinds, want) {
		t.Errorf("saved %q, want %q", kinds, want)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("dir %s: %v %v", dir, fi, err)
	}
	// The saved trace is analysed for the diagnosis: the server's
	// requests were served (and so waited for a P at least once).
	if s := sp.Diagnosis.Scheduling; s == nil || s.Events == 0 || s.Waits == 0 || s.ServingShare <= 0 || s.RequestWait < 0 || s.Truncated != "" {
		t.Errorf("scheduling %+v; missing %q", s, sp.Diagnosis.Missing)
	}
	if sp.CPU.Top.Command != "go tool pprof -top "+filepath.Join(dir, "cpu.pb.gz") {
		t.Errorf("command %q", sp.CPU.Top.Command)
	}
}

func TestCaptureBytesIsNotLeftpad(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	sp, _ := capture(t, srv, "/bytes/1024", time.Second, CPU, Allocs)
	if sp.CPU == nil || len(sp.CPU.Top.Functions) == 0 {
		t.Fatalf("no CPU top: %+v", sp)
	}
	if hasLeftpad(&sp.CPU.Top) || hasLeftpad(&sp.CPU.TopCum) || hasLeftpad(sp.Allocs) {
		t.Errorf("leftpad in the profile of /bytes/1024: %q %q", names(&sp.CPU.TopCum), names(sp.Allocs))
	}
	if sp.Runtime == nil || sp.Runtime.AllocBytes == 0 {
		t.Errorf("runtime: %+v", sp.Runtime)
	}
}

func TestNoPprof(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{NoPprof: true})
	dir := filepath.Join(t.TempDir(), "p")
	_, err := Start(context.Background(), Config{URL: srv.URL() + "/debug/pprof/", Kinds: []Kind{CPU}, Dir: dir})
	var np *NoPprofError
	if !errors.As(err, &np) || !strings.Contains(err.Error(), "HTTP 404") {
		t.Fatalf("err = %v, want a NoPprofError with HTTP 404", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the profile folder was created for a target without pprof: %v", err)
	}
}

func TestStopEndsTheWindowInFlight(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	c, err := Start(ctx, Config{URL: srv.URL() + "/debug/pprof", Kinds: []Kind{CPU}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cancel() // the run's context ends (a signal): no new window, the one in flight completes
	sp := c.Stop(0)
	if sp.CPU == nil || sp.CPU.Windows != 1 || len(sp.Files) != 1 {
		t.Errorf("after a cancelled run: %+v, files %+v, notes %q", sp.CPU, sp.Files, sp.Notes)
	}
}
