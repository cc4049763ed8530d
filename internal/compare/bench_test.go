package compare

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gb-bench/gb/stats"
)

// TestBenchFormatGolden renders four saved runs (ab's plain and
// keep-alive runs, a rate-mode run and one without a complete response,
// testdata/bench_runs.json) as benchmark lines; testdata/bench.txt is
// the output the format had in package report, byte for byte.
func TestBenchFormatGolden(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "bench_runs.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := stats.ReadRuns(f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := BenchFormat(&b, "file in\tstep", rs.Runs); err != nil {
		t.Fatal(err)
	}
	golden(t, "bench.txt", b.String())
}

func TestBenchName(t *testing.T) {
	for in, want := range map[string]string{"": "run", "hello": "hello", "a b\nc": "a_b_c", "µ/x": "µ/x"} {
		if got := BenchName(in); got != want {
			t.Errorf("BenchName(%q) = %q, want %q", in, got, want)
		}
	}
}
