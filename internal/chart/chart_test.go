package chart_test

import (
	"bytes"
	"encoding/xml"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/chart"
)

var red = color.RGBA{0xd0, 0x10, 0x10, 0xff}

// plotOf is a plot with one named line through pts.
func plotOf(pts ...chart.XY) *chart.Plot {
	return &chart.Plot{Title: "a title\nsecond line", X: chart.Axis{Label: "x label"}, Y: chart.Axis{Label: "y label"},
		Lines: []chart.Line{{Name: "the line", Points: pts, Color: red, Width: 1.5, Mark: chart.Dot, Radius: 2}}}
}

// edgeFigures are figures at the edges of what the charts are given:
// no data, one point, huge and not finite values, a log axis over
// values <= 0, hostile text, a rule and labels outside the data.
func edgeFigures() map[string]chart.Figure {
	inf, nan := math.Inf(1), math.NaN()
	hostile := plotOf(chart.XY{X: 1, Y: 2}, chart.XY{X: 2, Y: 3})
	hostile.Title = "<script>alert(1)</script> & \x1b[31m \"q\" é"
	hostile.Lines[0].Name = "]]><x/>"
	hostile.Labels = []chart.Label{{X: 1.5, Y: 2.5, Text: "a < b", Color: red}, {X: 99, Y: 99, Text: "outside"}}
	hostile.Rules = []chart.Rule{{X: 1.5, Name: "rule", Color: red}, {X: -5}}
	logPlot := plotOf(chart.XY{X: 0, Y: 0}, chart.XY{X: 1, Y: -3}, chart.XY{X: 2, Y: 10}, chart.XY{X: 3, Y: 1e5})
	logPlot.Y.Log = true
	logEmpty := plotOf()
	logEmpty.X.Log, logEmpty.Y.Log = true, true
	return map[string]chart.Figure{
		"normal":     {Plots: []*chart.Plot{plotOf(chart.XY{X: 0, Y: 1}, chart.XY{X: 5, Y: 7}, chart.XY{X: 10, Y: 3})}},
		"empty":      {Plots: []*chart.Plot{plotOf()}},
		"no plots":   {},
		"one point":  {Plots: []*chart.Plot{plotOf(chart.XY{X: 3, Y: 3})}},
		"huge":       {Plots: []*chart.Plot{plotOf(chart.XY{X: -math.MaxFloat64, Y: 1e308}, chart.XY{X: math.MaxFloat64, Y: -1e308})}},
		"tiny":       {Plots: []*chart.Plot{plotOf(chart.XY{X: 1e-300, Y: 5e-324}, chart.XY{X: 2e-300, Y: 1e-323})}},
		"not finite": {Plots: []*chart.Plot{plotOf(chart.XY{X: nan, Y: 1}, chart.XY{X: 1, Y: inf}, chart.XY{X: 2, Y: 2}, chart.XY{X: -inf, Y: nan})}},
		"log":        {Plots: []*chart.Plot{logPlot}},
		"log empty":  {Plots: []*chart.Plot{logEmpty}},
		"hostile":    {Plots: []*chart.Plot{hostile}},
		"stacked":    {Plots: []*chart.Plot{plotOf(chart.XY{X: 1, Y: 1}), plotOf(chart.XY{X: 1, Y: 1e6})}},
		"side":       {Plots: []*chart.Plot{plotOf(chart.XY{X: 1, Y: 1}, chart.XY{X: 2, Y: 4})}, SideLegend: true},
	}
}

// TestSVGIsXML checks that the SVG of every edge figure parses as XML
// with an <svg> root, holds no NaN or Inf, and shows its texts (escaped,
// never as markup).
func TestSVGIsXML(t *testing.T) {
	for name, f := range edgeFigures() {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := f.SVG(&b); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, bad := range []string{"NaN", "Inf", "<script", "\x1b"} {
				if strings.Contains(out, bad) {
					t.Errorf("the SVG holds %q", bad)
				}
			}
			texts, root := parseSVG(t, out)
			if root != "svg" {
				t.Errorf("root element %q, want svg", root)
			}
			if len(f.Plots) == 0 {
				return
			}
			p := f.Plots[0]
			joined := strings.Join(texts, "|")
			for _, want := range append(strings.Split(p.Title, "\n"), p.X.Label, p.Y.Label, p.Lines[0].Name) {
				want = strings.ReplaceAll(want, "\x1b", "\uFFFD")
				if !strings.Contains(joined, want) {
					t.Errorf("the SVG's texts %q lack %q", joined, want)
				}
			}
		})
	}
}

