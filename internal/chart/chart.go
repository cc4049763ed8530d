// Package chart draws gb's line charts (axes with round ticks on linear
// or log scales, lines, dots, crosses, dashed reference lines, text
// labels and a legend) as SVG text or as a PNG image, with the standard
// library and a bitmap font only: no font files, no vector graphics
// library. A Figure is one or more Plots stacked, sharing the width.
//
// Coordinates of the data are float64; NaN, ±Inf and (on a log axis)
// values <= 0 are not drawn, so no output ever holds a NaN or an Inf.
package chart

import (
	"image/color"
	"math"
)

// Tick is one tick of an axis: a labelled (major) tick, or a minor one
// when Label is "".
type Tick struct {
	Value float64
	Label string
}

// Axis is one axis of a Plot.
type Axis struct {
	Label string
	Log   bool // a log scale: values <= 0 are not drawn
	// Min is the axis's low end. On a log axis a Min <= 0 means the
	// smallest positive value of the data.
	Min float64
	// Max is the axis's high end; 0 (or anything <= Min) means the
	// largest value of the data, or Min+1 (Min*10 on a log axis) without
	// data.
	Max float64
	// Headroom is the fraction of the axis's length above the data kept
	// empty (for a legend): the axis's Max becomes Max/(1-Headroom) from
	// Min. Only for linear axes; 0 none.
	Headroom float64
	// Ticks are the axis's ticks; nil means automatic: round numbers (a
	// step of 1, 2, 2.5 or 5 times a power of ten) on a linear axis,
	// labelled powers of ten with minor ticks on a log axis.
	Ticks []Tick
}

// XY is one point of a Line.
type XY struct{ X, Y float64 }

// Mark is the shape drawn at each point of a Line.
type Mark int

const (
	NoMark Mark = iota
	Dot
	Cross
)

// Line is one series of a Plot: a polyline through its points, and/or a
// mark at each point.
type Line struct {
	Name   string     // its legend entry; "" none
	Points []XY       // in drawing order
	Color  color.RGBA // the zero value: the palette's colour of its place
	Width  float64    // of the line in points; 0 draws no line (marks only)
	Dashed bool       // dashes of about 4 points
	Mark   Mark
	Radius float64 // of the marks in points
}

// Label is a text at a data point, shifted by DX, DY points (positive DY
// goes up), its left end (or its right end with AlignRight) at the point
// and its baseline above it.
type Label struct {
	X, Y       float64
	Text       string
	Color      color.RGBA
	AlignRight bool
	DX, DY     float64
}

// Rule is a dashed vertical line across the whole data area at X (a
// mark such as a saturation point): it does not widen the axes' ranges.
type Rule struct {
	X     float64
	Name  string // its legend entry, after the lines'; "" none
	Color color.RGBA
}

// Plot is one chart: a title (lines separated by "\n"), two axes, a
// light grid at the labelled ticks, its lines, rules and labels, and a
// legend of the named lines and rules in its top left corner.
type Plot struct {
	Title  string
	X, Y   Axis
	Lines  []Line
	Rules  []Rule
	Labels []Label
}

// Figure is what is drawn: Plots stacked top to bottom, each the same
// height, their data areas aligned; with SideLegend, a single plot's
// legend goes in a column on its right instead of over its data.
type Figure struct {
	Plots      []*Plot
	SideLegend bool
	// Width and PlotHeight are the figure's width and each plot's height
	// in points; 0 means the package's Width and PlotHeight.
	Width, PlotHeight float64
}

// size returns f's width and plot height in points.
func (f Figure) size() (w, h float64) {
	w, h = f.Width, f.PlotHeight
	if !(w >= 100 && w <= 10000) {
		w = Width
	}
	if !(h >= 50 && h <= 10000) {
		h = PlotHeight
	}
	return w, h
}

// Palette is the Okabe-Ito colour-blind safe palette: a Line without a
// colour takes Palette[i % len] for its index i in the Plot.
var Palette = []color.RGBA{
	{0x00, 0x72, 0xb2, 0xff}, // blue
	{0xd5, 0x5e, 0x00, 0xff}, // vermillion
	{0x00, 0x9e, 0x73, 0xff}, // green
	{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	{0xe6, 0x9f, 0x00, 0xff}, // orange
	{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
}

// finite reports whether v is a number that can be drawn.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// color returns l's colour, or the palette's for index i.
func (l *Line) color(i int) color.RGBA {
	if l.Color.A == 0 {
		return Palette[i%len(Palette)]
	}
	return l.Color
}
