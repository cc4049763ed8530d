package gb

import (
	"errors"
	"fmt"
	"strings"
)

// A ConfigError is a Config (or an Option) that cannot run, found before
// any connection is made. It speaks the library's words: Error names
// Config fields ("Config.Rate needs Config.Requests or Config.Duration");
// a front end with words of its own renders the same message with
// Explain, naming its flags instead.
type ConfigError struct {
	// Field is the field at fault, as a selector from Config
	// ("Rate", "TLS.Ciphers", "Targets") or from an Option's value
	// ("Profile.URL"); "" when the fault is not one field's.
	Field string

	format string // fmt format; {Ref} and {Ref=value} name fields
	args   []any
	err    error // the cause Unwrap returns; nil = none
}

// ErrInvalidURL is the cause of a ConfigError for a URL that does not
// parse (errors.Is finds it).
var ErrInvalidURL = errors.New("invalid URL")

// configErr is a ConfigError about field. In format, {Name} refers to a
// field (Error writes "Config.Name"), {Name=value} to a field set to a
// value (`Config.Name "value"`); the args fill format's verbs. An error
// among args is the cause Unwrap returns.
func configErr(field, format string, args ...any) error {
	e := &ConfigError{Field: field, format: format, args: args}
	for _, a := range args {
		if err, ok := a.(error); ok {
			e.err = err
		}
	}
	return e
}

// within is e with a message of format and args, keeping its field and
// cause.
func (e *ConfigError) within(format string, args ...any) *ConfigError {
	return &ConfigError{Field: e.Field, format: format, args: args, err: e.err}
}

func (e *ConfigError) Error() string { return e.Explain(nil) }

// Unwrap returns the cause, if any.
func (e *ConfigError) Unwrap() error { return e.err }

// Explain renders the message naming each field reference with name(ref),
// ref being "Name" or "Name=value" as Refs lists them; where name is nil
// or returns "", the library's words are used.
func (e *ConfigError) Explain(name func(ref string) string) string {
	var b strings.Builder
	f := e.format
	for {
		i := strings.IndexByte(f, '{')
		j := strings.IndexByte(f[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(f)
			break
		}
		ref := f[i+1 : i+j]
		b.WriteString(f[:i])
		b.WriteString(strings.ReplaceAll(refWords(ref, name), "%", "%%"))
		f = f[i+j+1:]
	}
	return fmt.Sprintf(b.String(), e.args...)
}

// Refs lists the field references of the message, in order.
func (e *ConfigError) Refs() []string {
	var refs []string
	e.Explain(func(ref string) string { refs = append(refs, ref); return "" })
	return refs
}

// refWords names ref in the caller's words, or the library's.
func refWords(ref string, name func(string) string) string {
	if name != nil {
		if w := name(ref); w != "" {
			return w
		}
	}
	field, value, set := strings.Cut(ref, "=")
	if !strings.Contains(field, ".") || strings.HasPrefix(field, "TLS.") {
		field = "Config." + field
	}
	if set {
		return fmt.Sprintf("%s %q", field, value)
	}
	return field
}