// parseSVG decodes out as XML and returns its texts and its root
// element's name; invalid XML fails the test.
func parseSVG(t *testing.T, out string) (texts []string, root string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(out))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return texts, root
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, out)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
		case xml.CharData:
			if s := strings.TrimSpace(string(tok)); s != "" {
				texts = append(texts, s)
			}
		}
	}
}

// TestPNG decodes the PNG of a plot with a horizontal and a vertical
// line across the middle of its data: the image has the size asked for,
// and the lines' (red) colour runs most of the way across one row and down
// one column, both near the middle of the image.
func TestPNG(t *testing.T) {
	p := &chart.Plot{Title: "cross", X: chart.Axis{Label: "x", Max: 10}, Y: chart.Axis{Label: "y", Max: 10},
		Lines: []chart.Line{{Points: []chart.XY{{X: 0, Y: 5}, {X: 10, Y: 5}}, Color: red, Width: 2},
			{Points: []chart.XY{{X: 5, Y: 0}, {X: 5, Y: 10}}, Color: red, Width: 2}}}
	for _, width := range []int{1200, 600} {
		var b bytes.Buffer
		if err := (chart.Figure{Plots: []*chart.Plot{p, p}}).PNG(&b, width); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatal(err)
		}
		wantH := int(math.Round(2 * chart.PlotHeight * float64(width) / chart.Width))
		if got := img.Bounds(); got.Dx() != width || got.Dy() != wantH {
			t.Fatalf("image %v, want %dx%d", got, width, wantH)
		}
		isRed := func(x, y int) bool { // the line's colour, or that of its anti-aliased edge
			r, g, b, _ := img.At(x, y).RGBA()
			return r>>8 > g>>8+60 && r>>8 > b>>8+60
		}
		bestRow, rowLen, bestCol, colLen := 0, 0, 0, 0
		for y := 0; y < wantH/2; y++ { // the top plot
			n := 0
			for x := range width {
				if isRed(x, y) {
					n++
				}
			}
			if n > rowLen {
				bestRow, rowLen = y, n
			}
		}
		for x := range width {
			n := 0
			for y := 0; y < wantH/2; y++ {
				if isRed(x, y) {
					n++
				}
			}
			if n > colLen {
				bestCol, colLen = x, n
			}
		}
		if rowLen < width/2 || bestRow < wantH/8 || bestRow > wantH*3/8 {
			t.Errorf("width %d: the horizontal line's longest row is %d pixels at y %d", width, rowLen, bestRow)
		}
		if colLen < wantH/4 || bestCol < width/4 || bestCol > width*3/4 {
			t.Errorf("width %d: the vertical line's longest column is %d pixels at x %d", width, colLen, bestCol)
		}
	}
	if b := (chart.Figure{Plots: []*chart.Plot{p, p}, Width: 576, PlotHeight: 244.8}).Image(1200).Bounds(); b.Dx() != 1200 || b.Dy() != 1020 {
		t.Errorf("a figure 8 by 3.4 inches a plot, 1200 pixels wide: %v, want 1200x1020", b)
	}
	if err := (chart.Figure{Plots: []*chart.Plot{p}}).PNG(io.Discard, 99999); err == nil {
		t.Error("a PNG 99999 pixels wide: no error")
	}
}

// TestPNGEdges draws every edge figure as a PNG that decodes, with the
// size asked for and something drawn.
func TestPNGEdges(t *testing.T) {
	for name, f := range edgeFigures() {
		if len(f.Plots) == 0 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := f.PNG(&b, 800); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&b)
			if err != nil {
				t.Fatal(err)
			}
			if img.Bounds().Dx() != 800 {
				t.Errorf("%d pixels wide, want 800", img.Bounds().Dx())
			}
			dark := 0
			for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
				for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
					if r, _, _, _ := img.At(x, y).RGBA(); r < 0x4000 {
						dark++
					}
				}
			}
			if dark < 500 {
				t.Errorf("%d dark pixels: no axes or text drawn", dark)
			}
		})
	}
}
