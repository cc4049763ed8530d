package ramp

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
)

// TCP states in /proc/net/tcp (include/net/tcp_states.h).
const (
	tcpEstablished = 0x01
	tcpTimeWait    = 0x06
)

// How drain waits.
const (
	drainPoll    = 200 * time.Millisecond
	drainMaxWait = 90 * time.Second // TIME_WAIT lasts 60 s on Linux
)

// sockets counts the host's TCP sockets toward addr: those in TIME_WAIT
// with addr at either end (the client's after it closed, and on loopback
// the server's after it did), and those established to addr (client
// side). It reads /proc/net/tcp and /proc/net/tcp6.
func sockets(addr netip.AddrPort) (timeWait, established int, err error) {
	addr = netip.AddrPortFrom(addr.Addr().Unmap(), addr.Port())
	for _, path := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		tw, est, err := countSockets(path, addr)
		if err != nil && !(path == "/proc/net/tcp6" && os.IsNotExist(err)) { // no IPv6 is fine
			return 0, 0, err
		}
		timeWait += tw
		established += est
	}
	return timeWait, established, nil
}

// countSockets counts addr's sockets in one /proc/net/tcp-format file.
func countSockets(path string, addr netip.AddrPort) (timeWait, established int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header line
	for sc.Scan() {
		// "sl local_address rem_address st ...": "0: 0100007F:1F90 0100007F:C350 06 ..."
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 {
			continue
		}
		st, err := strconv.ParseUint(fields[3], 16, 8)
		if err != nil || (st != tcpTimeWait && st != tcpEstablished) {
			continue
		}
		local, lerr := parseProcAddr(fields[1])
		remote, rerr := parseProcAddr(fields[2])
		if lerr != nil || rerr != nil {
			return 0, 0, fmt.Errorf("%s: unexpected line %q", path, sc.Text())
		}
		switch {
		case st == tcpTimeWait && (local == addr || remote == addr):
			timeWait++
		case st == tcpEstablished && remote == addr:
			established++
		}
	}
	return timeWait, established, sc.Err()
}

// parseProcAddr parses an address of /proc/net/tcp{,6}: hex IP words in
// the host's byte order, a colon and the port in hex. IPv4-mapped IPv6
// addresses are unmapped.
func parseProcAddr(s string) (netip.AddrPort, error) {
	ipHex, portHex, ok := strings.Cut(s, ":")
	port, err := strconv.ParseUint(portHex, 16, 16)
	if !ok || err != nil || (len(ipHex) != 8 && len(ipHex) != 32) {
		return netip.AddrPort{}, fmt.Errorf("bad address %q", s)
	}
	raw, err := hex.DecodeString(ipHex)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("bad address %q", s)
	}
	var b [16]byte
	for i := 0; i < len(raw); i += 4 { // each 32-bit word was printed as a number
		binary.NativeEndian.PutUint32(b[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	ip := netip.AddrFrom16(b)
	if len(raw) == 4 {
		ip = netip.AddrFrom4([4]byte(b[:4]))
	}
	return netip.AddrPortFrom(ip.Unmap(), uint16(port)), nil
}

// defaultMaxSockets is half the ephemeral port range (Linux's
// ip_local_port_range), or 14000 when it cannot be read.
func defaultMaxSockets() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		var lo, hi int
		if _, err := fmt.Sscan(string(b), &lo, &hi); err == nil && hi > lo {
			return (hi - lo + 1) / 2
		}
	}
	return 14000
}

// drain waits, before a ramp step, until the sockets toward the target
// that gb does not hold itself (TIME_WAIT ones and connections
// established by others) are at most limit, so a step does not start while
// the last one's sockets pile up. It gives up after drainMaxWait with a
// warning, and silently where /proc/net/tcp cannot be read.
type drain struct {
	addr  string // the target (or proxy) as dialled: "ip:port"
	limit int
	held  int             // connections gb keeps open for the next step
	ctx   context.Context // its end ends the wait: wait returns false
	note  func(string)    // progress; nil = quiet
	warn  func(string)    // giving up
	// For tests: the counts (TIME_WAIT, established; nil = sockets(addr)),
	// the sleep between polls (false = ctx ended; nil = sleepCtx) and
	// the longest wait (0 = drainMaxWait).
	count   func() (int, int)
	sleep   func(time.Duration) bool
	maxWait time.Duration
}

// wait waits and reports false when ctx ended first.
func (d *drain) wait() bool {
	count := d.count
	if count == nil {
		ap, err := netip.ParseAddrPort(d.addr)
		if err != nil {
			return true
		}
		count = func() (int, int) {
			tw, est, err := sockets(ap)
			if err != nil {
				return 0, 0
			}
			return tw, est
		}
	}
	sleep := d.sleep
	if sleep == nil {
		sleep = func(t time.Duration) bool { return sleepCtx(d.ctx, t) }
	}
	maxWait := d.maxWait
	if maxWait == 0 {
		maxWait = drainMaxWait
	}
	began := time.Now()
	noted := false
	for {
		tw, est := count()
		n := tw + max(est-d.held, 0)
		if n <= d.limit {
			if noted {
				d.note(fmt.Sprintf("%d sockets toward %s after %.1fs", n, d.addr, time.Since(began).Seconds()))
			}
			return true
		}
		if time.Since(began) >= maxWait {
			d.warn(fmt.Sprintf("still %d sockets toward %s (TIME_WAIT %d, established %d) after %v; going on", n, d.addr, tw, est, maxWait))
			return true
		}
		if !noted && d.note != nil {
			d.note(fmt.Sprintf("waiting for %d sockets toward %s (TIME_WAIT %d, established %d) to drop to --max-sockets %d", n, d.addr, tw, est, d.limit))
			noted = true
		}
		if !sleep(drainPoll) {
			return false
		}
	}
}
