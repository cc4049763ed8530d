package threshold

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gb-bench/gb/stats"
)

// Kind is what a threshold measures.
type Kind uint8

// The kinds of threshold.
const (
	Latency Kind = iota // a statistic of a latency phase, µs
	Errors              // failed requests: a count, or with Rate a share
	Non2xx              // non-2xx responses: a count, or with Rate a share
	RPS                 // complete responses per second
)

// Op is a comparison.
type Op string

// The comparisons.
const (
	Less      Op = "<"
	LessEq    Op = "<="
	Greater   Op = ">"
	GreaterEq Op = ">="
	Equal     Op = "="
)

// Threshold is one parsed expression. Value is in the kind's base unit:
// µs for a latency, a count, a share 0..1 when Rate, requests per second.
type Threshold struct {
	Expr  string      // the expression as given, trimmed
	Kind  Kind        //
	Phase stats.Phase // Latency: the phase (default stats.Total)
	Stat  string      // Latency: "p99.9", "mean", "min" or "max"
	P     float64     // Latency: the percentile 0 < P <= 100 when Stat is one
	Rate  bool        // Errors, Non2xx: Value is a share of the requests, not a count
	Op    Op
	Value float64
	Unit  string // Latency: the unit written ("us", "ms", "s"), used to show the measured value
}

// operators in the order Parse looks for them (two-character ones first).
var operators = []Op{LessEq, GreaterEq, "==", Less, Greater, Equal}

// Parse reads one expression. Its error is one line that quotes it.
func Parse(expr string) (Threshold, error) {
	t := Threshold{Expr: strings.TrimSpace(expr)}
	i, op := -1, Op("")
	for _, o := range operators {
		if j := strings.Index(t.Expr, string(o)); j > 0 && (i < 0 || j < i) {
			i, op = j, o
		}
	}
	if i < 0 {
		return t, t.errorf("no comparison: want e.g. p99<50ms, errors<0.1%%, rps>=1000")
	}
	t.Op = op
	if op == "==" {
		t.Op = Equal
	}
	metric := strings.TrimSpace(t.Expr[:i])
	value := strings.TrimSpace(t.Expr[i+len(op):])
	if err := t.parseMetric(metric); err != nil {
		return t, err
	}
	return t, t.parseValue(value)
}

// ParseAll parses every expression and returns the first error.
func ParseAll(exprs []string) ([]Threshold, error) {
	ts := make([]Threshold, 0, len(exprs))
	for _, e := range exprs {
		t, err := Parse(e)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// errorf returns an error naming t's expression.
func (t *Threshold) errorf(format string, args ...any) error {
	return fmt.Errorf("threshold %q: %s", t.Expr, fmt.Sprintf(format, args...))
}

// parseMetric reads the left side.
func (t *Threshold) parseMetric(m string) error {
	switch m {
	case "errors":
		t.Kind = Errors
		return nil
	case "non2xx":
		t.Kind = Non2xx
		return nil
	case "rps":
		t.Kind = RPS
		return nil
	}
	t.Kind, t.Phase = Latency, stats.Total
	for p := stats.Phase(0); p < stats.NumPhases; p++ {
		if rest, ok := strings.CutPrefix(m, p.String()+"."); ok {
			t.Phase, m = p, rest
			break
		}
	}
	switch m {
	case "mean", "min", "max":
		t.Stat = m
		return nil
	case "median":
		t.Stat, t.P = "p50", 50
		return nil
	}
	num, ok := strings.CutPrefix(m, "p")
	p, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || strings.ContainsAny(num, "eE+-") {
		return t.errorf("unknown metric %q: want [phase.]pN, mean, min, max, median, errors, non2xx or rps", m)
	}
	if p <= 0 || p > 100 {
		return t.errorf("percentile %v out of range: want 0 < p <= 100", num)
	}
	t.Stat, t.P = stats.PercentileName(p), p
	return nil
}

// latencyUnits are the time units in µs.
var latencyUnits = map[string]float64{"us": 1, "µs": 1, "ms": 1000, "s": 1e6}

// parseValue reads the right side for t's kind.
func (t *Threshold) parseValue(v string) error {
	end := len(v)
	for end > 0 && !strings.ContainsAny(v[end-1:end], "0123456789.") {
		end--
	}
	num, unit := v[:end], strings.TrimSpace(v[end:])
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" || x < 0 {
		return t.errorf("%q is not a non-negative number", num)
	}
	switch t.Kind {
	case Latency:
		scale, ok := latencyUnits[unit]
		if !ok {
			return t.errorf("a latency needs a unit: us, ms or s")
		}
		t.Value, t.Unit = x*scale, strings.Replace(unit, "µs", "us", 1)
	case Errors, Non2xx:
		switch unit {
		case "%":
			if x > 100 {
				return t.errorf("%v%% is more than all requests", x)
			}
			t.Value, t.Rate = x/100, true
		case "":
			if x != float64(int64(x)) {
				return t.errorf("a count is a whole number; write %v%% for a share", x)
			}
			t.Value = x
		default:
			return t.errorf("unit %q: a count takes none, a share takes %%", unit)
		}
	case RPS:
		if unit != "" && unit != "/s" {
			return t.errorf("unit %q: rps takes none", unit)
		}
		t.Value = x
	}
	return nil
}
