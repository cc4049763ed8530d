package testserver

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"time"
)

// shape is what the common parameters choose for one reply: the status
// code, the delay before the status line, and the body size in bytes.
type shape struct {
	code  int
	delay time.Duration
	size  int64
}

// shapeKeys names the query parameters of a shape. The long names status=,
// delay= and size= always work; an endpoint may add a short alias (s=, d=,
// code=, ms=).
type shapeKeys struct {
	status, delay string
}

// drawShape parses the weighted lists status=, delay= and size= (absent
// ones take def) and draws one shape. When any list has several values the
// draw uses the generator of seed= (default 0), in the order status, delay,
// size, so the same seed and request order give the same shapes.
func (s *Server) drawShape(q url.Values, def shape, keys shapeKeys) (shape, error) {
	status, err := listParam(q, def.code, parseStatus, keys.status, "status")
	if err != nil {
		return def, err
	}
	delay, err := listParam(q, def.delay, parseDelay, keys.delay, "delay")
	if err != nil {
		return def, err
	}
	size, err := listParam(q, def.size, func(v string) (int64, error) {
		return parseSize(v, maxBodySize)
	}, "size")
	if err != nil {
		return def, err
	}
	var seed uint64
	if v := q.Get("seed"); v != "" {
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			return def, fmt.Errorf("%w: seed %q", errSyntax, v)
		}
	}
	if !status.random() && !delay.random() && !size.random() {
		return shape{status.vals[0], delay.vals[0], size.vals[0]}, nil
	}
	var sh shape
	s.dice.roll(seed, func(r *rand.Rand) {
		sh = shape{status.pick(r), delay.pick(r), size.pick(r)}
	})
	return sh, nil
}

// listParam parses the first of keys present in q as a weighted list, or
// returns the list of def when none is.
func listParam[T any](q url.Values, def T, parse func(string) (T, error), keys ...string) (weighted[T], error) {
	for _, k := range keys {
		if v, ok := q[k]; ok && k != "" {
			return parseWeighted(v[0], parse)
		}
	}
	return one(def), nil
}
