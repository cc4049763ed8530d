package gb

import (
	"github.com/gb-bench/gb/internal/check"
)

// compileChecks parses Config.Checks (nil when there are none). What
// cannot run is a *ConfigError.
func (c *Config) compileChecks() (*check.Set, error) {
	s, err := check.ParseAll(c.Checks)
	switch {
	case err != nil:
		return nil, configErr("Checks", "{Checks} %v", err)
	case s == nil:
		return nil, nil
	case s.NeedsBody() && c.Compressed:
		return nil, configErr("Checks", "{Checks} on the body and {Compressed} cannot be combined: the body is checked as received, and {Compressed} bodies arrive encoded")
	}
	return s, nil
}
