package htmlreport

import (
	"flag"
	"testing"

	"github.com/gb-bench/gb/internal/testsupport"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name (testsupport.Golden; -update
// rewrites it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testsupport.Golden(t, name, got, *update)
}
