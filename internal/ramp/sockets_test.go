package ramp

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// procWord prints 4 bytes of an address as the kernel prints one 32-bit
// word of /proc/net/tcp: the word in host byte order, as hex.
func procWord(b []byte) string {
	var out [4]byte
	binary.BigEndian.PutUint32(out[:], binary.NativeEndian.Uint32(b))
	return strings.ToUpper(hex.EncodeToString(out[:]))
}

// procAddr prints ap as /proc/net/tcp (4-byte IPs) or tcp6 (16-byte) does.
func procAddr(ap netip.AddrPort, six bool) string {
	ip := ap.Addr().AsSlice()
	if six {
		a16 := ap.Addr().As16()
		ip = a16[:]
	}
	var s string
	for i := 0; i < len(ip); i += 4 {
		s += procWord(ip[i : i+4])
	}
	return s + ":" + fmt.Sprintf("%04X", ap.Port())
}

func TestParseProcAddr(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"0100007F:1F90", "127.0.0.1:8080"},
		{procAddr(netip.MustParseAddrPort("10.1.2.3:443"), false), "10.1.2.3:443"},
		{procAddr(netip.MustParseAddrPort("[::1]:80"), true), "[::1]:80"},
		{procAddr(netip.MustParseAddrPort("[2001:db8::5]:8443"), true), "[2001:db8::5]:8443"},
		{procAddr(netip.AddrPortFrom(netip.MustParseAddr("::ffff:127.0.0.1"), 8080), true), "127.0.0.1:8080"},
	} {
		got, err := parseProcAddr(tc.in)
		if err != nil || got.String() != tc.want {
			t.Errorf("parseProcAddr(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "0100007F", "0100007F:XYZ", "01007F:1F90", "ZZ00007F:1F90"} {
		if _, err := parseProcAddr(bad); err == nil {
			t.Errorf("parseProcAddr(%q): no error", bad)
		}
	}
}

// TestCountSockets counts a /proc/net/tcp-format file: TIME_WAIT toward
// the target at either end, ESTABLISHED to it only from the client side,
// other states and other peers not at all.
func TestCountSockets(t *testing.T) {
	target := netip.MustParseAddrPort("127.0.0.1:8080")
	client := netip.MustParseAddrPort("127.0.0.1:40000")
	other := netip.MustParseAddrPort("127.0.0.1:9090")
	line := func(local, remote netip.AddrPort, st string) string {
		return "   0: " + procAddr(local, false) + " " + procAddr(remote, false) + " " + st + " 00000000:00000000 00:00000000 00000000 0 0 0 1\n"
	}
	file := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		line(client, target, "06") + // client TIME_WAIT
		line(target, client, "06") + // server TIME_WAIT (loopback)
		line(client, target, "01") + // client established
		line(target, client, "01") + // server side of the same: not counted
		line(client, other, "06") + // another peer
		line(client, target, "08") + // CLOSE_WAIT
		line(target, netip.MustParseAddrPort("0.0.0.0:0"), "0A") // the listener
	path := filepath.Join(t.TempDir(), "tcp")
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	tw, est, err := countSockets(path, target)
	if err != nil || tw != 2 || est != 1 {
		t.Errorf("countSockets = %d TIME_WAIT, %d established, %v; want 2, 1", tw, est, err)
	}
}

// TestSocketsSeesOwnConnection checks the live /proc reading: an open
// loopback connection is established toward its listener.
func TestSocketsSeesOwnConnection(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, est, err := sockets(netip.MustParseAddrPort(ln.Addr().String()))
	if err != nil || est != 1 {
		t.Errorf("sockets: %d established, %v; want 1", est, err)
	}
}

// TestDrain follows drain.wait through fake counts: it returns at once
// under the limit, discounts gb's own open connections, waits while above
// it, gives up with a warning after its longest wait, and stops on a
// signal.
func TestDrain(t *testing.T) {
	seq := func(counts ...[2]int) func() (int, int) {
		return func() (int, int) {
			c := counts[0]
			if len(counts) > 1 {
				counts = counts[1:]
			}
			return c[0], c[1]
		}
	}
	var notes, warns []string
	d := drain{addr: "127.0.0.1:80", limit: 100, held: 10,
		note:    func(s string) { notes = append(notes, s) },
		warn:    func(s string) { warns = append(warns, s) },
		sleep:   func(time.Duration) bool { return true },
		maxWait: time.Hour}
	d.count = seq([2]int{90, 20}) // 90 TIME_WAIT + (20 - 10 held) = 100
	if !d.wait() || len(notes) != 0 {
		t.Errorf("at the limit: notes %q", notes)
	}
	polls := 0
	d.count = func() (int, int) { polls++; return 500 - 100*polls, 0 }
	if !d.wait() || polls != 4 || len(notes) != 2 || !strings.Contains(notes[0], "waiting for 400 sockets") {
		t.Errorf("draining: %d polls, notes %q", polls, notes)
	}
	d.count, d.maxWait = seq([2]int{1000, 0}), time.Nanosecond
	if !d.wait() || len(warns) != 1 || !strings.Contains(warns[0], "still 1000 sockets") {
		t.Errorf("giving up: warnings %q", warns)
	}
	d.maxWait, d.sleep = time.Hour, func(time.Duration) bool { return false }
	if d.wait() {
		t.Error("a signal did not end the wait")
	}
}

func TestLevels(t *testing.T) {
	for _, tc := range []struct {
		from, to, step int64
		want           []int64
	}{
		{100, 500, 100, []int64{100, 200, 300, 400, 500}},
		{100, 550, 100, []int64{100, 200, 300, 400, 500}},
		{100, 300, 0, []int64{100, 200, 300}}, // step defaults to from
		{5, 5, 1, []int64{5}},
		{1, 1000, 1, nil}, // filled below: 1000 steps is the limit
	} {
		want := tc.want
		if want == nil {
			for l := int64(1); l <= 1000; l++ {
				want = append(want, l)
			}
		}
		got, err := Levels("--from", "--to", tc.from, tc.to, tc.step)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("levels(%d, %d, %d) = %v, %v", tc.from, tc.to, tc.step, got, err)
		}
	}
	if _, err := Levels("--from", "--to", 1, 1001, 1); err == nil {
		t.Error("1001 steps accepted")
	}
}
