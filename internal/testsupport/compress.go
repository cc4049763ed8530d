package testsupport

import (
	"bytes"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
)

// Compress returns p coded as enc (gzip, br, zstd, deflate or identity)
// by the coding's real encoder, as gb's test server codes its bodies.
func Compress(tb testing.TB, enc string, p []byte) []byte {
	tb.Helper()
	var b bytes.Buffer
	w, err := testserver.NewEncoder(enc, &b)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := w.Write(p); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}
