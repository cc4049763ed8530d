package stats

import (
	"bytes"
	"strings"
	"testing"
)

// TestReadRunsRefusesImpossible: a result gb cannot have written (no
// target, an unknown version, a negative count, counts that break I2 or
// I5) is refused with one line naming the problem; strings come back
// printable, map keys included.
func TestReadRunsRefusesImpossible(t *testing.T) {
	var b bytes.Buffer
	r := recorded(3, 1000)
	r.Counts.Status = map[int]int64{200: 3}
	r.Counts.Errors = map[string]int64{"boom": 0}
	if err := (Runs{Runs: []*Result{r}}).Write(&b); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	if _, err := ReadRuns(strings.NewReader(good)); err != nil {
		t.Fatalf("a good result refused: %v", err)
	}
	for _, tc := range []struct{ name, doc, want string }{
		{"empty v2", `{"version":2}`, "run 1: not a gb result (no target url)"},
		{"v4", strings.Replace(good, `"version": 3`, `"version": 4`, 1), "run 1: format version 4 is newer than this gb reads (3)"},
		{"negative version", strings.Replace(good, `"version": 3`, `"version": -1`, 1), "run 1: not a gb result (format version -1)"},
		{"negative ok", inCounts(good, `"ok": 3`, `"ok": -3`), "run 1: not a gb result: counts.outcomes.ok is -3, below 0"},
		{"negative status", strings.Replace(good, `"200": 3`, `"200": -3`, 1), "run 1: not a gb result: counts.status.200 is -3, below 0"},
		{"negative bytes", strings.Replace(good, `"bytes_out": 0`, `"bytes_out": -1`, 1), "run 1: not a gb result: counts.bytes_out is -1, below 0"},
		{"I2", inCounts(good, `"dispatched": 3`, `"dispatched": 4`), "run 1: inconsistent result: I2: dispatched 4 != ok+non2xx+failed+aborted 3"},
	} {
		_, err := ReadRuns(strings.NewReader(tc.doc))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	hostile := strings.Replace(good, `"boom"`, `"\u001b]0;owned\u0007\u001b[2J"`, 1)
	hostile = strings.Replace(hostile, `"url": "http://127.0.0.1:1/"`, `"url": "http://127.0.0.1:1/\u001b[2J\u202e"`, 1)
	rs, err := ReadRuns(strings.NewReader(hostile))
	if err != nil {
		t.Fatal(err)
	}
	got := rs.Runs[0]
	if got.Load.URL != `http://127.0.0.1:1/\x1b[2J\u202e` {
		t.Errorf("url read as %q", got.Load.URL)
	}
	if _, ok := got.Counts.Errors[`\x1b]0;owned\x07\x1b[2J`]; !ok || len(got.Counts.Errors) != 1 {
		t.Errorf("error keys read as %v", got.Counts.Errors)
	}
}

// inCounts replaces old with new in doc's "counts" object (the derived
// "totals" before it repeat some of its keys).
func inCounts(doc, old, new string) string {
	i := strings.Index(doc, `"counts"`)
	return doc[:i] + strings.Replace(doc[i:], old, new, 1)
}

// TestReadRunsDiagnosisUnknowns: the diagnosis writes -1 for what it
// could not measure (GC cycles without memstats, GC's CPU share without
// CPU samples, goroutine counts without the goroutine profile); a result
// gb wrote with them is read back (gb compare, gb report), and any other
// negative number in the diagnosis is refused.
func TestReadRunsDiagnosisUnknowns(t *testing.T) {
	r := recorded(3, 1000)
	r.Profile = &ServerProfile{Requests: 3, Kinds: []string{"allocs"}, Diagnosis: &Diagnosis{
		GC:         &DiagnosisGC{BytesPerRequest: 10, CyclesPer1000: -1, CPUShare: -1, Source: "allocs_profile"},
		Goroutines: &DiagnosisGoroutines{Before: -1, During: -1, After: 4},
	}}
	var b bytes.Buffer
	if err := (Runs{Runs: []*Result{r}}).Write(&b); err != nil {
		t.Fatal(err)
	}
	rs, err := ReadRuns(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("a result with the diagnosis's unknowns refused: %v", err)
	}
	if g := rs.Runs[0].Profile.Diagnosis.GC; g.CPUShare != -1 || g.CyclesPer1000 != -1 {
		t.Errorf("gc read as %+v", g)
	}
	bad := strings.Replace(b.String(), `"cpu_share": -1`, `"cpu_share": -2`, 1)
	if _, err := ReadRuns(strings.NewReader(bad)); err == nil || err.Error() != "run 1: not a gb result: server_profile.diagnosis.gc.cpu_share is -2, below 0" {
		t.Errorf("cpu_share -2: %v", err)
	}
}
