package check

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// MaxBody is how many bytes of a body the body checks read: a longer body
// is checked on its first MaxBody bytes (its size check sees it whole).
const MaxBody = 1 << 20

// MaxChecks is the most checks a Set holds (one bit each in Eval's
// answer).
const MaxChecks = 64

// Subject is what a check looks at.
type Subject uint8

// The subjects.
const (
	Status Subject = iota // the final status code
	Size                  // the body's length in bytes, as received
	Body                  // the body's first MaxBody bytes
	Header                // the values of one header field
)

// Op is a check's comparison.
type Op uint8

// The operators. Each negated one (Ne, NotIn, NotContains, NotMatches)
// holds exactly when its positive one does not.
const (
	Eq Op = iota
	Ne
	Lt
	Le
	Gt
	Ge
	In
	NotIn
	Contains
	NotContains
	Matches
	NotMatches
)

// opNames spells the operators as Parse reads them; "=" is also Eq.
var opNames = [...]string{
	Eq: "==", Ne: "!=", Lt: "<", Le: "<=", Gt: ">", Ge: ">=", In: "in", NotIn: "!in",
	Contains: "contains", NotContains: "!contains", Matches: "matches", NotMatches: "!matches",
}

func (o Op) String() string { return opNames[o] }

// negated reports whether o is the negation of a positive operator.
func (o Op) negated() bool { return o == Ne || o == NotIn || o == NotContains || o == NotMatches }

// Check is one parsed expression.
type Check struct {
	Expr    string         // the expression as given, trimmed
	Subject Subject        //
	Name    string         // Header: the field's name as written
	Op      Op             //
	Num     int64          // Status, Size with a comparison: the number
	Codes   [][2]int       // Status with In, NotIn: inclusive ranges of codes
	Text    []byte         // Header with Eq, Ne; Contains, NotContains: the text
	Re      *regexp.Regexp // Matches, NotMatches: the expression
	Err     error          // "check failed: <Expr>", the exchange's error when it fails
}

// Parse reads one expression. Its error is one line that quotes it.
func Parse(expr string) (Check, error) {
	c := Check{Expr: strings.TrimSpace(expr)}
	rest, err := c.parseSubject(c.Expr)
	if err != nil {
		return c, err
	}
	value, err := c.parseOp(strings.TrimLeft(rest, " \t"))
	if err != nil {
		return c, err
	}
	if err := c.parseValue(strings.TrimSpace(value)); err != nil {
		return c, err
	}
	c.Err = errors.New("check failed: " + c.Expr)
	return c, nil
}

// Error is Parse's error: one line that quotes the expression.
type Error struct {
	Expr string // the expression, trimmed
	Msg  string // what is wrong with it
}

func (e *Error) Error() string { return fmt.Sprintf("check %q: %s", e.Expr, e.Msg) }

// errorf returns an *Error naming c's expression.
func (c *Check) errorf(format string, args ...any) error {
	return &Error{Expr: c.Expr, Msg: fmt.Sprintf(format, args...)}
}

// parseSubject reads the subject at the start of s and returns the rest.
func (c *Check) parseSubject(s string) (string, error) {
	for _, sub := range []struct {
		word string
		s    Subject
	}{{"status", Status}, {"size", Size}, {"body", Body}} {
		if rest, ok := strings.CutPrefix(s, sub.word); ok {
			c.Subject = sub.s
			return rest, nil
		}
	}
	if rest, ok := strings.CutPrefix(s, "header["); ok {
		name, rest, ok := strings.Cut(rest, "]")
		if !ok || !isToken(name) {
			return "", c.errorf("want header[Name] with a field name, e.g. header[Content-Type]")
		}
		c.Subject, c.Name = Header, name
		return rest, nil
	}
	return "", c.errorf("unknown subject: want status, size, body or header[Name] first")
}

// isToken reports whether s is a non-empty HTTP token (a field name).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b <= ' ' || b >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, b) >= 0 {
			return false
		}
	}
	return true
}

// symbols are the symbolic operators in the order parseOp tries them
// (two characters first).
var symbols = []struct {
	s  string
	op Op
}{{"==", Eq}, {"!=", Ne}, {"<=", Le}, {">=", Ge}, {"<", Lt}, {">", Gt}, {"=", Eq}}

