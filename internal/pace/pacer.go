package pace

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Pacer says when requests are due. Implementations must be safe for
// concurrent use (they are values without mutable state).
type Pacer interface {
	// Due returns when the request with index i (0-based, in dispatch
	// order) should be sent, as an offset from the run's start.
	Due(i int64) time.Duration
	// Pace is vegeta's shape of the same schedule: given the time elapsed
	// since the start and the number of requests sent so far, how long to
	// wait before the next one (0 when it is already due or late).
	Pace(elapsed time.Duration, hits int64) time.Duration
	// Scheduled returns how many requests are due at or before elapsed.
	Scheduled(elapsed time.Duration) int64
	// Within returns how many requests a run of length d schedules: those
	// whose whole interval, from Due(i) to Due(i+1), ends by d. A run of
	// -t d at rate R sends floor(R·d) requests, at 0, 1/R, ..., as
	// vegeta's attack does (it counts its hits from 1/R): none is due at d.
	Within(d time.Duration) int64
}

// Constant is an open-model schedule of Freq requests every Per: request i
// is due at t0 + i·Per/Freq, computed from the start every time, never by
// adding up intervals, so no rounding error accumulates.
type Constant struct {
	Freq int64         // requests per Per; must be positive
	Per  time.Duration // the period; must be positive
}

var _ Pacer = Constant{}

// Due returns i·Per/Freq without overflow for any run shorter than 290 years.
func (c Constant) Due(i int64) time.Duration {
	q, r := i/c.Freq, i%c.Freq
	return time.Duration(q)*c.Per + time.Duration(mulDiv(r, int64(c.Per), c.Freq))
}

// Pace returns the wait until request number hits is due.
func (c Constant) Pace(elapsed time.Duration, hits int64) time.Duration {
	return max(c.Due(hits)-elapsed, 0)
}

// Scheduled returns the number of indexes i with Due(i) <= elapsed, that
// is ceil((elapsed+1ns)·Freq/Per): request 0 is due at once.
func (c Constant) Scheduled(elapsed time.Duration) int64 {
	if elapsed < 0 {
		return 0
	}
	x := elapsed + 1
	q, r := int64(x/c.Per), int64(x%c.Per)
	return q*c.Freq + ceilMulDiv(r, c.Freq, int64(c.Per))
}

// Within returns floor(d·Freq/Per), the number of indexes i >= 1 with
// Due(i) <= d; 0 for d <= 0.
func (c Constant) Within(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	q, r := int64(d/c.Per), int64(d%c.Per)
	hi, lo := bits.Mul64(uint64(r), uint64(c.Freq))
	f, _ := bits.Div64(hi, lo, uint64(c.Per)) // r < Per, so the quotient is below Freq
	return q*c.Freq + int64(f)
}

// Rate returns the rate in requests per second.
func (c Constant) Rate() float64 { return float64(c.Freq) / c.Per.Seconds() }

// Interval returns the mean time between two requests.
func (c Constant) Interval() time.Duration { return c.Per / time.Duration(c.Freq) }

// String writes the rate as ParseRate reads it.
func (c Constant) String() string {
	if c.Per == time.Second {
		return strconv.FormatInt(c.Freq, 10)
	}
	return fmt.Sprintf("%d/%s", c.Freq, c.Per)
}

// mulDiv returns a·b/c for 0 <= a < c, b >= 0, exact where a·b fits in
// 128 bits' worth of float64 precision and exact in integers otherwise.
func mulDiv(a, b, c int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a <= math.MaxInt64/b {
		return a * b / c
	}
	return int64(float64(a) * float64(b) / float64(c))
}

// ceilMulDiv returns ceil(a·b/c) for 0 <= a < c, b > 0.
func ceilMulDiv(a, b, c int64) int64 {
	if a == 0 {
		return 0
	}
	if a <= (math.MaxInt64-c)/b {
		return (a*b + c - 1) / c
	}
	return int64(math.Ceil(float64(a) * float64(b) / float64(c)))
}

// ErrRate is wrapped by ParseRate's errors.
var ErrRate = errors.New("want requests per second (2000) or requests per period (50/1s, 1/100ms)")

// ParseRate reads "2000" (per second) or "N/period" with a Go duration
// period ("50/1s", "1/100ms"; a bare unit such as "50/s" means 1 of it).
func ParseRate(s string) (Constant, error) {
	freq, per, hasPer := strings.Cut(s, "/")
	n, err := strconv.ParseInt(freq, 10, 64)
	if err != nil || n <= 0 {
		return Constant{}, ErrRate
	}
	c := Constant{Freq: n, Per: time.Second}
	if hasPer {
		if per != "" && (per[0] < '0' || per[0] > '9') {
			per = "1" + per
		}
		d, err := time.ParseDuration(per)
		if err != nil || d <= 0 {
			return Constant{}, ErrRate
		}
		c.Per = d
	}
	if c.Interval() <= 0 {
		return Constant{}, fmt.Errorf("%w: more than one request per nanosecond", ErrRate)
	}
	return c, nil
}
