package gb

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"strings"
)

// config builds the client TLS configuration for host. Certificates are
// verified unless Insecure. Its errors name the command line's flags
// (--cacert, -E, -f, -Z), the names the fields are documented by.
func (o TLS) config(host string) (*tls.Config, error) {
	c := &tls.Config{ServerName: host, InsecureSkipVerify: o.Insecure}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, configErr("TLS.CAFile", "cannot read {TLS.CAFile} %s: %v", o.CAFile, unwrapPath(err))
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, configErr("TLS.CAFile", "{TLS.CAFile} %s holds no PEM certificate", o.CAFile)
		}
	}
	if err := setProtocol(c, o.Protocol); err != nil {
		return nil, err
	}
	if err := setCiphers(c, o.Ciphers); err != nil {
		return nil, err
	}
	if o.CertFile != "" {
		pem, err := os.ReadFile(o.CertFile)
		if err != nil {
			return nil, configErr("TLS.CertFile", "cannot read {TLS.CertFile} %s: %v", o.CertFile, unwrapPath(err))
		}
		cert, err := tls.X509KeyPair(pem, pem)
		if err != nil {
			return nil, configErr("TLS.CertFile", "{TLS.CertFile} %s: %v", o.CertFile, err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	if o.NoSNI {
		noSNI(c, host)
	}
	if o.Resume {
		c.ClientSessionCache = tls.NewLRUClientSessionCache(sessionCacheSize)
	}
	return c, nil
}

// sessionCacheSize is how many servers' sessions Resume's cache holds. A
// Config's connections share one cache: its key is the server name (or
// address), so every connection of a run to one server offers the newest
// session any of them got. The cache's mutex is taken only during a
// handshake (a lookup, and a store per ticket received), never per request.
const sessionCacheSize = 64

// noSNI sends no server name and, unless verification is off, verifies
// the certificate against the host itself.
func noSNI(c *tls.Config, host string) {
	c.ServerName = ""
	if c.InsecureSkipVerify {
		return
	}
	c.InsecureSkipVerify = true
	roots := c.RootCAs
	c.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("tls: server sent no certificate")
		}
		opts := x509.VerifyOptions{DNSName: host, Roots: roots, Intermediates: x509.NewCertPool()}
		for _, ic := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(ic)
		}
		_, err := cs.PeerCertificates[0].Verify(opts)
		return err
	}
}

// setProtocol applies ab's -f names.
func setProtocol(c *tls.Config, p string) error {
	versions := map[string]uint16{"TLS1": tls.VersionTLS10, "TLS1.1": tls.VersionTLS11,
		"TLS1.2": tls.VersionTLS12, "TLS1.3": tls.VersionTLS13}
	switch up := strings.ToUpper(p); {
	case p == "" || up == "ALL":
		return nil
	case up == "SSL2" || up == "SSL3":
		return configErr("TLS.Protocol", "{TLS.Protocol} %s: Go does not speak SSL 2 or 3 (use TLS1, TLS1.1, TLS1.2, TLS1.3 or ALL)", p)
	default:
		v, ok := versions[up]
		if !ok {
			return configErr("TLS.Protocol", "{TLS.Protocol} %s: unknown protocol (use TLS1, TLS1.1, TLS1.2, TLS1.3 or ALL)", p)
		}
		c.MinVersion, c.MaxVersion = v, v
	}
	return nil
}

// setCiphers applies -Z: Go's (IANA) cipher suite names, comma or colon
// separated. They apply to TLS 1.2 and below; Go fixes TLS 1.3's suites.
func setCiphers(c *tls.Config, list string) error {
	if list == "" {
		return nil
	}
	byName := map[string]uint16{}
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		byName[s.Name] = s.ID
	}
	for _, name := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ':' }) {
		id, ok := byName[name]
		if !ok {
			return configErr("TLS.Ciphers", "{TLS.Ciphers}: unknown cipher suite %q (gb takes Go/IANA names, eg. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)", name)
		}
		c.CipherSuites = append(c.CipherSuites, id)
	}
	return nil
}
