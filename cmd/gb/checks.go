package main

import (
	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/check"
	"github.com/gb-bench/gb/internal/getopt"
)

// checkChecks refuses, in the command line's words, what --check cannot
// be combined with (each expression was parsed with its flag).
func (o *options) checkChecks() error {
	c := &o.cfg
	if len(c.Checks) == 0 {
		return nil
	}
	s, err := check.ParseAll(c.Checks)
	switch {
	case err != nil:
		return getopt.Errorf(false, "--check: %v", err)
	case c.Protocol != "" && c.Protocol != gb.ProtocolHTTP1 && (s.NeedsBody() || s.NeedsFields()):
		return getopt.Errorf(false, "--check on a header or the body works on HTTP/1.1 only for now: not with --http2 or --h2c (status and size checks do)")
	case s.NeedsBody() && c.Compressed:
		return getopt.Errorf(false, "--check on the body and --compressed cannot be combined: the body is checked as received, and --compressed bodies arrive encoded")
	}
	return nil
}
