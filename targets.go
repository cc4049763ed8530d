package gb

import (
	"errors"
	"fmt"
	"strconv"
)

// targetList is the load's targets: URL (with the Config's Method, Body
// and no Headers of its own) when set, then Targets.
func (c *Config) targetList() []Target {
	if c.URL == "" && len(c.Targets) > 0 {
		return c.Targets
	}
	return append([]Target{{URL: c.URL, Method: c.Method, Body: c.Body, Source: "the URL"}}, c.Targets...)
}

// parseFirst parses the first target's URL, the one a Result's Target
// describes; its error names the target when it is one of Targets.
func (c *Config) parseFirst() (*target, error) {
	first := c.targetList()[0]
	t, err := parseTarget(first.URL)
	if err != nil && c.URL == "" {
		return nil, targetErr(first.source(0), first.URL, err)
	}
	if t != nil {
		t.ownBody = c.URL == ""
	}
	return t, err
}

// firstErr puts the first target's source ("targets.txt:1") before err
// when the first target is one of Targets, as prepareTargets does for the
// others; nil stays nil.
func (c *Config) firstErr(err error) error {
	if err == nil || c.URL != "" || len(c.Targets) == 0 {
		return err
	}
	return targetErr(c.Targets[0].source(0), "", err)
}

// firstTarget is the Config of the first target alone.
func (c *Config) firstTarget() *Config { return c.forTarget(&c.targetList()[0]) }

// forTarget is c as it applies to target t: t's URL, method, body, and
// c's headers followed by t's.
func (c *Config) forTarget(t *Target) *Config {
	tc := *c
	tc.URL, tc.Method, tc.Body, tc.Targets = t.URL, t.Method, t.Body, nil
	if len(t.Headers) > 0 {
		tc.Headers = append(append([]string{}, c.Headers...), t.Headers...)
	}
	return &tc
}

// source names target i of the load's list in an error message.
func (t *Target) source(i int) string {
	if t.Source != "" {
		return t.Source
	}
	return "target " + strconv.Itoa(i+1)
}

// targetErr puts the target's source before err's message, keeping its
// kind: a *ConfigError stays one (exit 22), without ab's usage text.
func targetErr(src, url string, err error) error {
	ce, ok := err.(*ConfigError)
	switch {
	case !ok:
		return fmt.Errorf("%s: %w", src, err)
	case errors.Is(err, ErrInvalidURL):
		return ce.within("%s: invalid URL %q", src, hideCredentials(url))
	}
	return ce.within("%s: "+ce.format, append([]any{src}, ce.args...)...)
}

// idempotent reports whether a request of method may be sent again after
// the keep-alive close race (RFC 9110 §9.2.2).
func idempotent(method string) bool {
	switch method {
	case "GET", "HEAD", "PUT", "DELETE", "OPTIONS":
		return true
	}
	return false
}
