package check

import (
	"bytes"
	"fmt"
)

// Set is a run's checks, read-only once made and shared by every
// connection. A nil *Set has no checks.
type Set struct {
	Checks []Check
	body   bool // some check reads the body
	fields bool // some check reads a header field
}

// ParseAll parses each expression (at most MaxChecks) and returns the
// first error; nil and no error for none.
func ParseAll(exprs []string) (*Set, error) {
	if len(exprs) == 0 {
		return nil, nil
	}
	if len(exprs) > MaxChecks {
		return nil, fmt.Errorf("%d checks: at most %d", len(exprs), MaxChecks)
	}
	s := &Set{Checks: make([]Check, 0, len(exprs))}
	for _, e := range exprs {
		c, err := Parse(e)
		if err != nil {
			return nil, err
		}
		s.body = s.body || c.Subject == Body
		s.fields = s.fields || c.Subject == Header
		s.Checks = append(s.Checks, c)
	}
	return s, nil
}

// NeedsBody reports whether a check reads the body: without one, bodies
// are discarded unread as without checks.
func (s *Set) NeedsBody() bool { return s != nil && s.body }

// NeedsFields reports whether a check reads a header field.
func (s *Set) NeedsFields() bool { return s != nil && s.fields }

// Exprs returns the checks' expressions, in order.
func (s *Set) Exprs() []string {
	if s == nil {
		return nil
	}
	out := make([]string, len(s.Checks))
	for i := range s.Checks {
		out[i] = s.Checks[i].Expr
	}
	return out
}

// Response is what the checks see of one complete response. Fields and
// Body are read only by the checks that need them (NeedsFields,
// NeedsBody) and may be empty otherwise.
type Response struct {
	Status int    // the final status code
	Size   int64  // body bytes as received, the whole body
	Fields []byte // the header lines, each "Name: value" ended by "\n"
	Body   []byte // the body's first bytes (Eval reads at most MaxBody)
}

// Eval checks r against every check of s and returns the failures, bit i
// for s.Checks[i] (0: all passed), and the first failure's error (nil
// when none). It does not allocate.
func (s *Set) Eval(r *Response) (fails uint64, err error) {
	for i := range s.Checks {
		if !s.Checks[i].Holds(r) {
			if fails == 0 {
				err = s.Checks[i].Err
			}
			fails |= 1 << i
		}
	}
	return fails, err
}

// Holds reports whether r passes c.
func (c *Check) Holds(r *Response) bool {
	ok := c.positive(r)
	if c.Op.negated() {
		return !ok
	}
	return ok
}

// positive evaluates c's operator, or the positive one of a negation.
func (c *Check) positive(r *Response) bool {
	switch c.Subject {
	case Status:
		if c.Op == In || c.Op == NotIn {
			return c.inCodes(r.Status)
		}
		return c.compare(int64(r.Status))
	case Size:
		return c.compare(r.Size)
	case Body:
		return c.text(r.Body[:min(len(r.Body), MaxBody)])
	}
	return c.header(r.Fields)
}

// compare applies a numeric operator (Ne as Eq: Holds negates).
func (c *Check) compare(v int64) bool {
	switch c.Op {
	case Eq, Ne:
		return v == c.Num
	case Lt:
		return v < c.Num
	case Le:
		return v <= c.Num
	case Gt:
		return v > c.Num
	}
	return v >= c.Num
}

// inCodes reports whether status is in one of c's ranges.
func (c *Check) inCodes(status int) bool {
	for _, r := range c.Codes {
		if status >= r[0] && status <= r[1] {
			return true
		}
	}
	return false
}

// text applies a text operator (its positive form) to b.
func (c *Check) text(b []byte) bool {
	switch c.Op {
	case Contains, NotContains:
		return bytes.Contains(b, c.Text)
	case Matches, NotMatches:
		return c.Re.Match(b)
	}
	return bytes.Equal(b, c.Text)
}

// header reports whether one of the values of c's field satisfies c's
// positive operator.
func (c *Check) header(fields []byte) bool {
	for len(fields) > 0 {
		line := fields
		if i := bytes.IndexByte(fields, '\n'); i >= 0 {
			line, fields = fields[:i], fields[i+1:]
		} else {
			fields = nil
		}
		colon := bytes.IndexByte(line, ':')
		if colon < 0 || !equalFold(line[:colon], c.Name) {
			continue
		}
		if c.text(bytes.Trim(line[colon+1:], " \t\r")) {
			return true
		}
	}
	return false
}

// equalFold reports whether b and s are equal in ASCII case-insensitive
// comparison, without converting either.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		x, y := b[i], s[i]
		if x|0x20 != y|0x20 || (x|0x20 < 'a' || x|0x20 > 'z') && x != y {
			return false
		}
	}
	return true
}
