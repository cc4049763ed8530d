package report

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/gb-bench/gb/stats"
)

// maxSoftware is ab's limit on the Server Software value (its buffer is
// 1024 bytes with the terminating NUL).
const maxSoftware = 1023

// software returns the "Server Software" value for s, the Server header of
// the first response: ab copies it up to the first byte <= 32. gb also
// stops at DEL and at bytes >= 0x80 (which ab, where char is signed, stops
// at too), so the value is printable ASCII without spaces and can never
// carry a control sequence to the terminal.
func software(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f || i == maxSoftware {
			return s[:i]
		}
	}
	return s
}

// several is what ab's header block says of a field that the targets of a
// run with several do not share.
const several = "(several)"

// abHeader is the values of ab's header block, Server Software through
// Document Length, as the text and HTML reports print them.
type abHeader struct {
	software, host, port, path, length string
}

// headerOf returns r's header block. With several targets a field they do
// not share reads "(several)" (their own lines are in gb's section): the
// hostname and port when they differ, the software (the first response's)
// unless every target is on one host and port, the path when the paths
// differ, and the document length always unless -l (each target has its
// own). With one target the values are ab's.
func headerOf(r *stats.Result) abHeader {
	h := abHeader{software(r.Server.Software), r.Load.Host, strconv.Itoa(r.Load.Port), r.Load.Path,
		fmt.Sprintf("%d bytes", r.Server.DocumentLength)}
	if r.Load.VariableLength {
		h.length = "Variable"
	}
	if len(r.Targets) < 2 {
		return h
	}
	hosts, ports, paths := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, t := range r.Targets {
		u, err := url.Parse(t.URL)
		if err != nil {
			continue // a URL gb wrote; none fails
		}
		port := u.Port()
		if port == "" {
			port = u.Scheme // the scheme's default
		}
		hosts[u.Hostname()], ports[port], paths[u.RequestURI()] = true, true, true
	}
	if len(hosts) > 1 {
		h.host = several
	}
	if len(ports) > 1 {
		h.port = several
	}
	if len(hosts) > 1 || len(ports) > 1 {
		h.software = several
	}
	if len(paths) > 1 {
		h.path = several
	}
	if !r.Load.VariableLength {
		h.length = several
	}
	return h
}

// isHTTPS reports whether the run's URL is https, the condition for ab's
// TLS lines.
func isHTTPS(t stats.Load) bool {
	u, err := url.Parse(t.URL)
	return err == nil && strings.EqualFold(u.Scheme, "https")
}

// tlsInfo returns the "SSL/TLS Protocol:" value in ab's shape
// "proto,cipher,keybits,cipherbits", e.g.
// "TLSv1.3,TLS_AES_128_GCM_SHA256,0,128", or "" when no handshake was
// recorded. The protocol is OpenSSL's spelling (Go's "TLS 1.3" becomes
// "TLSv1.3"); the cipher keeps Go's (IANA) name, which is OpenSSL's too for
// TLS 1.3; cipherbits is derived from the cipher name. keybits (the peer
// certificate's public key size) is 0 because [stats.Server] does not carry
// it; ab prints 0 too when there is no certificate.
func tlsInfo(s stats.Server) string {
	if s.TLSProtocol == "" {
		return ""
	}
	return fmt.Sprintf("%s,%s,%d,%d", tlsVersion(s.TLSProtocol), s.TLSCipher, s.TLSKeyBits, cipherBits(s.TLSCipher))
}

// tlsVersion spells a TLS version name as OpenSSL's SSL_get_version does.
func tlsVersion(v string) string {
	if rest, ok := strings.CutPrefix(v, "TLS "); ok {
		v = "TLSv" + rest
	}
	if v == "TLSv1.0" {
		return "TLSv1"
	}
	return v
}

// cipherBits returns the symmetric strength of a cipher suite named as Go
// or IANA names it (OpenSSL's SSL_CIPHER_get_bits); 0 when unknown.
func cipherBits(name string) int {
	for _, c := range []struct {
		part string
		bits int
	}{
		{"AES_128", 128}, {"AES_256", 256}, {"CHACHA20", 256}, {"3DES", 112}, {"RC4_128", 128},
	} {
		if strings.Contains(name, c.part) {
			return c.bits
		}
	}
	return 0
}
