package report

import (
	"bytes"
	"flag"
	"testing"

	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name (testsupport.Golden; -update
// rewrites it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testsupport.Golden(t, name, got, *update)
}

// textOf is r's text report with default options.
func textOf(t *testing.T, r *stats.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := Text(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
