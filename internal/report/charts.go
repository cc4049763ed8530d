package report

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart geometry: one chart is svgWidth (pngWidth) by chartHeight; stacked
// charts (the ramp's) share the width. The HTML page scales its SVG charts
// to its width, about 1060 pixels.
const (
	svgWidth    = 10 * vg.Inch
	pngWidth    = 8 * vg.Inch
	chartHeight = 3.4 * vg.Inch
	pngDPI      = 150 // RampPNG's resolution: 1200 pixels wide
)

// chartFont is the typeface of every chart's text: Liberation Sans, one of
// the fonts gonum/plot compiles into the binary (go:embed), so no font is
// read from disk or fetched. The HTML report embeds the same face once.
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// palette is the Okabe-Ito colour-blind safe palette, in the order the
// charts' lines take it.
var palette = []color.Color{
	rgb(0x00, 0x72, 0xb2), // blue
	rgb(0xd5, 0x5e, 0x00), // vermillion
	rgb(0x00, 0x9e, 0x73), // green
	rgb(0xcc, 0x79, 0xa7), // reddish purple
	rgb(0xe6, 0x9f, 0x00), // orange
	rgb(0x56, 0xb4, 0xe9), // sky blue
	rgb(0x00, 0x00, 0x00), // black
}

// markRGB is the colour of the saturation mark (markColor in the gnuplot
// script).
var markRGB = rgb(0xc0, 0x39, 0x2b)

// gradientStops are the colours of ordered lines (a ramp's steps), from
// the first to the last: viridis without its palest yellow.
var gradientStops = []color.RGBA{{0x44, 0x01, 0x54, 0xff}, {0x3b, 0x52, 0x8b, 0xff}, {0x21, 0x91, 0x8c, 0xff}, {0x5e, 0xc9, 0x62, 0xff}, {0xb5, 0xde, 0x2b, 0xff}}

// gradient returns the colour of line i of n ordered lines.
func gradient(i, n int) color.Color {
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

func rgb(r, g, b uint8) color.Color { return color.RGBA{R: r, G: g, B: b, A: 0xff} }

// newPlot returns an empty plot in gb's style: a title, labelled axes,
// sans-serif text, a light grid and the legend in the top left corner.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(chartFont, 13)
	p.Title.Padding = 8
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(chartFont, 11)
		a.Tick.Label.Font = font.From(chartFont, 10)
		a.Padding = 2
		a.Tick.Marker = tidyTicks{}
	}
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.Legend.TextStyle.Font = font.From(chartFont, 10)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = 6, -4
	p.Legend.Padding = 2
	grid := plotter.NewGrid()
	grid.Vertical.Color = rgb(0xe4, 0xe4, 0xe4)
	grid.Horizontal.Color = rgb(0xe4, 0xe4, 0xe4)
	p.Add(grid)
	return p
}

// series is one line of a chart.
type series struct {
	name   string
	xys    plotter.XYs
	dashed bool        // a reference line (target rate)
	points bool        // mark each value with a dot
	color  color.Color // nil: the palette's next colour
}

// addLines adds the lines to p in palette order, each with a legend entry;
// lines without points are skipped.
func addLines(p *plot.Plot, lines []series) error {
	for i, s := range lines {
		if len(s.xys) == 0 {
			continue
		}
		l, err := plotter.NewLine(s.xys)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		c := s.color
		if c == nil {
			c = palette[i%len(palette)]
		}
		l.Color, l.Width = c, 1.5
		if s.dashed {
			l.Color, l.Dashes = rgb(0x66, 0x66, 0x66), []vg.Length{4, 3}
		}
		p.Add(l)
		if s.points && !s.dashed {
			sc, err := plotter.NewScatter(s.xys)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: 2.2, Shape: draw.CircleGlyph{}}
			p.Add(sc)
			p.Legend.Add(s.name, l, sc)
			continue
		}
		p.Legend.Add(s.name, l)
	}
	return nil
}

