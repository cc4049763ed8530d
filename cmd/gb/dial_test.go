package main

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// TestDialBadInput: how gb reaches a server, misconfigured: one line on
// stderr, nothing on stdout, exit 1 for a socket that is not there (as for
// a host that does not resolve), 22 for options that cannot go together.
func TestDialBadInput(t *testing.T) {
	dir := testsupport.SocketDir(t)
	sock := filepath.Join(dir, "s.sock")
	testsupport.StartNginx(t, testsupport.NginxOptions{Extra: "listen unix:" + sock + ";"})
	missing := filepath.Join(dir, "none.sock")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--unix-socket", missing, "http://localhost/"}, 1, "gb: cannot connect to unix socket " + missing + ": no such file or directory"},
		{[]string{"http+unix://" + url.PathEscape(missing) + "/x"}, 1, "gb: cannot connect to unix socket " + missing + ": no such file or directory"},
		{[]string{"http+unix:///x"}, 22, "gb: invalid http+unix:// URL: want the socket's path percent-encoded as the host"},
		{[]string{"--unix-socket", sock, "--connect-to", "::127.0.0.1:80", "http://localhost/"}, 22, "gb: --connect-to cannot be combined with a unix socket"},
		{[]string{"--unix-socket", sock, "-B", "127.0.0.1", "http://localhost/"}, 22, "gb: -B cannot be combined with a unix socket"},
		{[]string{"--unix-socket", sock, "-X", "127.0.0.1:3128", "http://localhost/"}, 22, "gb: -X cannot be combined with a unix socket"},
		{[]string{"--unix-socket", sock, "--profile", "http://localhost/"}, 22, "gb: --profile with a unix socket or --connect-to needs --profile-url"},
		{[]string{"--connect-to", "a:1:b", "https://127.0.0.1:1/"}, 22, `gb: invalid --connect-to "a:1:b": want HOST:PORT:ADDR:PORT`},
		{[]string{"--connect-to", "::127.0.0.1:1", "-X", "127.0.0.1:3128", "http://127.0.0.1:1/"}, 22, "gb: --connect-to cannot apply through -X with an http:// URL"},
		{[]string{"--sni", "x.test", "http://127.0.0.1:1/"}, 22, "gb: --sni needs an https:// URL"},
		{[]string{"--sni", "x.test", "-I", "https://127.0.0.1:1/"}, 22, "gb: --sni and -I (no SNI) cannot be combined"},
	} {
		r := runGB(t, tc.args...)
		if r.code != tc.code || !strings.HasPrefix(r.stderr, tc.msg) || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
			t.Errorf("gb %q: exit %d, stderr %q, stdout %q; want exit %d and the one line %q", tc.args, r.code, r.stderr, r.stdout, tc.code, tc.msg)
		}
	}
}

// TestUnixSocketCLI: --unix-socket against nginx on a socket: the report
// counts what nginx's access log holds.
func TestUnixSocketCLI(t *testing.T) {
	dir := testsupport.SocketDir(t)
	sock := filepath.Join(dir, "nginx.sock")
	ngx := testsupport.StartNginx(t, testsupport.NginxOptions{Extra: "listen unix:" + sock + ";"})
	r := runGB(t, "-k", "-n", "300", "-c", "3", "--unix-socket", sock, "http://localhost/small.txt")
	log := ngx.Settled(t, testsupport.LogTotals{}, 300)
	if r.code != 0 || number(t, r.stdout, "Complete requests") != 300 || log.Requests != 300 || log.Conns != 3 ||
		!strings.Contains(r.stdout, "Benchmarking localhost [through unix:"+sock+"] (be patient)") {
		t.Errorf("exit %d, nginx logged %+v\n%s%s", r.code, ngx.Totals(t), r.stdout, r.stderr)
	}
}

// TestProxyTunnelCLI: -X with an https:// URL tunnels through CONNECT,
// -P's credentials going to the proxy; a proxy that refuses says so on
// stderr and the run exits 1.
func TestProxyTunnelCLI(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{TLS: true, NoPprof: true})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, srv.CACertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	proxy := testsupport.StartRelay(t, &testsupport.Relay{Connect: true, Auth: "me:pw"})
	r := runGB(t, "-X", proxy.Addr, "-P", "me:pw", "--cacert", ca, "-k", "-n", "50", "-c", "2", srv.TLSURL()+"/hello")
	if r.code != 0 || number(t, r.stdout, "Complete requests") != 50 || srv.Ledger().TLS.Requests != 50 ||
		!strings.Contains(r.stdout, "[through "+proxy.Addr+"]") {
		t.Errorf("through the proxy: exit %d, server counted %d\n%s%s", r.code, srv.Ledger().TLS.Requests, r.stdout, r.stderr)
	}
	r = runGB(t, "-X", proxy.Addr, "--cacert", ca, "-n", "50", srv.TLSURL()+"/hello")
	want := "Test aborted: no connection after 10 attempts: proxy refused CONNECT: 407 Proxy Authentication Required"
	if r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("no credentials: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = runGB(t, "-X", proxy.Addr, "--cacert", ca, "-n", "5", srv.TLSURL()+"/hello")
	want = "gb: no request got a response: proxy refused CONNECT: 407 Proxy Authentication Required"
	if r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("no credentials, -n 5: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// TestTinyproxyTunnel: through tinyproxy, a real CONNECT proxy, when it is
// installed: with -P the server counts every request gb counts; without,
// tinyproxy's 407 (which comes with an HTML body) is the run's error.
func TestTinyproxyTunnel(t *testing.T) {
	bin, err := exec.LookPath("tinyproxy")
	if err != nil {
		t.Skip("tinyproxy not installed")
	}
	srv := testsupport.Server(t, testserver.Options{TLS: true, NoPprof: true})
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	conf := filepath.Join(dir, "tinyproxy.conf")
	port := testsupport.FreePort(t)
	if err := os.WriteFile(ca, srv.CACertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf("Port %d\nListen 127.0.0.1\nTimeout 60\nAllow 127.0.0.1\nLogLevel Warning\nBasicAuth me s3cret\n", port)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-d", "-c", conf)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	proxy := fmt.Sprintf("127.0.0.1:%d", port)
	testsupport.WaitFor(t, "tinyproxy to listen", func() bool {
		c, err := net.Dial("tcp", proxy)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	r := runGB(t, "-X", proxy, "-P", "me:s3cret", "--cacert", ca, "-k", "-n", "200", "-c", "4", srv.TLSURL()+"/hello")
	if r.code != 0 || number(t, r.stdout, "Complete requests") != 200 || srv.Ledger().TLS.Requests != 200 || srv.Ledger().TLS.Conns != 4 {
		t.Errorf("through tinyproxy: exit %d, server %+v\n%s%s", r.code, srv.Ledger().TLS, r.stdout, r.stderr)
	}
	r = runGB(t, "-X", proxy, "--cacert", ca, "-n", "20", srv.TLSURL()+"/hello")
	if want := "proxy refused CONNECT: 407 Proxy Authentication Required"; r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("without -P: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
