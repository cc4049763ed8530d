package gb

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// targetsParser is the http format's state: the targets read and not
// yet taken (pop), and whether the last one still takes header and body
// lines.
type targetsParser struct {
	name    string
	line    int
	targets []Target
	open    bool // the last target takes more lines
}

// parse takes one line, trimmed.
func (p *targetsParser) parse(s string) error {
	switch {
	case strings.HasPrefix(s, "#"):
		return nil
	case s == "":
		p.open = false
		return nil
	case !p.open:
		return p.request(s)
	case strings.HasPrefix(s, "@"):
		return p.body(s[1:])
	case isRequestLine(s):
		return p.request(s)
	}
	name, _, ok := strings.Cut(s, ":")
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return p.errorf("want a \"Name: value\" header, an @body line or a blank line, got %q", s)
	}
	t := &p.targets[len(p.targets)-1]
	t.Headers = append(t.Headers, s)
	return nil
}

// request starts a target at a "METHOD URL" line.
func (p *targetsParser) request(s string) error {
	f := strings.Fields(s)
	if len(f) != 2 || !isMethod(f[0]) {
		return p.errorf("want \"METHOD URL\", got %q", s)
	}
	if _, err := parseTarget(f[1]); err != nil {
		return targetErr(p.where(), f[1], err)
	}
	p.targets = append(p.targets, Target{Method: f[0], URL: f[1], Source: p.where()})
	p.open = true
	return nil
}

// body reads the @path line's file into the last target, which it ends.
func (p *targetsParser) body(path string) error {
	if path == "" {
		return p.errorf("want \"@path\" of a body file, got \"@\"")
	}
	fi, err := os.Stat(path)
	if err == nil && !fi.Mode().IsRegular() {
		return p.errorf("body file %s is not a regular file", strconv.Quote(path))
	}
	var b []byte
	if err == nil {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return p.errorf("cannot read body file %s: %v", strconv.Quote(path), unwrapPath(err))
	}
	if b == nil {
		b = []byte{} // an empty file is an empty body, sent with Content-Length: 0
	}
	p.targets[len(p.targets)-1].Body = b
	p.open = false
	return nil
}

// isRequestLine reports whether s, where a header could follow, is a
// "METHOD URL" line that starts the next target instead: two words, the
// first a method. A header's name ends with its colon, so no header is
// taken for one ("Name: value" splits into a first word with a colon).
func isRequestLine(s string) bool {
	f := strings.Fields(s)
	return len(f) == 2 && isMethod(f[0])
}

// isMethod reports whether s is a method as the format writes one: a
// word of capital letters (and '-' or '_' after the first).
func isMethod(s string) bool {
	for i, c := range s {
		if !('A' <= c && c <= 'Z' || i > 0 && (c == '-' || c == '_')) {
			return false
		}
	}
	return s != ""
}

// ready reports whether the first target read is whole: the next one
// started, or a blank or @body line ended it, or eof.
func (p *targetsParser) ready(eof bool) bool {
	return len(p.targets) > 1 || len(p.targets) == 1 && (!p.open || eof)
}

// pop takes the first target read.
func (p *targetsParser) pop() Target {
	t := p.targets[0]
	n := copy(p.targets, p.targets[1:])
	p.targets[n] = Target{}
	p.targets = p.targets[:n]
	return t
}

func (p *targetsParser) where() string { return fmt.Sprintf("%s:%d", p.name, p.line) }

func (p *targetsParser) errorf(format string, a ...any) error {
	return configErr("Targets", "%s: %s", p.where(), fmt.Sprintf(format, a...))
}
