package report

import (
	"bytes"
	"regexp"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

// serverProfile is a server profile as gb -k -c 8 --profile=cpu,allocs,trace
// against gb serve's /leftpad records it.
func serverProfile() *stats.ServerProfile {
	dir := "gb-profiles/20261121-135130"
	fn := func(name string, flat, cum int64) stats.ProfileFunction {
		return stats.ProfileFunction{Name: name, Flat: flat, Cum: cum}
	}
	const ms = int64(time.Millisecond)
	return &stats.ServerProfile{
		URL:      "http://127.0.0.1:8080/debug/pprof/",
		Kinds:    []string{"cpu", "allocs", "trace"},
		Requests: 1000,
		Dir:      dir,
		CPU: &stats.ServerCPU{
			Windows: 3, Profiled: 3017 * time.Millisecond, Covered: 2461 * time.Millisecond, Load: 2518 * time.Millisecond,
			Cores: 0.6663, Top: stats.ProfileTop{
				SampleType: "cpu", Unit: "nanoseconds", Total: 1640 * ms, Command: "go tool pprof -top " + dir + "/cpu.pb.gz",
				Functions: []stats.ProfileFunction{
					fn("runtime.memmove", 150*ms, 150*ms), fn("runtime.unlock2", 120*ms, 150*ms),
					fn("runtime.concatstrings", 60*ms, 590*ms), fn("runtime.futex", 10*ms, 10*ms),
				},
			},
			TopCum: stats.ProfileTop{
				SampleType: "cpu", Unit: "nanoseconds", Total: 1640 * ms, Command: "go tool pprof -top -cum " + dir + "/cpu.pb.gz",
				Functions: []stats.ProfileFunction{
					fn("net/http.(*conn).serve", 10*ms, 730*ms),
					fn("github.com/gb-bench/gb/internal/testserver.leftpad", 0, 600*ms),
					fn("runtime.concatstrings", 60*ms, 590*ms),
				},
			},
			Own: stats.ProfileTop{
				SampleType: "cpu", Unit: "nanoseconds", Total: 1640 * ms,
				Functions: []stats.ProfileFunction{
					fn("github.com/gb-bench/gb/internal/testserver.(*Server).serveLeftpad", 0, 620*ms),
					fn("github.com/gb-bench/gb/internal/testserver.leftpad", 0, 600*ms),
					{Name: "runtime.concatstrings", Flat: 60 * ms, Cum: 590 * ms, Callee: true},
					{Name: "encoding/json.Marshal", Flat: 0, Cum: 20 * ms, Callee: true},
				},
			},
		},
		AllocObjects: 2013312,
		Allocs: &stats.ProfileTop{
			SampleType: "alloc_space", Unit: "bytes", Total: 1997075304, Command: "go tool pprof -top " + dir + "/allocs.pb.gz",
			Functions: []stats.ProfileFunction{
				fn("github.com/gb-bench/gb/internal/testserver.leftpad", 1945650714, 1945650714),
				fn("net/http.(*Transport).dialConn", 524344, 8417388),
				fn("net/http.(*conn).serve", 0, 1964803911),
			},
		},
		Runtime: &stats.ServerRuntime{AllocBytes: 1997075304, AllocObjects: 2009690, GCCycles: 616,
			GCPause: 400213385 * time.Nanosecond, HeapAlloc: 4431016},
		Files: []stats.ProfileFile{
			{Kind: "cpu", Path: dir + "/cpu.pb.gz", Open: "go tool pprof -http=127.0.0.1:0 " + dir + "/cpu.pb.gz"},
			{Kind: "allocs", Path: dir + "/allocs.pb.gz", Open: "go tool pprof -http=127.0.0.1:0 " + dir + "/allocs.pb.gz"},
			{Kind: "trace", Path: dir + "/trace.out", Open: "go tool trace " + dir + "/trace.out"},
		},
	}
}

// hostileProfile holds what a hostile server can put in a profile: ab's
// labels, percent signs and control sequences in function names, and
// notes; no memstats, so allocation per request comes from the profile.
func hostileProfile() *stats.ServerProfile {
	sp := serverProfile()
	sp.Runtime = nil
	sp.Notes = []string{"cpu: HTTP 500: Total: 100% \x1b[31mbusy", "runtime: no memstats at http://127.0.0.1:8080/debug/vars"}
	sp.CPU.Top.Functions[0].Name = "Requests per second: 99.5%\x1b[2J"
	sp.CPU.TopCum.Command = ""
	sp.Allocs.Functions[1].Name = "Failed requests:\r\nComplete requests: 1"
	sp.CPU.Own.Functions[2].Name = "Total: 50%\x1b[0m"
	return sp
}

// profileFixtures are the report fixtures with a server profile.
func profileFixtures() map[string]*stats.Result {
	out := map[string]*stats.Result{}
	for name, sp := range map[string]*stats.ServerProfile{"profile": serverProfile(), "hostile profile": hostileProfile(),
		"diagnosis": diagnosedProfile(false), "hostile diagnosis": diagnosedProfile(true)} {
		r := build(keepAliveSpec())
		r.Profile = sp
		out[name] = r
	}
	return out
}

// profileLine matches the lines of the server profile section that are
// not "key: value" lines: its blank line and title, and table rows.
var profileLine = regexp.MustCompile(`^$|^gb server profile:$|^gb diagnosis:$|^ {4,}\S`)

func TestProfileGolden(t *testing.T) {
	for file, name := range map[string]string{"text_profile.txt": "profile", "text_profile_hostile.txt": "hostile profile"} {
		var b bytes.Buffer
		if err := Text(&b, profileFixtures()[name], Options{}); err != nil {
			t.Fatal(err)
		}
		golden(t, file, b.Bytes())
	}
}

func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		v    int64
		unit string
		want string
	}{
		{0, "nanoseconds", "0"},
		{150_000_000, "nanoseconds", "150ms"},
		{1_350_000_000, "nanoseconds", "1.35s"},
		{2_000_000_000, "nanoseconds", "2s"},
		{1500, "nanoseconds", "1.5us"},
		{-10_000_000, "nanoseconds", "-10ms"},
		{512, "bytes", "512B"},
		{1536, "bytes", "1.5kB"},
		{1945650714, "bytes", "1.81GB"},
		{42, "count", "42"},
	} {
		if got := formatValue(tc.v, tc.unit); got != tc.want {
			t.Errorf("formatValue(%d, %s) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}
