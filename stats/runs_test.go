package stats

import (
	"bytes"
	"strings"
	"testing"
)

// recorded returns a Result of n ok responses of total µs each.
func recorded(n int, total int64) *Result {
	r := &Result{Version: FormatVersion, Load: Load{URL: "http://127.0.0.1:1/"},
		Counts: Counts{Dispatched: int64(n), Status: map[int]int64{200: int64(n)}}}
	r.Counts.Outcomes[OK] = int64(n)
	r.Latency[Total] = &Dist{}
	for range n {
		r.Latency[Total].add(total)
	}
	return r
}

func TestRunsRoundTrip(t *testing.T) {
	in := Runs{Runs: []*Result{recorded(3, 1000), recorded(5, 2000)}}
	var b bytes.Buffer
	if err := in.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "{\n  \"runs\": [\n") {
		t.Errorf("runs file starts %q", b.String()[:20])
	}
	out, err := ReadRuns(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Runs) != 2 || out.Runs[1].Complete() != 5 || out.Runs[1].Latency[Total].Percentile(99) != 2000 {
		t.Fatalf("read back %d runs: %+v", len(out.Runs), out.Runs)
	}
}

func TestReadRunsSingleResult(t *testing.T) {
	var b bytes.Buffer
	if err := (Runs{Runs: []*Result{recorded(4, 700)}}).Write(&b); err != nil {
		t.Fatal(err)
	}
	// The single-result form is the element of the list.
	single := strings.TrimSuffix(strings.TrimPrefix(b.String(), "{\n  \"runs\": ["), "]\n}\n")
	rs, err := ReadRuns(strings.NewReader(single))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Runs) != 1 || rs.Runs[0].Complete() != 4 {
		t.Errorf("runs %+v", rs.Runs)
	}
}

func TestReadRunsRefuses(t *testing.T) {
	for in, want := range map[string]string{
		``:                                     "not a gb result",
		`[1,2]`:                                "not a gb result",
		`{"runs": []}`:                         "no runs",
		`{"runs": [null]}`:                     "run 1: not a gb result",
		`{"counts": {}}`:                       "run 1: not a gb result (no version)",
		`{"version": 99}`:                      "format version 99 is newer",
		`{"runs": [{"version": "x"}]}`:         "not a gb result",
		`{"version": 1, "latency": {"x": {}}}`: "unknown latency phase",
	} {
		_, err := ReadRuns(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}
