package main

// The command line's grammar shared by gb's commands: ab's options before
// and after the URL, and the value parsers that more than one command's
// option table uses. Each command's own table is in its own file.

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gb-bench/gb/internal/getopt"
)

// parseAll parses the options before the URL, as ab takes them, and
// those after it (or after several URLs), as hey and oha take them (gb
// URL -n 10).
func parseAll(args []string, specs []flagSpec, o *options) ([]string, error) {
	rest, err := getopt.Parse(args, specs, o)
	k := 0
	for k < len(rest) && !strings.HasPrefix(rest[k], "-") {
		k++
	}
	if err != nil || k == 0 || k == len(rest) {
		return rest, err
	}
	more, err := getopt.Parse(rest[k:], specs, o)
	if err == nil && len(more) > 0 { // URLs come together, before or after the options
		err = getopt.Errorf(true, "wrong number of arguments")
	}
	return append(rest[:k], more...), err
}

// parseShare parses --max-errors: a percentage from 0 to 100, "%"
// optional, as a share 0..1.
func parseShare(v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if err != nil || !(f >= 0 && f <= 100) {
		return 0, errors.New("want a percentage from 0 to 100 (1%)")
	}
	return f / 100, nil
}

// parseRate parses a rate in requests per second: a positive whole number.
func parseRate(v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > 1e9 {
		return 0, errors.New("want requests per second, a positive whole number")
	}
	return n, nil
}
