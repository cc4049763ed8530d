package report

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/realrun"
	"github.com/gb-bench/gb/stats"
)

// schemaPath is the JSON Schema of gb's result, shipped in the repository.
const schemaPath = "../../stats/result.schema.json"

// validate checks doc against the result schema.
func validate(t *testing.T, doc []byte) {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("result does not match %s: %v", schemaPath, err)
	}
}

// TestRealRunJSONMatchesSchema validates the JSON of a real run (test
// server, real client and engine) against stats/result.schema.json, and
// checks that the schema rejects a result that lacks a v2 field.
func TestRealRunJSONMatchesSchema(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, realrun.Run(t, 300, nil)); err != nil {
		t.Fatal(err)
	}
	validate(t, b.Bytes())
	rate := realrun.Run(t, 300, func(c *gb.Config) { // rate mode: corrected, lag, scheduled, a series with corrected
		c.Rate, c.Interval = gb.Rate{Freq: 3000}, 20*time.Millisecond
	})
	js := renderBytes(t, func(w io.Writer) error { return JSON(w, rate) })
	validate(t, js)
	if !bytes.Contains(js, []byte(`"corrected": {`)) || !bytes.Contains(js, []byte(`"lag": {`)) || len(rate.Series.Points) < 2 {
		t.Errorf("the rate-mode result lacks corrected, lag or a series:\n%.2000s", js)
	}
	broken := bytes.Replace(b.Bytes(), []byte(`"p99_ms"`), []byte(`"p99_xx"`), 1)
	sch, _ := jsonschema.NewCompiler().Compile(schemaPath)
	inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(broken))
	if sch.Validate(inst) == nil {
		t.Error("the schema accepts a distribution without p99_ms")
	}
}

// gbP99 matches the p99 of the "latency ms" line of gb's text section.
var gbP99 = regexp.MustCompile(`(?m)^  latency ms: +p50=\S+ p90=\S+ p99=([0-9.]+) `)

// render returns what f writes.
func renderBytes(t *testing.T, f func(w io.Writer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := f(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// textP99 renders res's text report and returns the p99 in ms of its gb
// section, and the report.
func textP99(t *testing.T, res *stats.Result) (float64, string) {
	t.Helper()
	txt := string(renderBytes(t, func(w io.Writer) error { return Text(w, res, Options{}) }))
	m := gbP99.FindStringSubmatch(txt)
	if m == nil {
		t.Fatalf("no p99 in the text report:\n%s", txt)
	}
	p99, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return p99, txt
}

// TestJSONP99EqualsText: `jq .latency.total.p99_ms` on a real run's JSON
// equals the p99 that the text report prints, and rps is ab's Requests
// per second.
func TestJSONP99EqualsText(t *testing.T) {
	res := realrun.Run(t, 500, nil)
	js := renderBytes(t, func(w io.Writer) error { return JSON(w, res) })
	text, txt := textP99(t, res)
	var doc struct {
		RPS     float64 `json:"rps"`
		Latency map[string]map[string]any
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Latency["total"]["p99_ms"]; got != text {
		t.Errorf(".latency.total.p99_ms = %v, text report p99=%v", got, text)
	}
	rps := regexp.MustCompile(`Requests per second: +([0-9.]+)`).FindStringSubmatch(txt)
	if rps == nil || strconv.FormatFloat(doc.RPS, 'f', 2, 64) != rps[1] {
		t.Errorf(".rps = %v, text %v", doc.RPS, rps)
	}
	if _, err := exec.LookPath("jq"); err == nil { // the user's own check, where jq is installed
		cmd := exec.Command("jq", ".latency.total.p99_ms")
		cmd.Stdin = bytes.NewReader(js)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := strconv.ParseFloat(strings.TrimSpace(string(out)), 64); v != text {
			t.Errorf("jq .latency.total.p99_ms printed %s, text report p99=%v", out, text)
		}
	}
}

// TestReadResultVersions: a version 1 result (gb before the plain numbers)
// reads back and writes as the current version with the same histograms; a newer
// version and a non-result are refused in one line.
func TestReadResultVersions(t *testing.T) {
	f, err := os.Open("../../stats/testdata/result-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := stats.ReadResult(f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := JSON(&b, r); err != nil {
		t.Fatal(err)
	}
	validate(t, b.Bytes())
	if r.Version != stats.FormatVersion || r.Latency[stats.Total].Percentile(99) == 0 {
		t.Errorf("version %d, p99 %d", r.Version, r.Latency[stats.Total].Percentile(99))
	}
	for _, bad := range []string{`{"version": 4}`, `{"rps": 1}`, `[1]`, `{"version": 2, "latency": {"bogus": {}}}`} {
		_, err := stats.ReadResult(strings.NewReader(bad))
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line", bad, err)
		}
	}
}
