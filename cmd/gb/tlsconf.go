package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
)

// tlsConfig builds the client TLS configuration from -I, -Z, -f, -E,
// --insecure and --cacert. Certificates are verified unless --insecure.
func tlsConfig(o *options, t *target) (*tls.Config, error) {
	c := &tls.Config{ServerName: t.host, InsecureSkipVerify: o.insecure}
	if o.caCert != "" {
		pem, err := os.ReadFile(o.caCert)
		if err != nil {
			return nil, fmt.Errorf("cannot read --cacert %s: %v", o.caCert, unwrapPath(err))
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--cacert %s holds no PEM certificate", o.caCert)
		}
	}
	if err := setProtocol(c, o.tlsProtocol); err != nil {
		return nil, err
	}
	if err := setCiphers(c, o.ciphers); err != nil {
		return nil, err
	}
	if o.clientCert != "" {
		pem, err := os.ReadFile(o.clientCert)
		if err != nil {
			return nil, fmt.Errorf("cannot read -E %s: %v", o.clientCert, unwrapPath(err))
		}
		cert, err := tls.X509KeyPair(pem, pem)
		if err != nil {
			return nil, fmt.Errorf("-E %s: %v", o.clientCert, err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	if o.noSNI {
		noSNI(c, t.host)
	}
	return c, nil
}

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
		return usagef(false, "-f %s: Go does not speak SSL 2 or 3 (use TLS1, TLS1.1, TLS1.2, TLS1.3 or ALL)", p)
	default:
		v, ok := versions[up]
		if !ok {
			return usagef(false, "-f %s: unknown protocol (use TLS1, TLS1.1, TLS1.2, TLS1.3 or ALL)", p)
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
			return usagef(false, "-Z: unknown cipher suite %q (gb takes Go/IANA names, eg. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)", name)
		}
		c.CipherSuites = append(c.CipherSuites, id)
	}
	return nil
}
