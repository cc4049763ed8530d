package chart

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// fontFamily is the charts' typeface in SVG: a sans-serif face of the
// reader's system (nothing is embedded or fetched).
const fontFamily = "Liberation Sans, Arial, Helvetica, sans-serif"

// SVG writes f as an SVG document: an <svg> element (no XML declaration,
// so it can be put in an HTML page as it is) f.Width points wide and
// f.PlotHeight points high per plot, its size in its viewBox, so that it
// scales to the width it is given. Every text is escaped.
func (f Figure) SVG(w io.Writer) error {
	b := bufio.NewWriter(w)
	width, h := f.size()
	h *= float64(len(f.Plots))
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="%s">`+"\n",
		num(width), num(h), num(width), num(h), fontFamily)
	f.draw(&svgCanvas{b})
	b.WriteString("</svg>\n")
	return b.Flush()
}

// svgCanvas writes SVG elements.
type svgCanvas struct{ b *bufio.Writer }

// num formats a coordinate with at most two decimals, without a NaN or
// an Inf (0 instead: the drawing code never passes one).
func num(v float64) string {
	if !finite(v) {
		v = 0
	}
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

// hex is c as #rrggbb.
func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

func (s *svgCanvas) rect(x0, y0, x1, y1 float64, c color.RGBA) {
	fmt.Fprintf(s.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n", num(x0), num(y0), num(x1-x0), num(y1-y0), hex(c))
}

func (s *svgCanvas) path(pts []pt, c color.RGBA, width float64, dashed bool) {
	if len(pts) < 2 {
		return
	}
	s.b.WriteString(`<path d="`)
	for i, p := range pts {
		if i == 0 {
			s.b.WriteString("M")
		} else {
			s.b.WriteString(" L")
		}
		s.b.WriteString(num(p.x) + " " + num(p.y))
	}
	fmt.Fprintf(s.b, `" fill="none" stroke="%s" stroke-width="%s" stroke-linejoin="round"`, hex(c), num(width))
	if dashed {
		fmt.Fprintf(s.b, ` stroke-dasharray="%s,%s"`, num(dashOn), num(dashOff))
	}
	s.b.WriteString("/>\n")
}

func (s *svgCanvas) dot(x, y, r float64, c color.RGBA) {
	fmt.Fprintf(s.b, `<circle cx="%s" cy="%s" r="%s" fill="%s"/>`+"\n", num(x), num(y), num(r), hex(c))
}

func (s *svgCanvas) text(x, y float64, str string, size float64, c color.RGBA, a anchor, vertical, bold bool) {
	if str == "" {
		return
	}
	fmt.Fprintf(s.b, `<text x="%s" y="%s" font-size="%s" fill="%s"`, num(x), num(y), num(size), hex(c))
	if a != start {
		s.b.WriteString(` text-anchor="` + [...]string{"start", "middle", "end"}[a] + `"`)
	}
	if vertical {
		fmt.Fprintf(s.b, ` transform="rotate(-90 %s %s)"`, num(x), num(y))
	}
	if bold {
		s.b.WriteString(` font-weight="bold"`)
	}
	s.b.WriteString(">")
	xml.EscapeText(s.b, []byte(str)) // invalid XML characters become U+FFFD
	s.b.WriteString("</text>\n")
}

// textWidth estimates the width of str in a sans-serif face: 0.56 em a
// character (digits are 0.556 em in Arial and Liberation Sans).
func (s *svgCanvas) textWidth(str string, size float64) float64 {
	return 0.56 * size * float64(utf8.RuneCountInString(str))
}

func (s *svgCanvas) ascent(size float64) float64 { return 0.72 * size }
