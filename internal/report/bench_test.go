package report

import (
	"bytes"
	"testing"

	"github.com/gb-bench/gb/stats"
)

func TestBenchFormatGolden(t *testing.T) {
	fx := fixtures()
	var b bytes.Buffer
	runs := []*stats.Result{fx["plain"], fx["keepalive"], fx["rate"], fx["zero"]}
	if err := BenchFormat(&b, "file in\tstep", runs); err != nil {
		t.Fatal(err)
	}
	golden(t, "bench.txt", b.Bytes())
}

func TestBenchName(t *testing.T) {
	for in, want := range map[string]string{"": "run", "hello": "hello", "a b\nc": "a_b_c", "µ/x": "µ/x"} {
		if got := BenchName(in); got != want {
			t.Errorf("BenchName(%q) = %q, want %q", in, got, want)
		}
	}
}
