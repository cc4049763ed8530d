package htmlreport

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"

	"github.com/gb-bench/gb/internal/chart"
)

// pngWidth is RampPNG's width in pixels.
const pngWidth = 1200

// palette is the Okabe-Ito colour-blind safe palette, in the order the
// charts' lines take it.
var palette = chart.Palette

// markRGB is the colour of the saturation mark (markColor in the gnuplot
// script).
var markRGB = rgb(0xc0, 0x39, 0x2b)

// gradientStops are the colours of ordered lines (a ramp's steps), from
// the first to the last: viridis without its palest yellow.
var gradientStops = []color.RGBA{{0x44, 0x01, 0x54, 0xff}, {0x3b, 0x52, 0x8b, 0xff}, {0x21, 0x91, 0x8c, 0xff}, {0x5e, 0xc9, 0x62, 0xff}, {0xb5, 0xde, 0x2b, 0xff}}

// gradient returns the colour of line i of n ordered lines.
func gradient(i, n int) color.RGBA {
	if n < 2 {
		return gradientStops[0]
	}
	pos := float64(i) / float64(n-1) * float64(len(gradientStops)-1)
	k := min(int(pos), len(gradientStops)-2)
	f := pos - float64(k)
	a, b := gradientStops[k], gradientStops[k+1]
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + f*(float64(y)-float64(x)))) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xff}
}

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{R: r, G: g, B: b, A: 0xff} }

// newPlot returns an empty plot in gb's style: a title and labelled
// axes (chart draws the light grid and puts the legend in the top left
// corner).
func newPlot(title, xLabel, yLabel string) *chart.Plot {
	return &chart.Plot{Title: title, X: chart.Axis{Label: xLabel}, Y: chart.Axis{Label: yLabel}}
}

// series is one line of a chart.
type series struct {
	name   string
	xys    []chart.XY
	dashed bool       // a reference line (target rate)
	points bool       // mark each value with a dot
	color  color.RGBA // the zero value: the palette's next colour
}

// lineWidth is the width of the charts' lines in points.
const lineWidth = 1.5

// addLines adds the lines to p in palette order, each with a legend entry;
// lines without points are skipped.
func addLines(p *chart.Plot, lines []series) {
	for i, s := range lines {
		if len(s.xys) == 0 {
			continue
		}
		c := s.color
		if c.A == 0 {
			c = palette[i%len(palette)]
		}
		l := chart.Line{Name: s.name, Points: s.xys, Color: c, Width: lineWidth}
		if s.dashed {
			l.Color, l.Dashed = rgb(0x66, 0x66, 0x66), true
		} else if s.points {
			l.Mark, l.Radius = chart.Dot, 2.2
		}
		p.Lines = append(p.Lines, l)
	}
}

// fromZero makes p's y axis start at 0 and leaves room above the data
// for a legend of legendRows rows (each about 7% of the data area's
// height); a plot without data gets the range 0 to 1.
func fromZero(p *chart.Plot, legendRows int) {
	p.Y.Min, p.Y.Max = 0, 0
	p.Y.Headroom = 0.04 + 0.07*float64(max(legendRows, 1))
}

// render writes f in format "svg" or "png" (pngWidth pixels wide) to w.
func render(w io.Writer, format string, f chart.Figure) error {
	switch format {
	case "svg":
		return f.SVG(w)
	case "png":
		return f.PNG(w, pngWidth)
	}
	return fmt.Errorf("report: unknown chart format %q", format)
}

// inlineSVG renders f as an SVG element to put in an HTML page.
func inlineSVG(f chart.Figure) (string, error) {
	var b bytes.Buffer
	if err := f.SVG(&b); err != nil {
		return "", err
	}
	return b.String(), nil
}
