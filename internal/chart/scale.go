package chart

import (
	"math"
	"strconv"
)

// scale maps an axis's values to a fraction of its length (0 at lo, 1
// at hi), linearly or by their logarithm.
type scale struct {
	lo, hi float64
	log    bool
}

// at returns v's place on the axis, 0 to 1 inside it; ok is false for a
// value that cannot be drawn (NaN, ±Inf, <= 0 on a log axis).
func (s scale) at(v float64) (f float64, ok bool) {
	if !finite(v) || s.log && v <= 0 {
		return 0, false
	}
	if s.log {
		f = math.Log(v/s.lo) / math.Log(s.hi/s.lo)
	} else {
		f = (v - s.lo) / (s.hi - s.lo)
	}
	return f, finite(f)
}

// scaleOf returns a's scale for the values of one dimension of the data
// (pick returns it for a point).
func scaleOf(a *Axis, lines []Line, pick func(XY) float64) scale {
	dlo, dhi, any := math.Inf(1), math.Inf(-1), false
	for _, l := range lines {
		for _, p := range l.Points {
			v := pick(p)
			if !finite(v) || a.Log && v <= 0 {
				continue
			}
			dlo, dhi, any = min(dlo, v), max(dhi, v), true
		}
	}
	s := scale{lo: a.Min, hi: a.Max, log: a.Log}
	if !finite(s.lo) || s.log && s.lo <= 0 {
		s.lo = 1
		if s.log && any {
			s.lo = dlo
		} else if !s.log {
			s.lo = 0
		}
	}
	if !finite(s.hi) || s.hi <= s.lo {
		s.hi = s.lo + 1
		if any && dhi > s.lo {
			s.hi = dhi
		}
	}
	if !s.log && a.Headroom > 0 && a.Headroom < 1 {
		s.hi = s.lo + (s.hi-s.lo)/(1-a.Headroom)
	}
	if s.log && s.hi <= s.lo*1.0001 {
		s.hi = s.lo * 10
	}
	if !finite(s.hi-s.lo) || !finite(s.lo) { // a huge range: draw what fits
		s.lo, s.hi = 0, math.MaxFloat64/4
	}
	return s
}

// ticks returns a's ticks over s: its own, or automatic ones.
func (s scale) ticks(a *Axis) []Tick {
	if a.Ticks != nil {
		return a.Ticks
	}
	if s.log {
		return LogTicks(s.lo, s.hi)
	}
	return NiceTicks(s.lo, s.hi)
}

// NiceTicks returns linear ticks at round values from lo to hi: 4 to 8
// labelled ticks a step of 1, 2, 2.5 or 5 times a power of ten apart,
// labelled with just the decimals the step needs ("250", not "250.00";
// never "-0"), and an unlabelled tick halfway between each. An empty or
// not finite range gives one tick at lo (none when lo is not finite).
func NiceTicks(lo, hi float64) []Tick {
	if !finite(lo) {
		return nil
	}
	if !(hi > lo) || !finite(hi-lo) {
		return []Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	step := niceStep((hi - lo) / 6)
	decimals := max(0, int(math.Ceil(-math.Log10(step)-1e-9)))
	if v := step * math.Pow10(decimals); math.Abs(v-math.Round(v)) > 1e-6 { // 2.5, 0.25 …
		decimals++
	}
	var ticks []Tick
	for i := math.Ceil(lo/step - 1e-9); i*step <= hi+step*1e-9 && len(ticks) < 40; i++ {
		v := i * step
		if !finite(v) { // hi near the largest float64: hi+step*1e-9 is +Inf
			break
		}
		if v == 0 {
			v = 0 // not -0
		}
		ticks = append(ticks, Tick{Value: v, Label: tickLabel(v, decimals)})
		if half := v + step/2; half <= hi {
			ticks = append(ticks, Tick{Value: half})
		}
	}
	return ticks
}

// tickLabel formats a tick's value with decimals decimals, or in
// exponent form ("1.25e+300") when that would be longer than 12
// characters.
func tickLabel(v float64, decimals int) string {
	if s := strconv.FormatFloat(v, 'f', decimals, 64); len(s) <= 12 {
		return s
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// niceStep is the smallest of 1, 2, 2.5, 5 and 10 times a power of ten
// that is at least raw.
func niceStep(raw float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			return m * mag
		}
	}
	return 10 * mag
}

// LogTicks returns the ticks of a log axis from lo to hi (both > 0):
// each power of ten labelled ("0.01", "1", "100"), and unlabelled minor
// ticks at 2 to 9 times it.
func LogTicks(lo, hi float64) []Tick {
	if !(lo > 0) || !(hi > lo) || !finite(hi) {
		return nil
	}
	var ticks []Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		decade := math.Pow(10, e)
		for k := 1.0; k < 10; k++ {
			v := decade * k
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := Tick{Value: v}
			if k == 1 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}
