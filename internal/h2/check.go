package h2

import (
	"github.com/gb-bench/gb/internal/check"
	"github.com/gb-bench/gb/stats"
)

// With checks (Config.Client.Checks) the client keeps what they read and
// nothing more. A header field check has every header block decoded whole
// (not only the connection's first: see feed), its fields gathered as
// "name: value\n" lines (in Client.fields while the block is decoded, then
// in the stream's slot); the decoder allocates the strings of each
// literal field it decodes, so header checks cost allocations per
// response. A body check keeps each body's first check.MaxBody bytes in
// the stream's slot, reused by the slot's next responses. Status and size
// checks keep nothing.

// keepBody adds DATA payload p to s's kept body, up to check.MaxBody
// bytes (with a body check: Client.keepBodies).
func (c *Client) keepBody(s *stream, p []byte) {
	if room := check.MaxBody - len(s.kbody); room > 0 {
		s.kbody = append(s.kbody, p[:min(len(p), room)]...)
	}
}

// keepField adds a decoded response field to the block's kept fields, as
// "name: value\n" (with a header check: Client.keepFields);
// pseudo-headers (":status") are left out, as HTTP/1.1's status line is.
func (c *Client) keepField(name, value string) {
	if len(name) == 0 || name[0] == ':' {
		return
	}
	c.fields = append(append(append(append(c.fields, name...), ": "...), value...), '\n')
}

// keepHeaders readies slot s for a final response whose header block just
// ended: its fields (when kept) and an empty body.
func (c *Client) keepHeaders(s *stream) {
	if c.keepFields {
		s.kfields = append(s.kfields[:0], c.fields...)
	}
	s.kbody = s.kbody[:0]
}

// checkResponse ends s, whose response is complete and well framed,
// against the run's checks (Config.Client.Checks): failed.check with the
// first failed check's error when it fails one, else ok or non2xx by its
// status.
func (c *Client) checkResponse(s *stream) {
	x, cs := s.x, c.cfg.Client.Checks
	r := check.Response{Status: x.Status, Size: x.Body, Fields: s.kfields, Body: s.kbody}
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
