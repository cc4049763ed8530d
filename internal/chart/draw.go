package chart

import (
	"image/color"
	"math"
	"strings"
)

// Geometry, in points (1/72 inch; one SVG user unit): a plot is Width by
// PlotHeight unless its Figure says otherwise, and the text sizes are
// those of gb's charts.
const (
	Width      = 720.0
	PlotHeight = 244.8

	titleSize = 13.0
	labelSize = 11.0
	tickSize  = 10.0
	pad       = 4.0 // around a plot
	tickLen   = 4.0 // of a labelled tick; a minor one is half
	swatch    = 20.0
	dashOn    = 4.0
	dashOff   = 3.0
	ruleWidth = 1.5
)

var (
	black    = color.RGBA{0, 0, 0, 0xff}
	white    = color.RGBA{0xff, 0xff, 0xff, 0xff}
	gridGrey = color.RGBA{0xe4, 0xe4, 0xe4, 0xff}
)

// anchor is which point of a text its x is.
type anchor int

const (
	start anchor = iota
	middle
	end
)

// pt is a point on the canvas in points, y down.
type pt struct{ x, y float64 }

// canvas is what a Figure is drawn on: an SVG document or an image, both
// addressed in points with y going down.
type canvas interface {
	rect(x0, y0, x1, y1 float64, c color.RGBA) // filled
	path(pts []pt, c color.RGBA, width float64, dashed bool)
	dot(x, y, r float64, c color.RGBA) // a filled disc
	// text draws s with its baseline at y (at x, reading bottom to top,
	// when vertical), anchored at x (at y when vertical).
	text(x, y float64, s string, size float64, c color.RGBA, a anchor, vertical, bold bool)
	textWidth(s string, size float64) float64
	ascent(size float64) float64 // the height above the baseline
}

// rect is a rectangle on the canvas: x0 < x1, y0 < y1 (y0 the top).
type rect struct{ x0, y0, x1, y1 float64 }

// draw draws f on c, which is f.size() big per plot.
func (f Figure) draw(c canvas) {
	width, height := f.size()
	c.rect(0, 0, width, height*float64(len(f.Plots)), white)
	side := f.SideLegend && len(f.Plots) == 1
	left := 0.0
	for _, p := range f.Plots {
		left = max(left, p.leftMargin(c, width))
	}
	for i, p := range f.Plots {
		box := rect{pad, float64(i)*height + pad, width - 12, float64(i+1)*height - pad}
		if side {
			box.x1 = width - pad - p.legendWidth(c) - 12
		}
		p.draw(c, box, left, side)
	}
}

// leftMargin is the room p's y axis takes left of its data area.
func (p *Plot) leftMargin(c canvas, width float64) float64 {
	s := scaleOf(&p.Y, p.Lines, func(q XY) float64 { return q.Y })
	w := 0.0
	for _, t := range s.ticks(&p.Y) {
		w = max(w, c.textWidth(t.Label, tickSize))
	}
	return c.ascent(labelSize)*1.3 + 6 + min(w, width/4) + tickLen + 2
}

// draw draws p in box, its data area left of box's left side.
func (p *Plot) draw(c canvas, box rect, left float64, side bool) {
	titles := strings.Split(p.Title, "\n")
	if p.Title == "" {
		titles = nil
	}
	lineH := c.ascent(titleSize) * 1.45
	bottom := tickLen + 2 + c.ascent(tickSize)*1.3 + 4 + c.ascent(labelSize)*1.3
	area := rect{box.x0 + left, box.y0 + float64(len(titles))*lineH + 8, box.x1, box.y1 - bottom}
	if area.x1-area.x0 < 10 || area.y1-area.y0 < 10 {
		return // no room to draw in
	}
	xs := scaleOf(&p.X, p.Lines, func(q XY) float64 { return q.X })
	ys := scaleOf(&p.Y, p.Lines, func(q XY) float64 { return q.Y })
	pr := projection{area, xs, ys}
	xt, yt := xs.ticks(&p.X), ys.ticks(&p.Y)
	p.grid(c, pr, xt, yt)
	for i := range p.Lines {
		pr.line(c, &p.Lines[i], i)
	}
	for _, r := range p.Rules {
		if f, ok := xs.at(r.X); ok && f >= 0 && f <= 1 {
			x := area.x0 + f*(area.x1-area.x0)
			c.path([]pt{{x, area.y0}, {x, area.y1}}, r.Color, ruleWidth, true)
		}
	}
	for _, l := range p.Labels {
		pr.label(c, l)
	}
	pr.axes(c, xt, yt)
	c.text((area.x0+area.x1)/2, box.y1-c.ascent(labelSize)*0.3, p.X.Label, labelSize, black, middle, false, false)
	c.text(box.x0+c.ascent(labelSize), (area.y0+area.y1)/2, p.Y.Label, labelSize, black, middle, true, false)
	for i, t := range titles {
		c.text((box.x0+box.x1)/2, box.y0+float64(i)*lineH+c.ascent(titleSize)*1.15, t, titleSize, black, middle, false, true)
	}
	if side {
		p.legend(c, box.x1+12, area.y0)
	} else {
		p.legend(c, area.x0+6, area.y0+4)
	}
}