// words are the word operators, negations first.
var words = []Op{NotContains, NotMatches, NotIn, Contains, Matches, In}

// allowed lists each subject's operators, for parseOp and its errors.
var allowed = [...]struct {
	ops  []Op
	want string
}{
	Status: {[]Op{Eq, Ne, Lt, Le, Gt, Ge, In, NotIn}, "==, !=, <, <=, >, >=, in or !in"},
	Size:   {[]Op{Eq, Ne, Lt, Le, Gt, Ge}, "==, !=, <, <=, > or >="},
	Body:   {[]Op{Contains, NotContains, Matches, NotMatches}, "contains, !contains, matches or !matches"},
	Header: {[]Op{Eq, Ne, Contains, NotContains, Matches, NotMatches}, "==, !=, contains, !contains, matches or !matches"},
}

// parseOp reads the operator at the start of s and returns the value
// after it.
func (c *Check) parseOp(s string) (string, error) {
	op, rest, ok := cutOp(s)
	a := allowed[c.Subject]
	if !ok {
		return "", c.errorf("no operator after %s: want %s", c.subject(), a.want)
	}
	for _, o := range a.ops {
		if o == op {
			c.Op = op
			return rest, nil
		}
	}
	return "", c.errorf("%s takes %s, not %s", c.subject(), a.want, op)
}

// cutOp cuts the operator off the start of s. A word operator must be
// followed by a space.
func cutOp(s string) (Op, string, bool) {
	for _, sym := range symbols {
		if rest, ok := strings.CutPrefix(s, sym.s); ok {
			return sym.op, rest, true
		}
	}
	for _, w := range words {
		rest, ok := strings.CutPrefix(s, w.String())
		if ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			return w, rest, true
		}
	}
	return 0, "", false
}

// subject names c's subject for errors.
func (c *Check) subject() string {
	switch c.Subject {
	case Status:
		return "status"
	case Size:
		return "size"
	case Body:
		return "body"
	}
	return "header[" + c.Name + "]"
}

// parseValue reads the value for c's subject and operator.
func (c *Check) parseValue(v string) error {
	if v == "" {
		return c.errorf("no value after %s", c.Op)
	}
	switch {
	case c.Op == In || c.Op == NotIn:
		return c.parseCodes(v)
	case c.Subject == Status || c.Subject == Size:
		return c.parseNumber(v)
	}
	text, err := unquote(v)
	if err != nil {
		return c.errorf("%v", err)
	}
	switch c.Op {
	case Matches, NotMatches:
		re, err := regexp.Compile(text)
		if err != nil {
			return c.errorf("bad regular expression: %v", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		c.Re = re
	case Contains, NotContains:
		if text == "" {
			return c.errorf("contains needs a non-empty text")
		}
		c.Text = []byte(text)
	default:
		c.Text = []byte(text)
	}
	return nil
}

// unquote returns v, or the Go string v spells when it starts and ends
// with a double quote.
func unquote(v string) (string, error) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return v, nil
	}
	s, err := strconv.Unquote(v)
	if err != nil {
		return "", errors.New(`text in double quotes must be a Go string literal (escape \ and " inside them)`)
	}
	return s, nil
}

// parseNumber reads a status code or a byte count.
func (c *Check) parseNumber(v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err != nil || n < 0 || strings.ContainsAny(v, "+-"):
		return c.errorf("%q is not a non-negative whole number", v)
	case c.Subject == Status && (n < 100 || n > 999):
		return c.errorf("status %d out of range: want 100 to 999", n)
	}
	c.Num = n
	return nil
}

// parseCodes reads in's list of codes and ranges.
func (c *Check) parseCodes(v string) error {
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, errA := code(lo)
		b, errB := a, errA
		if isRange {
			b, errB = code(hi)
		}
		if errA != nil || errB != nil || b < a {
			return c.errorf("%q is not a status code or range (e.g. 200,204 or 200-299)", part)
		}
		c.Codes = append(c.Codes, [2]int{a, b})
	}
	return nil
}

// code reads one status code.
func code(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 100 || n > 999 || strings.ContainsAny(s, "+") {
		return 0, errors.New("bad code")
	}
	return n, nil
}
