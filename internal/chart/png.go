package chart

import (
	"bufio"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// maxPNGWidth bounds the PNG's width in pixels (and so its memory).
const maxPNGWidth = 8000

// PNG writes f as a PNG image width pixels wide, each plot as high as
// f's proportions make it (width*PlotHeight/Width pixels by default); its text is in a 7 by 13 pixel bitmap font,
// whatever the width. A width outside 100 to 8000 pixels is an error.
func (f Figure) PNG(w io.Writer, width int) error {
	if width < 100 || width > maxPNGWidth {
		return errors.New("chart: a PNG is 100 to 8000 pixels wide")
	}
	img := f.Image(width)
	b := bufio.NewWriter(w)
	if err := png.Encode(b, img); err != nil {
		return err
	}
	return b.Flush()
}

// Image draws f on an image width pixels wide (clamped to 100..8000), as
// PNG does.
func (f Figure) Image(width int) *image.RGBA {
	width = min(max(width, 100), maxPNGWidth)
	fw, fh := f.size()
	k := float64(width) / fw
	h := int(math.Round(fh * k * float64(len(f.Plots))))
	c := &pngCanvas{img: image.NewRGBA(image.Rect(0, 0, width, max(h, 1))), k: k}
	f.draw(c)
	return c.img
}

// pngCanvas draws on an image, k pixels a point, with anti-aliased lines
// and discs and the basicfont 7x13 face.
type pngCanvas struct {
	img *image.RGBA
	k   float64
}

// face is the PNG's font: fixed width, ASCII.
var face = basicfont.Face7x13

// blend paints pixel (x, y) with c at coverage a (0..1).
func (p *pngCanvas) blend(x, y int, c color.RGBA, a float64) {
	if a <= 0 || !(image.Point{x, y}.In(p.img.Rect)) {
		return
	}
	a = min(a, 1)
	i := p.img.PixOffset(x, y)
	px := p.img.Pix[i : i+4 : i+4]
	mix := func(d, s uint8) uint8 { return uint8(math.Round(float64(d)*(1-a) + float64(s)*a)) }
	px[0], px[1], px[2], px[3] = mix(px[0], c.R), mix(px[1], c.G), mix(px[2], c.B), 0xff
}

func (p *pngCanvas) rect(x0, y0, x1, y1 float64, c color.RGBA) {
	r := image.Rect(int(math.Round(x0*p.k)), int(math.Round(y0*p.k)), int(math.Round(x1*p.k)), int(math.Round(y1*p.k))).Intersect(p.img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			p.blend(x, y, c, 1)
		}
	}
}

func (p *pngCanvas) path(pts []pt, c color.RGBA, width float64, dashed bool) {
	hw := max(width*p.k, 1) / 2
	for _, seg := range dashes(pts, dashed) {
		for i := 1; i < len(seg); i++ {
			p.segment(seg[i-1], seg[i], hw, c)
		}
	}
}

// segment strokes a-b (in points) hw pixels either side.
func (p *pngCanvas) segment(a, b pt, hw float64, c color.RGBA) {
	ax, ay, bx, by := a.x*p.k, a.y*p.k, b.x*p.k, b.y*p.k
	r := image.Rect(int(math.Floor(min(ax, bx)-hw-1)), int(math.Floor(min(ay, by)-hw-1)),
		int(math.Ceil(max(ax, bx)+hw+1)), int(math.Ceil(max(ay, by)+hw+1))).Intersect(p.img.Rect)
	dx, dy := bx-ax, by-ay
	l2 := dx*dx + dy*dy
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cx, cy := float64(x)+0.5, float64(y)+0.5
			t := 0.0
			if l2 > 0 {
				t = min(max(((cx-ax)*dx+(cy-ay)*dy)/l2, 0), 1)
			}
			d := math.Hypot(cx-(ax+t*dx), cy-(ay+t*dy))
			p.blend(x, y, c, hw+0.5-d)
		}
	}
}

// dashes cuts the polyline pts into dashes of dashOn points dashOff
// apart, or returns it whole.
func dashes(pts []pt, dashed bool) [][]pt {
	if !dashed {
		return [][]pt{pts}
	}
	var out [][]pt
	var cur []pt
	on, left := true, dashOn
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		for {
			seg := math.Hypot(b.x-a.x, b.y-a.y)
			if on && len(cur) == 0 {
				cur = []pt{a}
			}
			if seg <= left {
				left -= seg
				if on {
					cur = append(cur, b)
				}
				break
			}
			f := left / seg
			m := pt{a.x + f*(b.x-a.x), a.y + f*(b.y-a.y)}
			if on {
				out, cur = append(out, append(cur, m)), nil
				left = dashOff
			} else {
				left = dashOn
			}
			on, a = !on, m
		}
	}
	if len(cur) > 1 {
		out = append(out, cur)
	}
	return out
}

func (p *pngCanvas) dot(x, y, r float64, c color.RGBA) {
	cx, cy, rr := x*p.k, y*p.k, max(r*p.k, 1)
	box := image.Rect(int(cx-rr-1), int(cy-rr-1), int(cx+rr+2), int(cy+rr+2)).Intersect(p.img.Rect)
	for py := box.Min.Y; py < box.Max.Y; py++ {
		for px := box.Min.X; px < box.Max.X; px++ {
			d := math.Hypot(float64(px)+0.5-cx, float64(py)+0.5-cy)
			p.blend(px, py, c, rr+0.5-d)
		}
	}
}

// ascii replaces what the font lacks (all but printable ASCII) with '?'.
func ascii(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r < 0x20 || r > 0x7e {
			r = '?'
		}
		b = append(b, byte(r))
	}
	return string(b)
}

func (p *pngCanvas) text(x, y float64, s string, size float64, c color.RGBA, a anchor, vertical, bold bool) {
	s = ascii(s)
	if s == "" {
		return
	}
	mask := textMask(s, bold)
	w, h := mask.Rect.Dx(), mask.Rect.Dy()
	off := [...]int{0, w / 2, w}[a]
	bx, by := int(math.Round(x*p.k)), int(math.Round(y*p.k)) // the baseline's anchor
	for my := 0; my < h; my++ {
		for mx := 0; mx < w; mx++ {
			v := mask.AlphaAt(mx, my).A
			if v == 0 {
				continue
			}
			// The mask's baseline is at row face.Ascent.
			dx, dy := mx-off, my-face.Ascent
			if vertical { // turned a quarter left: right becomes up
				dx, dy = dy, -dx
			}
			p.blend(bx+dx, by+dy, c, float64(v)/255)
		}
	}
}

// textMask draws s in the font on an alpha mask, its baseline at row
// face.Ascent; bold draws it twice, a pixel apart.
func textMask(s string, bold bool) *image.Alpha {
	w := len(s) * face.Advance
	if bold {
		w++
	}
	m := image.NewAlpha(image.Rect(0, 0, w, face.Height))
	d := font.Drawer{Dst: m, Src: image.Opaque, Face: face}
	for i := range 1 + btoi(bold) {
		d.Dot = fixed.P(i, face.Ascent)
		d.DrawString(s)
	}
	return m
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (p *pngCanvas) textWidth(s string, size float64) float64 {
	return float64(len(ascii(s))*face.Advance) / p.k
}

func (p *pngCanvas) ascent(size float64) float64 { return float64(face.Ascent) / p.k }