// projection places data values in a plot's data area.
type projection struct {
	area   rect
	xs, ys scale
}

// at returns the canvas point of q; ok is false when q cannot be drawn.
func (pr projection) at(q XY) (pt, bool) {
	fx, okx := pr.xs.at(q.X)
	fy, oky := pr.ys.at(q.Y)
	a := pr.area
	return pt{a.x0 + fx*(a.x1-a.x0), a.y1 - fy*(a.y1-a.y0)}, okx && oky
}

// inside reports whether p lies in the data area (with a little slack
// for marks on its edges).
func (pr projection) inside(p pt) bool {
	const e = 0.5
	a := pr.area
	return p.x >= a.x0-e && p.x <= a.x1+e && p.y >= a.y0-e && p.y <= a.y1+e
}

// grid draws the light lines at the labelled ticks.
func (p *Plot) grid(c canvas, pr projection, xt, yt []Tick) {
	a := pr.area
	for _, t := range xt {
		if f, ok := pr.xs.at(t.Value); ok && t.Label != "" && f >= 0 && f <= 1 {
			x := a.x0 + f*(a.x1-a.x0)
			c.path([]pt{{x, a.y0}, {x, a.y1}}, gridGrey, 1, false)
		}
	}
	for _, t := range yt {
		if f, ok := pr.ys.at(t.Value); ok && t.Label != "" && f >= 0 && f <= 1 {
			y := a.y1 - f*(a.y1-a.y0)
			c.path([]pt{{a.x0, y}, {a.x1, y}}, gridGrey, 1, false)
		}
	}
}

// line draws l (index i in its plot), cut to the data area; a point that
// cannot be drawn breaks the line.
func (pr projection) line(c canvas, l *Line, i int) {
	col := l.color(i)
	if l.Width > 0 {
		var run []pt
		flush := func() {
			for _, seg := range clipPath(run, pr.area) {
				c.path(seg, col, l.Width, l.Dashed)
			}
			run = run[:0]
		}
		for _, q := range l.Points {
			p, ok := pr.at(q)
			if !ok {
				flush()
				continue
			}
			run = append(run, p)
		}
		flush()
	}
	for _, q := range l.Points {
		if p, ok := pr.at(q); ok && pr.inside(p) {
			mark(c, l.Mark, p, l.Radius, col)
		}
	}
}

// mark draws the mark m of radius r at p.
func mark(c canvas, m Mark, p pt, r float64, col color.RGBA) {
	switch m {
	case Dot:
		c.dot(p.x, p.y, r, col)
	case Cross:
		d := r / math.Sqrt2
		c.path([]pt{{p.x - d, p.y - d}, {p.x + d, p.y + d}}, col, 1.5, false)
		c.path([]pt{{p.x - d, p.y + d}, {p.x + d, p.y - d}}, col, 1.5, false)
	}
}

// label draws l at its data point, when that is in the data area.
func (pr projection) label(c canvas, l Label) {
	p, ok := pr.at(XY{l.X, l.Y})
	if !ok || !pr.inside(p) {
		return
	}
	a := start
	if l.AlignRight {
		a = end
	}
	c.text(p.x+l.DX, p.y-l.DY, l.Text, tickSize, l.Color, a, false, false)
}

