package report

import (
	"fmt"

	"github.com/gb-bench/gb/stats"
)

// protocolLine is the gb section's "protocol" value for an HTTP/2 or
// HTTP/3 run (Target.Engine "h2", "h2c" or "h3"); "" for HTTP/1.1, which
// has no such line.
func protocolLine(t *stats.Load) string {
	var name string
	switch t.Engine {
	case "h2":
		name = "HTTP/2 over TLS (h2)"
	case "h2c":
		name = "HTTP/2 over cleartext TCP (h2c, prior knowledge)"
	case "h3":
		name = "HTTP/3 over QUIC (h3)"
	default:
		return ""
	}
	if t.Streams <= 1 {
		return name + ", 1 stream per connection"
	}
	return fmt.Sprintf("%s, up to %d streams per connection", name, t.Streams)
}
