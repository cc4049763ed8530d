package gb

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
)

// The formats of a targets file (ReadTargetsFormat, TargetReader,
// gb --targets-format).
const (
	TargetsHTTP = "http" // vegeta's http format (see ReadTargets); "" means it too
	TargetsJSON = "json" // vegeta's JSON format: one object a line (see TargetReader)
)

// ErrNoTargets is what a Config.Targeter returns when it has no more
// targets: the load then ends as when its request count is reached.
var ErrNoTargets = errors.New("no more targets")

// maxTargetLine is the longest line a targets file may have (a JSON
// line carries its body, base64-encoded).
const maxTargetLine = 16 << 20

// ReadTargets reads a targets file in vegeta's http format (path "-" is
// the standard input):
//
//	# a comment: the whole line
//	GET http://localhost:8080/a
//	X-Account: 8675309
//
//	POST http://localhost:8080/things
//	Content-Type: application/json
//	@things.json
//
// Each target is a "METHOD URL" line (METHOD in capitals), then header
// lines "Name: value", then optionally "@path", a file whose content is
// the body (the path as written: relative to the current directory). A
// blank line, the @path line or the next "METHOD URL" line ends a target,
// so a list of "GET URL" lines with no blank line between them is a list
// of targets, as in vegeta. A body file must be a regular file, as -p's
// (a device or a pipe could be endless or never end). Every problem is
// one *ConfigError naming the file and line ("targets.txt:3: want
// \"METHOD URL\", got \"GETT\""); the URLs are checked as NewPlan checks
// them.
func ReadTargets(path string) ([]Target, error) { return ReadTargetsFormat(path, TargetsHTTP) }

// ParseTargets parses a targets file's content in the http format (see
// ReadTargets); name is the file's name in error messages and in each
// Target's Source.
func ParseTargets(name string, r io.Reader) ([]Target, error) {
	return ParseTargetsFormat(name, r, TargetsHTTP)
}

// ReadTargetsFormat is ReadTargets for a file in format: TargetsHTTP
// (and "") or TargetsJSON (see TargetReader).
func ReadTargetsFormat(path, format string) ([]Target, error) {
	tr, err := OpenTargets(path, format)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	return tr.all()
}

// ParseTargetsFormat is ParseTargets for content in format.
func ParseTargetsFormat(name string, r io.Reader, format string) ([]Target, error) {
	tr, err := NewTargetReader(name, r, format)
	if err != nil {
		return nil, err
	}
	return tr.all()
}

// TargetReader reads targets one at a time from a targets file or
// stream, in the http format (see ReadTargets) or the JSON format: one
// JSON object a line, as vegeta writes it,
//
//	{"method": "POST", "url": "http://localhost:8080/things", "header": {"Content-Type": ["application/json"]}, "body": "eyJhIjoxfQ=="}
//
// method and url required; header maps a name to its values (each value
// one header line; names sent in sorted order); body is base64 (JSON's
// encoding of bytes); blank lines are skipped, unknown fields ignored.
// It holds one line (and in the http format one target) at a time, so an
// endless stream is read in bounded memory. Its Next is a
// Config.Targeter; a TargetReader is not safe for concurrent use (gb
// never calls a Targeter concurrently).
type TargetReader struct {
	sc     *bufio.Scanner
	json   bool
	p      targetsParser // the http format's state; its name and line serve both formats
	closer io.Closer     // the file OpenTargets opened; nil = none
	read   int64         // targets Next returned
}

// NewTargetReader reads targets in format (TargetsHTTP, "" or
// TargetsJSON) from r; name is r's name in error messages and in each
// Target's Source ("targets.json:3").
func NewTargetReader(name string, r io.Reader, format string) (*TargetReader, error) {
	tr := &TargetReader{sc: bufio.NewScanner(r), p: targetsParser{name: name}}
	switch format {
	case "", TargetsHTTP:
	case TargetsJSON:
		tr.json = true
	default:
		return nil, configErr("Targets", "unknown targets format %q (want %s or %s)", format, TargetsHTTP, TargetsJSON)
	}
	tr.sc.Buffer(make([]byte, 64<<10), maxTargetLine)
	return tr, nil
}

