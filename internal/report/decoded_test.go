package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gb-bench/gb/stats"
)

func TestDecodedLine(t *testing.T) {
	r := &stats.Result{}
	r.Counts.BodyIn, r.Counts.DecodedIn = 10240, 32768
	var b bytes.Buffer
	writeCounts(&b, r)
	if strings.Contains(b.String(), "Decoded") {
		t.Errorf("a run without --compressed has a decoded line:\n%s", b.String())
	}
	r.Target.Compressed = true
	b.Reset()
	writeCounts(&b, r)
	want := "HTML transferred:       10240 bytes\nDecoded body:           32768 bytes (3.20× the 10240 on the wire)\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("got\n%s\nwant it to end with\n%s", b.String(), want)
	}
}
