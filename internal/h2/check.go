package h2

import (
	"github.com/gb-bench/gb/internal/check"
	"github.com/gb-bench/gb/stats"
)

// Supports reports whether an HTTP/2 client can run the checks s: status
// and size checks only for now (the header fields past :status are not
// decoded after a connection's first response, and DATA is not kept).
func Supports(s *check.Set) bool { return !s.NeedsBody() && !s.NeedsFields() }

// checkResponse ends s, whose response is complete and well framed,
// against the run's checks (Config.Client.Checks; status and size only,
// see Supports): failed.check with the first failed check's error when it
// fails one, else ok or non2xx by its status.
func (c *Client) checkResponse(s *stream) {
	x, cs := s.x, c.cfg.Client.Checks
	r := check.Response{Status: x.Status, Size: x.Body}
	fails, err := cs.Eval(&r)
	x.Checks, x.CheckFails = uint8(len(cs.Checks)), fails
	switch {
	case fails != 0:
		c.end(s, stats.FailCheck, err)
	case x.Status >= 200 && x.Status < 300:
		c.end(s, stats.OK, nil)
	default:
		c.end(s, stats.Non2xx, nil)
	}
}