// axes draws the axis lines along the data area's bottom and left sides,
// their ticks (outside) and the ticks' labels.
func (pr projection) axes(c canvas, xt, yt []Tick) {
	a := pr.area
	c.path([]pt{{a.x0, a.y1}, {a.x1, a.y1}}, black, 0.5, false)
	c.path([]pt{{a.x0, a.y0}, {a.x0, a.y1}}, black, 0.5, false)
	for _, t := range xt {
		f, ok := pr.xs.at(t.Value)
		if !ok || f < -1e-9 || f > 1+1e-9 {
			continue
		}
		x, n := a.x0+f*(a.x1-a.x0), tickLen/2
		if t.Label != "" {
			n = tickLen
			c.text(x, a.y1+tickLen+2+c.ascent(tickSize), t.Label, tickSize, black, middle, false, false)
		}
		c.path([]pt{{x, a.y1}, {x, a.y1 + n}}, black, 0.5, false)
	}
	for _, t := range yt {
		f, ok := pr.ys.at(t.Value)
		if !ok || f < -1e-9 || f > 1+1e-9 {
			continue
		}
		y, n := a.y1-f*(a.y1-a.y0), tickLen/2
		if t.Label != "" {
			n = tickLen
			c.text(a.x0-tickLen-2, y+c.ascent(tickSize)/2, t.Label, tickSize, black, end, false, false)
		}
		c.path([]pt{{a.x0 - n, y}, {a.x0, y}}, black, 0.5, false)
	}
}

// legendEntries are p's named lines, then its named rules, as lines.
func (p *Plot) legendEntries() []Line {
	var out []Line
	for i, l := range p.Lines {
		if l.Name != "" {
			l.Color = l.color(i)
			out = append(out, l)
		}
	}
	for _, r := range p.Rules {
		if r.Name != "" {
			out = append(out, Line{Name: r.Name, Color: r.Color, Width: ruleWidth, Dashed: true})
		}
	}
	return out
}

// legendWidth is the width of p's legend.
func (p *Plot) legendWidth(c canvas) float64 {
	w := 0.0
	for _, l := range p.legendEntries() {
		w = max(w, c.textWidth(l.Name, tickSize))
	}
	return swatch + 4 + w
}

// legend draws an entry per named line and rule of p, from (x, y) down:
// a swatch of the line and its mark, and its name.
func (p *Plot) legend(c canvas, x, y float64) {
	rowH := c.ascent(tickSize) * 1.6
	for _, l := range p.legendEntries() {
		mid := y + rowH/2
		if l.Width > 0 {
			c.path([]pt{{x, mid}, {x + swatch, mid}}, l.Color, l.Width, l.Dashed)
		}
		mark(c, l.Mark, pt{x + swatch/2, mid}, l.Radius, l.Color)
		c.text(x+swatch+4, mid+c.ascent(tickSize)/2, l.Name, tickSize, black, start, false, false)
		y += rowH
	}
}

// clipPath cuts the polyline pts to r: the runs of it inside r.
func clipPath(pts []pt, r rect) [][]pt {
	var out [][]pt
	var cur []pt
	for i := 1; i < len(pts); i++ {
		a, b, ok := clipSegment(pts[i-1], pts[i], r)
		if !ok {
			if len(cur) > 0 {
				out, cur = append(out, cur), nil
			}
			continue
		}
		if len(cur) == 0 || cur[len(cur)-1] != a {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = []pt{a}
		}
		cur = append(cur, b)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// clipSegment cuts the segment a-b to r (Liang-Barsky); ok is false when
// none of it is inside.
func clipSegment(a, b pt, r rect) (pt, pt, bool) {
	const e = 0.5 // lines along an edge stay
	t0, t1 := 0.0, 1.0
	dx, dy := b.x-a.x, b.y-a.y
	for _, c := range [4][2]float64{{-dx, a.x - (r.x0 - e)}, {dx, r.x1 + e - a.x}, {-dy, a.y - (r.y0 - e)}, {dy, r.y1 + e - a.y}} {
		p, q := c[0], c[1]
		if p == 0 {
			if q < 0 {
				return a, b, false
			}
			continue
		}
		t := q / p
		if p < 0 {
			t0 = max(t0, t)
		} else {
			t1 = min(t1, t)
		}
	}
	if t0 > t1 {
		return a, b, false
	}
	return pt{a.x + t0*dx, a.y + t0*dy}, pt{a.x + t1*dx, a.y + t1*dy}, true
}
