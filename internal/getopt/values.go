package getopt

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// Count parses a request count: digits with an optional k (×1000) or m
// (×1000000) suffix.
func Count(v string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(v, "k"):
		mult, v = 1000, v[:len(v)-1]
	case strings.HasSuffix(v, "m"):
		mult, v = 1000000, v[:len(v)-1]
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, errors.New("want a whole number (k and m suffixes allowed)")
	}
	if n > (1<<62)/mult {
		return 0, errors.New("too large")
	}
	return n * mult, nil
}

// Seconds parses ab's seconds, whole or fractional ("30", "1.5"), or a Go
// duration ("1.5s", "2m"); the result must be positive.
func Seconds(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if f, ferr := strconv.ParseFloat(v, 64); ferr == nil {
		if !(f > 0 && f <= 1e8) {
			return 0, errors.New("want a positive number of seconds")
		}
		d, err = time.Duration(f*float64(time.Second)), nil
	}
	if err != nil || d <= 0 {
		return 0, errors.New("want seconds (30, 1.5) or a duration (1.5s, 2m)")
	}
	return d, nil
}

// Int parses a whole number.
func Int(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, errors.New("want a whole number")
	}
	return n, nil
}

// Positive parses a whole number above zero.
func Positive(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, errors.New("want a positive whole number")
	}
	return n, nil
}
