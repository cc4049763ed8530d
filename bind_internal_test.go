package gb

import (
	"errors"
	"net/netip"
	"slices"
	"testing"
)

// TestParseSources: -B takes one address, a list or a range, and refuses
// anything else with one line (a ConfigError: exit 22 in the command).
func TestParseSources(t *testing.T) {
	addrs := func(ss ...string) []netip.Addr {
		var out []netip.Addr
		for _, s := range ss {
			out = append(out, netip.MustParseAddr(s))
		}
		return out
	}
	for _, tc := range []struct {
		in   string
		want []netip.Addr
	}{
		{"127.0.0.1", addrs("127.0.0.1")},
		{"127.0.0.1,127.0.0.2", addrs("127.0.0.1", "127.0.0.2")},
		{"127.0.0.1, ::1", addrs("127.0.0.1", "::1")},
		{"127.0.0.1-127.0.0.4", addrs("127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4")},
		{"127.0.0.255-127.0.1.0", addrs("127.0.0.255", "127.0.1.0")},
		{"127.0.0.7-127.0.0.7", addrs("127.0.0.7")},
		{"::1-::2", addrs("::1", "::2")},
	} {
		got, err := parseSources(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("parseSources(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"localhost", `invalid Config.LocalAddr "localhost": want an IP address, a list a,b or a range a-b`},
		{"127.0.0.1,", `invalid Config.LocalAddr "127.0.0.1,": want an IP address, a list a,b or a range a-b`},
		{"127.0.0.1-", `invalid Config.LocalAddr "127.0.0.1-": want an IP address, a list a,b or a range a-b`},
		{"127.0.0.9-127.0.0.1", `invalid Config.LocalAddr "127.0.0.9-127.0.0.1": the range ends before it starts`},
		{"127.0.0.1-::1", `invalid Config.LocalAddr "127.0.0.1-::1": the range mixes IPv4 and IPv6`},
		{"10.0.0.0-10.255.255.255", `invalid Config.LocalAddr "10.0.0.0-10.255.255.255": more than 1024 addresses`},
	} {
		_, err := parseSources(tc.in)
		var ce *ConfigError
		if !errors.As(err, &ce) || err.Error() != tc.want {
			t.Errorf("parseSources(%q): %v, want ConfigError %q", tc.in, err, tc.want)
		}
	}
}

// TestAutoSources: a loopback target gets as many 127.x source addresses
// as -c needs ports, and none when one address is enough or the target is
// elsewhere.
func TestAutoSources(t *testing.T) {
	lo := netip.MustParseAddr("127.0.0.1")
	for _, tc := range []struct {
		target netip.Addr
		c      int
		want   int
	}{
		{lo, 25000, 0},
		{lo, 25001, 2},
		{lo, 100000, 4},
		{netip.MustParseAddr("127.3.2.1"), 60000, 3},
		{netip.MustParseAddr("10.0.0.1"), 100000, 0},
		{netip.MustParseAddr("::1"), 100000, 0},
	} {
		got := autoSources(tc.target, tc.c, 25000)
		if len(got) != tc.want {
			t.Errorf("autoSources(%v, %d) = %v, want %d addresses", tc.target, tc.c, got, tc.want)
		}
		for i, a := range got {
			if want := netip.AddrFrom4([4]byte{127, 0, 0, byte(i + 1)}); a != want {
				t.Errorf("autoSources(%v, %d)[%d] = %v, want %v", tc.target, tc.c, i, a, want)
			}
		}
	}
}