// OpenTargets opens a targets file (path "-" is the standard input) for
// reading in format; Close closes it.
func OpenTargets(path, format string) (*TargetReader, error) {
	if path == "-" {
		return NewTargetReader("stdin", os.Stdin, format)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, configErr("Targets", "cannot read targets file %s: %v", path, unwrapPath(err))
	}
	tr, err := NewTargetReader(path, f, format)
	if err != nil {
		f.Close()
		return nil, err
	}
	tr.closer = f
	return tr, nil
}

// Close closes the file OpenTargets opened (not the standard input).
func (tr *TargetReader) Close() error {
	if tr.closer == nil {
		return nil
	}
	return tr.closer.Close()
}

// Next replaces *t with the next target. It returns ErrNoTargets at the
// end of the input, and on a bad line a *ConfigError naming the file and
// line ("targets.json:3: ..."), as ReadTargets does; an input without a
// single target is a *ConfigError too ("targets.json: no targets").
func (tr *TargetReader) Next(t *Target) error {
	err := tr.next(t)
	switch {
	case err == nil:
		tr.read++
	case err == ErrNoTargets && tr.read == 0:
		want := `"METHOD URL" lines`
		if tr.json {
			want = `one JSON object a line`
		}
		return configErr("Targets", "%s: no targets (want %s)", tr.p.name, want)
	}
	return err
}

// next is Next without the count.
func (tr *TargetReader) next(t *Target) error {
	if tr.json {
		return tr.nextJSON(t)
	}
	p := &tr.p
	for {
		if p.ready(false) {
			*t = p.pop()
			return nil
		}
		if !tr.sc.Scan() {
			if err := tr.scanErr(); err != nil {
				return err
			}
			if p.ready(true) {
				*t = p.pop()
				return nil
			}
			return ErrNoTargets
		}
		p.line++
		if err := p.parse(strings.TrimSpace(tr.sc.Text())); err != nil {
			return err
		}
	}
}

// scanErr is the scanner's error, naming the line it stopped in.
func (tr *TargetReader) scanErr() error {
	if err := tr.sc.Err(); err != nil {
		return configErr("Targets", "%s:%d: %v", tr.p.name, tr.p.line+1, err)
	}
	return nil
}

// all reads every target to the end; none at all is an error (Next's).
func (tr *TargetReader) all() ([]Target, error) {
	var ts []Target
	for {
		var t Target
		err := tr.Next(&t)
		if err == ErrNoTargets {
			return ts, nil
		}
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
}

// jsonTarget is a line of the JSON format.
type jsonTarget struct {
	Method string              `json:"method"`
	URL    string              `json:"url"`
	Header map[string][]string `json:"header"`
	Body   []byte              `json:"body"` // base64 in the line
}

// nextJSON is Next for the JSON format.
func (tr *TargetReader) nextJSON(t *Target) error {
	p := &tr.p
	for tr.sc.Scan() {
		p.line++
		line := strings.TrimSpace(tr.sc.Text())
		if line == "" {
			continue
		}
		var j jsonTarget
		if err := json.Unmarshal([]byte(line), &j); err != nil {
			return p.errorf("want a JSON object with method, url, header and body: %v", err)
		}
		return p.jsonTarget(&j, t)
	}
	if err := tr.scanErr(); err != nil {
		return err
	}
	return ErrNoTargets
}

// jsonTarget checks a JSON line's target and puts it in t.
func (p *targetsParser) jsonTarget(j *jsonTarget, t *Target) error {
	switch {
	case j.Method == "":
		return p.errorf("want a \"method\"")
	case strings.ContainsAny(j.Method, " \t\r\n"):
		return p.errorf("invalid method %q", j.Method)
	case j.URL == "":
		return p.errorf("want a \"url\"")
	}
	if _, err := parseTarget(j.URL); err != nil {
		return targetErr(p.where(), j.URL, err)
	}
	*t = Target{Method: j.Method, URL: j.URL, Body: j.Body, Source: p.where()}
	for _, name := range slices.Sorted(maps.Keys(j.Header)) {
		for _, v := range j.Header[name] {
			t.Headers = append(t.Headers, fmt.Sprintf("%s: %s", name, v))
		}
	}
	return nil
}
