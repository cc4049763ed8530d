package gb

import (
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// maxSources bounds -B's list or range: more addresses than any machine's
// connections could need.
const maxSources = 1024

// parseSources parses -B: one IP address, a comma-separated list
// ("127.0.0.1,127.0.0.2") or an inclusive range ("127.0.0.1-127.0.0.8") of
// one family. Connections spread over the addresses round-robin.
func parseSources(s string) ([]netip.Addr, error) {
	bad := func(why string) error {
		return configErr("LocalAddr", "invalid {LocalAddr} %q: %s", s, why)
	}
	if from, to, ok := strings.Cut(s, "-"); ok {
		a, err1 := netip.ParseAddr(strings.TrimSpace(from))
		b, err2 := netip.ParseAddr(strings.TrimSpace(to))
		switch {
		case err1 != nil || err2 != nil:
			return nil, bad("want an IP address, a list a,b or a range a-b")
		case a.Is4() != b.Is4():
			return nil, bad("the range mixes IPv4 and IPv6")
		case b.Less(a):
			return nil, bad("the range ends before it starts")
		}
		var out []netip.Addr
		for ip := a; ; ip = ip.Next() {
			if len(out) == maxSources {
				return nil, bad("more than " + strconv.Itoa(maxSources) + " addresses")
			}
			out = append(out, ip)
			if ip == b {
				return out, nil
			}
		}
	}
	var out []netip.Addr
	for f := range strings.SplitSeq(s, ",") {
		ip, err := netip.ParseAddr(strings.TrimSpace(f))
		if err != nil {
			return nil, bad("want an IP address, a list a,b or a range a-b")
		}
		if len(out) == maxSources {
			return nil, bad("more than " + strconv.Itoa(maxSources) + " addresses")
		}
		out = append(out, ip)
	}
	return out, nil
}

// autoSources returns the loopback source addresses that -c connections to
// a 127.0.0.0/8 target need when one source address has fewer ephemeral
// ports than that (ports per address, from ip_local_port_range): 127.0.0.1,
// 127.0.0.2, … as many as it takes. Nil when one address is enough or the
// target is not on 127.0.0.0/8.
func autoSources(target netip.Addr, concurrency, ports int) []netip.Addr {
	if !target.Is4() || target.As4()[0] != 127 || ports <= 0 || concurrency <= ports {
		return nil
	}
	n := min((concurrency+ports-1)/ports, maxSources)
	out := make([]netip.Addr, n)
	ip := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	for i := range out {
		out[i], ip = ip, ip.Next()
	}
	return out
}

// portsPerSource is the ephemeral ports one source address has for
// connections to one server address (Linux's ip_local_port_range, less a
// tenth kept for other connections); 28 000 when it cannot be read.
func portsPerSource() int {
	lo, hi := 32768, 60999
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			l, err1 := strconv.Atoi(f[0])
			h, err2 := strconv.Atoi(f[1])
			if err1 == nil && err2 == nil && h > l {
				lo, hi = l, h
			}
		}
	}
	return (hi - lo + 1) * 9 / 10
}

// localAddrs turns -B (or, without it, the automatic loopback spread) into
// the client's source addresses.
func localAddrs(bind string, target string, concurrency int) ([]*net.TCPAddr, error) {
	var ips []netip.Addr
	if bind != "" {
		var err error
		if ips, err = parseSources(bind); err != nil {
			return nil, err
		}
	} else if t, err := netip.ParseAddr(target); err == nil {
		ips = autoSources(t.Unmap(), concurrency, portsPerSource())
	}
	out := make([]*net.TCPAddr, len(ips))
	for i, ip := range ips {
		out[i] = net.TCPAddrFromAddrPort(netip.AddrPortFrom(ip, 0))
	}
	return out, nil
}
