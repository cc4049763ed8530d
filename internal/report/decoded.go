package report

import (
	"fmt"
	"io"

	"github.com/gb-bench/gb/stats"
)

// decodedLine is the "Decoded body" value of a --compressed run: the body
// bytes after content decoding and their ratio to the body bytes on the
// wire (ab's HTML transferred), e.g. "32768 bytes (3.20× the 10240 on the
// wire)", with times for the sign. ok is false for a run without
// --compressed.
func decodedLine(r *stats.Result, times string) (s string, ok bool) {
	if !r.Load.Compressed {
		return "", false
	}
	c := &r.Counts
	if c.BodyIn == 0 {
		return fmt.Sprintf("%d bytes", c.DecodedIn), true
	}
	return fmt.Sprintf("%d bytes (%.2f%s the %d on the wire)", c.DecodedIn,
		float64(c.DecodedIn)/float64(c.BodyIn), times, c.BodyIn), true
}

// writeDecoded writes the text report's "Decoded body" line under HTML
// transferred, only for a --compressed run.
func writeDecoded(w io.Writer, r *stats.Result) {
	if s, ok := decodedLine(r, "×"); ok {
		fmt.Fprintf(w, "Decoded body:           %s\n", s)
	}
}
