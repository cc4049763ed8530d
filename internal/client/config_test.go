package client

import (
	"crypto/tls"
	"strings"
	"testing"
)

// TestOneWriteOnlyForSingleRequestConnections: Nagle's algorithm is left
// on only where a connection carries one request, sent in one write.
func TestOneWriteOnlyForSingleRequestConnections(t *testing.T) {
	short := []byte("GET / HTTP/1.0\r\nHost: a\r\n\r\n")
	long := []byte("POST / HTTP/1.0\r\n\r\n" + strings.Repeat("x", maxOneWrite))
	for _, tc := range []struct {
		name string
		cfg  *Config
		want bool
	}{
		{"close, short request", &Config{Request: short}, true},
		{"keep-alive", &Config{Request: short, KeepAlive: true}, false},
		{"TLS", &Config{Request: short, TLS: &tls.Config{}}, false},
		{"tunnel", &Config{Request: short, Tunnel: &Tunnel{}}, false},
		{"long request", &Config{Request: long}, false},
		{"targets, short", &Config{Targets: []Target{{Request: short}, {Request: short}}}, true},
		{"targets, one long", &Config{Targets: []Target{{Request: short}, {Request: long}}}, false},
	} {
		if got := tc.cfg.oneWrite(); got != tc.want {
			t.Errorf("%s: oneWrite = %v, want %v", tc.name, got, tc.want)
		}
	}
}
