package report

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/realrun"
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
	r.Load.Compressed = true
	b.Reset()
	writeCounts(&b, r)
	want := "HTML transferred:       10240 bytes\nDecoded body:           32768 bytes (3.20× the 10240 on the wire)\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("got\n%s\nwant it to end with\n%s", b.String(), want)
	}
}

// A real --compressed run's JSON (gzip bodies from the test server)
// matches the schema and carries decoded_in and target.compressed.
func TestCompressedRunJSONMatchesSchema(t *testing.T) {
	res := realrun.Run(t, 200, func(c *gb.Config) {
		c.URL += "compressed?enc=gzip&size=5000"
		c.Compressed = true
	})
	js := renderBytes(t, func(w io.Writer) error { return JSON(w, res) })
	validate(t, js)
	if res.Counts.DecodedIn != 200*5000 || !bytes.Contains(js, []byte(`"decoded_in": 1000000`)) ||
		!bytes.Contains(js, []byte(`"compressed": true`)) || !bytes.Contains(js, []byte(`"failed.decode": 0`)) {
		t.Errorf("decoded %d; JSON:\n%.3000s", res.Counts.DecodedIn, js)
	}
}

func TestDecodedHTMLRow(t *testing.T) {
	r := &stats.Result{}
	r.Load.Compressed = true
	r.Counts.BodyIn, r.Counts.DecodedIn = 1000, 4500
	var b bytes.Buffer
	if err := HTML(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Decoded body:</th><td colspan=2 bgcolor=white>4500 bytes (4.50&times; the 1000 on the wire)</td>") {
		t.Errorf("no Decoded body row in\n%s", b.String())
	}
}