// fromZero makes p's y axis start at 0 and leaves room above the data
// for a legend of legendRows rows (each about 7% of the data area's
// height); a plot without data gets the range 0 to 1. Tick labels get as
// many decimals as their spacing needs ("250", not "250.00").
func fromZero(p *plot.Plot, legendRows int) {
	p.Y.Min = 0
	if !(p.Y.Max > 0) || math.IsInf(p.Y.Max, 0) {
		p.Y.Max = 1
	}
	p.Y.Max /= 1 - 0.04 - 0.07*float64(max(legendRows, 1))
	p.Y.Tick.Marker = tidyTicks{}
}

// tidyTicks are linear ticks at round values: 4 to 8 labelled ticks a
// step of 1, 2, 2.5 or 5 times a power of ten apart, labelled with just
// the decimals the step needs ("250", not "250.00"), and an unlabelled
// tick halfway between each.
type tidyTicks struct{}

// Ticks returns the ticks between lo and hi.
func (tidyTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	decimals := max(0, int(math.Ceil(-math.Log10(step)-1e-9)))
	if v := step * math.Pow10(decimals); math.Abs(v-math.Round(v)) > 1e-6 { // 2.5, 0.25 …
		decimals++
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo/step - 1e-9); i*step <= hi+step*1e-9; i++ {
		v := i * step
		if v == 0 {
			v = 0 // not -0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
		if half := v + step/2; half <= hi {
			ticks = append(ticks, plot.Tick{Value: half})
		}
	}
	return ticks
}

// figure is what render draws: one or more plots stacked, each
// chartHeight high; with sideLegend, a single plot's legend goes beside
// its data area, on the right, instead of over it (for many lines).
type figure struct {
	plots      []*plot.Plot
	sideLegend bool
}

// draw draws f on c over a white background.
func (f figure) draw(c vg.CanvasSizer) {
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	if f.sideLegend && len(f.plots) == 1 {
		drawSideLegend(dc, f.plots[0])
		return
	}
	rows := make([][]*plot.Plot, len(f.plots))
	for i, p := range f.plots {
		rows[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(f.plots), Cols: 1, PadTop: 4, PadBottom: 4, PadLeft: 4, PadRight: 12, PadY: 10}
	canvases := plot.Align(rows, tiles, dc)
	for i, p := range f.plots {
		p.Draw(canvases[i][0])
	}
}

// drawSideLegend draws p on the left of dc and its legend in a column on
// the right, level with the top of the data area.
func drawSideLegend(dc draw.Canvas, p *plot.Plot) {
	legend := p.Legend
	p.Legend = plot.NewLegend() // empty: p draws none
	box := legend.Rectangle(dc)
	plotArea, legendArea := dc, dc
	plotArea.Max.X -= box.Max.X - box.Min.X + 24
	legendArea.Min.X = plotArea.Max.X + 12
	legend.Top, legend.Left, legend.XOffs, legend.YOffs = true, true, 0, -36
	p.Draw(plotArea)
	legend.Draw(legendArea)
	p.Legend = legend
}

// render draws f and writes it in format "svg" or "png" to w. gonum/plot
// reports some bad input by panicking (a log axis over a non-positive
// range); render returns that as an error.
func render(w io.Writer, format string, f figure) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("report: drawing a chart: %v", v)
		}
	}()
	height := chartHeight * vg.Length(len(f.plots))
	var c vg.CanvasWriterTo
	switch format {
	case "svg":
		c = vgsvg.New(svgWidth, height)
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(pngWidth, height), vgimg.UseDPI(pngDPI))}
	default:
		return fmt.Errorf("report: unknown chart format %q", format)
	}
	f.draw(c)
	_, err = c.WriteTo(w)
	return err
}

// inlineSVG renders f as an SVG element to put in an HTML page: the XML
// declaration and generator comment that precede <svg> are dropped.
func inlineSVG(f figure) (string, error) {
	var b bytes.Buffer
	if err := render(&b, "svg", f); err != nil {
		return "", err
	}
	s := b.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return s, nil
}
