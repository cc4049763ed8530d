package gb

import (
	"strings"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/decode"
	"github.com/gb-bench/gb/internal/h1"
)

// AcceptEncoding is the Accept-Encoding value Config.Compressed sends
// when Headers has none: every content coding gb decodes.
const AcceptEncoding = decode.AcceptEncoding

// acceptEncoding returns the Accept-Encoding value the request carries:
// the user's own header when Headers has one (it wins, as written), else
// AcceptEncoding with Compressed, else "" (gb never adds one by itself).
// user reports that the value is the user's.
func (c *Config) acceptEncoding() (value string, user bool) {
	for _, raw := range c.Headers {
		name, v, ok := strings.Cut(raw, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Accept-Encoding") {
			return strings.TrimSpace(v), true
		}
	}
	if c.Compressed {
		return AcceptEncoding, false
	}
	return "", false
}

// addAcceptEncoding adds Compressed's Accept-Encoding header to req,
// unless the user sent one.
func (c *Config) addAcceptEncoding(req *h1.Request) {
	if v, user := c.acceptEncoding(); v != "" && !user {
		req.Headers = append(req.Headers, h1.Header{Name: "Accept-Encoding", Value: v})
	}
}

// decoding is what the clients check of each body: with Compressed, that
// it decodes in one of the codings the request's Accept-Encoding asked
// for.
func (c *Config) decoding() client.Decoding {
	if !c.Compressed {
		return client.Decoding{}
	}
	v, _ := c.acceptEncoding()
	return client.Decoding{Compressed: true, Accept: decode.Accepted(v), MaxDecoded: c.MaxDecoded}
}

// checkDecoding refuses a decoding limit that cannot apply.
func (c *Config) checkDecoding() error {
	switch {
	case c.MaxDecoded < 0:
		return configErr("MaxDecoded", "invalid {MaxDecoded} %d", c.MaxDecoded)
	case c.MaxDecoded > 0 && !c.Compressed:
		return configErr("MaxDecoded", "{MaxDecoded} needs {Compressed} (gb decodes nothing without it)")
	}
	return nil
}
