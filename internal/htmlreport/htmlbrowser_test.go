package htmlreport_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/htmlreport"
	"github.com/gb-bench/gb/internal/realrun"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// pageWidth is the browser window's width in pixels.
const pageWidth = 1280

// layout is what the test reads from the rendered page.
type layout struct {
	Height int          `json:"height"` // of the whole document
	Charts [][4]float64 `json:"charts"` // left, top, width, height of each chart box, in page pixels
	Text   string       `json:"text"`   // the page's visible text
}

// layoutJS measures the page once its fonts are ready.
const layoutJS = `document.fonts.ready.then(() => JSON.stringify({
	height: document.documentElement.scrollHeight,
	charts: [...document.querySelectorAll('.chart')].map(e => { const r = e.getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.width, r.height]; }),
	text: document.body.innerText}))`

// TestHTMLReportInBrowser renders reports of real runs against the test
// server, opens each in headless Chromium and checks what a reader sees:
// every chart box holds a drawn chart (enough non-white pixels, and the
// first line's blue), the sections are there (with a run's checks and
// their counts),
// and the page made no request but its own file:// one. A control page
// with external references proves the request check sees requests.
func TestHTMLReportInBrowser(t *testing.T) {
	b := testsupport.StartChromium(t)
	dir := t.TempDir()
	t.Run("control", func(t *testing.T) {
		page := filepath.Join(dir, "control.html")
		html := `<!DOCTYPE html><link rel="stylesheet" href="https://gb.invalid/x.css"><img src="http://gb.invalid/x.png">`
		if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
		seen := len(b.Requests())
		if err := open(b, fileURL(page)); err != nil {
			t.Fatal(err)
		}
		got := strings.Join(b.Requests()[seen:], " ")
		for _, want := range []string{"https://gb.invalid/x.css", "http://gb.invalid/x.png"} {
			if !strings.Contains(got, want) {
				t.Errorf("the browser's requests %q miss %s: the request check is blind", got, want)
			}
		}
	})
	var checked *stats.Result // the checks case's run, whose counts the page shows
	cases := []struct {
		name   string
		render func(t *testing.T, buf *bytes.Buffer) error
		charts int
		texts  []string
		counts func() []string // more texts, from the run
	}{
		{"closed", func(t *testing.T, buf *bytes.Buffer) error { return htmlreport.Run(buf, realRun(t, 0, true)) }, 4,
			[]string{"Throughput over time", "Errors over time", "Latency over time", "Latency by percentile", "Status codes", "503", "failed.timeout.ttfb", "CPU by flat time", "Percentage of the requests served",
				"Diagnosis", "Where the server's CPU goes", "Open next"}, nil},
		{"rate", func(t *testing.T, buf *bytes.Buffer) error { return htmlreport.Run(buf, realRun(t, 400, false)) }, 3,
			[]string{"corrected (from the intended send time)", "target rate", "Latency by percentile"}, nil},
		{"ramp", func(t *testing.T, buf *bytes.Buffer) error { return htmlreport.Ramp(buf, realRamp(t)) }, 2,
			[]string{"Throughput and latency by load", "Steps", "saturation"}, nil},
		{"checks", func(t *testing.T, buf *bytes.Buffer) error {
			checked = realrun.Run(t, 400, func(c *gb.Config) {
				c.URL += "ok?status=200:90,503:10&seed=3"
				c.Checks = []string{"status==200", "status in 200,503"}
				c.Duration = time.Minute // a bound only: the 400 requests end the run; failed checks are not complete

			})
			return htmlreport.Run(buf, checked)
		}, 1, []string{"Checks", "✗ 1 of 2 checks failed", "status==200", "status in 200,503", "failed.check"}, func() []string {
			c := checked.Checks
			return []string{fmt.Sprintf("✗\tstatus==200\t%d\t%d", c[0].Passes, c[0].Fails), fmt.Sprintf("✓\tstatus in 200,503\t%d\t0\t100.00%%", c[1].Passes),
				fmt.Sprintf("%d responses ended as failed.check", checked.Counts.Outcomes[stats.FailCheck])}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := c.render(t, &buf); err != nil {
				t.Fatal(err)
			}
			page := filepath.Join(dir, c.name+".html")
			if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			seen := len(b.Requests())
			shot, l := view(t, b, page)
			for _, u := range b.Requests()[seen:] {
				if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
					t.Errorf("the page requested %s", u)
				}
			}
			texts := c.texts
			if c.counts != nil {
				texts = append(texts, c.counts()...)
			}
			for _, want := range texts {
				if !strings.Contains(l.Text, want) {
					t.Errorf("the page does not show %q", want)
				}
			}
			if len(l.Charts) < c.charts {
				t.Errorf("%d charts on the page, want at least %d", len(l.Charts), c.charts)
			}
			for i, r := range l.Charts {
				if c.name != "checks" { // a short run: its over-time charts may hold one point
					checkChart(t, i, shot, r)
				}
			}
			if d := os.Getenv("GB_HTML_SHOTS"); d != "" { // for people to look at
				os.WriteFile(filepath.Join(d, c.name+".png"), pngBytes(t, shot), 0o644)
				os.WriteFile(filepath.Join(d, c.name+".html"), buf.Bytes(), 0o644)
			}
		})
	}
}

