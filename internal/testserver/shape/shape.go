package shape

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"time"
)

// Shape is what the common parameters choose for one reply.
type Shape struct {
	Code  int           // status code
	Delay time.Duration // before the status line
	Size  int64         // body bytes
}

// Keys names the query parameters of a Shape. The long names status=,
// delay= and size= always work; an endpoint may add a short alias (s=, d=,
// code=, ms=) here; "" adds none.
type Keys struct {
	Status, Delay string
}

// Draw parses the weighted lists status=, delay= and size= (absent
// ones take def) and draws one shape. When any list has several values the
// draw uses the generator of seed= (default 0), in the order status, delay,
// size, so the same seed and request order give the same shapes.
func (d *Dice) Draw(q url.Values, def Shape, keys Keys) (Shape, error) {
	status, err := listParam(q, def.Code, ParseStatus, keys.Status, "status")
	if err != nil {
		return def, err
	}
	delay, err := listParam(q, def.Delay, ParseDelay, keys.Delay, "delay")
	if err != nil {
		return def, err
	}
	size, err := listParam(q, def.Size, func(v string) (int64, error) {
		return ParseSize(v, MaxBodySize)
	}, "size")
	if err != nil {
		return def, err
	}
	var seed uint64
	if v := q.Get("seed"); v != "" {
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			return def, fmt.Errorf("%w: seed %q", ErrSyntax, v)
		}
	}
	if !status.random() && !delay.random() && !size.random() {
		return Shape{status.vals[0], delay.vals[0], size.vals[0]}, nil
	}
	var sh Shape
	d.Roll(seed, func(r *rand.Rand) {
		sh = Shape{status.pick(r), delay.pick(r), size.pick(r)}
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
