package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

// diagnosedProfile is serverProfile with the diagnosis gb makes of a
// server that allocates too much (as gb serve's /slow/garbage), every
// part present; hostile puts ab's labels, percent signs and control
// sequences in the server-supplied names.
func diagnosedProfile(hostile bool) *stats.ServerProfile {
	sp := serverProfile()
	fn := "github.com/gb-bench/gb/internal/testserver.makeGarbage"
	site := fn
	if hostile {
		fn = "Requests per second: 99%\x1b[2J"
		site = "Failed requests:\r\nTotal: 1"
	}
	sp.Diagnosis = &stats.Diagnosis{
		Bound:   "gc",
		Verdict: "GC and allocation: 2100us of CPU per request (79 pct of the server's CPU), most by " + fn,
		CPU: &stats.DiagnosisCPU{PerRequest: 2650 * time.Microsecond, Classes: []stats.CPUClass{
			{Class: "alloc", PerRequest: 1250 * time.Microsecond, Share: 0.472, Top: "runtime.mallocgcSmallScanNoHeader"},
			{Class: "gc", PerRequest: 850 * time.Microsecond, Share: 0.321, Top: "runtime.gcDrainN"},
			{Class: "user_cpu", PerRequest: 450 * time.Microsecond, Share: 0.17, Top: fn},
			{Class: "http_stack", PerRequest: 100 * time.Microsecond, Share: 0.037, Top: "net/http.(*conn).serve"},
		}},
		GC: &stats.DiagnosisGC{BytesPerRequest: 1289515, ObjectsPerRequest: 20030, CyclesPer1000: 230, MaxPause: 412 * time.Microsecond, Source: "memstats",
			CPUShare: 0.792, Sites: []stats.AllocSite{{Function: site, BytesPerRequest: 1179720, Share: 0.972}}},
		Contention: []stats.DiagnosisWait{{Kind: "mutex", Site: site, PerRequest: 15700 * time.Microsecond, Events: 159}},
		Goroutines: &stats.DiagnosisGoroutines{Before: 10, During: 414, After: -1,
			Grew: []stats.GoroutineGrowth{{Stack: site + " < net/http.(*conn).serve", Added: 400}}},
		Missing: []string{"block: no blocking recorded: the server must call runtime.SetBlockProfileRate(10000) (or accept that it has none)"},
	}
	return sp
}

func TestDiagnosisGolden(t *testing.T) {
	for file, name := range map[string]string{"text_diagnosis.txt": "diagnosis", "text_diagnosis_hostile.txt": "hostile diagnosis"} {
		var b bytes.Buffer
		if err := Text(&b, profileFixtures()[name], Options{}); err != nil {
			t.Fatal(err)
		}
		_, sec, ok := strings.Cut(b.String(), "\ngb diagnosis:\n")
		if !ok {
			t.Fatalf("no diagnosis section:\n%s", b.String())
		}
		if strings.ContainsAny(sec, "\x1b\r") {
			t.Errorf("control bytes in the section:\n%q", sec)
		}
		golden(t, file, []byte(sec))
	}
}

// TestDiagnosisAfterProfile: the section follows the server profile, and
// a profile without a diagnosis writes none.
func TestDiagnosisAfterProfile(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, profileFixtures()["diagnosis"], Options{}); err != nil {
		t.Fatal(err)
	}
	p, d := strings.Index(b.String(), "\ngb server profile:\n"), strings.Index(b.String(), "\ngb diagnosis:\n")
	if p < 0 || d < p {
		t.Errorf("profile at %d, diagnosis at %d", p, d)
	}
	b.Reset()
	if err := Text(&b, profileFixtures()["profile"], Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "gb diagnosis:") {
		t.Errorf("a diagnosis section without a diagnosis")
	}
}