// open points the browser at url and waits (up to a minute) until that
// page has loaded: its location is url and its readyState "complete".
func open(b *testsupport.Browser, url string) error {
	if err := b.Navigate(url); err != nil {
		return err
	}
	const probe = `JSON.stringify(document.readyState === 'complete' ? location.href : '')`
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var at string
		if err := b.Eval(probe, &at); err == nil && at == url {
			return nil
		}
	}
	return fmt.Errorf("%s did not load within a minute", url)
}

// fileURL is the file:// URL of path.
func fileURL(path string) string { return (&url.URL{Scheme: "file", Path: path}).String() }

// view opens page in the browser at pageWidth and returns a screenshot of
// the whole page and its layout.
func view(t *testing.T, b *testsupport.Browser, page string) (image.Image, layout) {
	t.Helper()
	if err := b.Viewport(pageWidth, 900); err != nil {
		t.Fatal(err)
	}
	if err := open(b, fileURL(page)); err != nil {
		t.Fatal(err)
	}
	var l layout
	if err := b.Eval(layoutJS, &l); err != nil {
		t.Fatal(err)
	}
	if err := b.Viewport(pageWidth, l.Height); err != nil {
		t.Fatal(err)
	}
	raw, err := b.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if got := img.Bounds().Dx(); got != pageWidth {
		t.Fatalf("screenshot is %d pixels wide, want %d", got, pageWidth)
	}
	return img, l
}

// checkChart checks that chart box i (page pixels) of the screenshot
// holds a drawn chart: at least 1% of its pixels are not white (axes,
// text and lines), and at least 300 are coloured, not grey (the lines:
// more than their legend swatches alone).
func checkChart(t *testing.T, i int, img image.Image, r [4]float64) {
	t.Helper()
	box := image.Rect(int(r[0])+3, int(r[1])+3, int(r[0]+r[2])-3, int(r[1]+r[3])-3).Intersect(img.Bounds())
	if box.Dx() < 400 || box.Dy() < 200 {
		t.Errorf("chart %d: box %v is too small to read", i, box)
		return
	}
	var inked, coloured int
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			r, g, b := cr>>8, cg>>8, cb>>8
			if r < 235 || g < 235 || b < 235 {
				inked++
			}
			if max(r, g, b)-min(r, g, b) > 60 {
				coloured++
			}
		}
	}
	area := box.Dx() * box.Dy()
	if inked*100 < area || coloured < 300 {
		t.Errorf("chart %d at %v looks blank: %d of %d pixels inked, %d coloured", i, box, inked, area, coloured)
	}
}

// pngBytes encodes img as PNG.
func pngBytes(t *testing.T, img image.Image) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestHTMLReportFromJSON renders a real run's page live and again from
// the run's JSON (as gb report --html does): the bytes are the same.
func TestHTMLReportFromJSON(t *testing.T) {
	r := realRun(t, 300, true)
	var live, again bytes.Buffer
	if err := htmlreport.Run(&live, r); err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back stats.Result
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.Series == nil || len(back.Series.Points) != len(r.Series.Points) {
		t.Fatalf("the series did not survive JSON: %+v", back.Series)
	}
	if err := htmlreport.Run(&again, &back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(live.Bytes(), again.Bytes()) {
		a, b := live.String(), again.String()
		i := 0
		for i < min(len(a), len(b)) && a[i] == b[i] {
			i++
		}
		t.Errorf("the page from JSON differs from the live one at byte %d: live %q, from JSON %q", i, a[i:min(i+120, len(a))], b[i:min(i+120, len(b))])
	}
}
