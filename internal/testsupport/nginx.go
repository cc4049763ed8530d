package testsupport

// A private nginx for tests: its own config, document root and access log
// in a temporary directory, listening on a free loopback port, stopped (by
// PID) when the test ends.
//
// Tests call StartNginx; when nginx is not installed (or, for HTTP/2, was
// built without http_v2) the test is skipped, unless GB_REQUIRE_NGINX=1
// (set by CI), which makes it fail instead.

import (
	"bufio"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// NginxOptions configure the server. The zero value serves the default files
// with keep-alive limits raised far beyond any test's request count.
type NginxOptions struct {
	KeepaliveRequests int           // nginx keepalive_requests; 0 = 1000000
	KeepaliveTimeout  time.Duration // nginx keepalive_timeout; 0 = 75s
	Extra             string        // more directives for the server block

	// Unix also listens on a unix domain socket (Nginx.Unix) in the
	// test's directory.
	Unix bool
	// TLS also listens with TLS on a second loopback port (Nginx.TLSURL),
	// with a self-signed certificate for 127.0.0.1, ::1 and localhost
	// (Nginx.CertFile).
	TLS bool
	// HTTP2 offers h2 by ALPN, besides http/1.1, on the TLS port; it
	// implies TLS. Without nginx's http_v2 module the test is skipped
	// (failed with GB_REQUIRE_NGINX=1).
	HTTP2 bool
}

// Nginx is a running nginx. Files are served from Root. Every listener
// serves the same server block and writes to the same access log.
type Nginx struct {
	URL      string // "http://127.0.0.1:PORT"
	TLSURL   string // "https://127.0.0.1:PORT"; "" without NginxOptions.TLS
	CertFile string // the TLS port's self-signed certificate, PEM (for --cacert); "" without TLS
	Unix     string // the unix socket's path; "" without NginxOptions.Unix
	Root     string // document root; holds 10k.dat (10240 bytes) and small.txt (6 bytes)
	Log      string // access log path, one line per request in NginxLogFormat
	cmd      *exec.Cmd
}

// NginxLogFormat is the access log format: request time, connection serial,
// requests on that connection, status, request length, bytes sent, body
// bytes sent, method, URI, protocol (HTTP/1.0, HTTP/1.1, HTTP/2.0) and,
// over TLS, whether the connection resumed a session ("r"; "." when not,
// "-" without TLS).
const NginxLogFormat = `$msec $connection $connection_requests $status $request_length $bytes_sent $body_bytes_sent $request_method $request_uri $server_protocol $ssl_session_reused`

// NginxBinary returns nginx's path, or "" when it is not installed.
func NginxBinary() string {
	for _, p := range []string{"/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, _ := exec.LookPath("nginx")
	return p
}

// RequireNginx skips (or, with GB_REQUIRE_NGINX=1, fails) a test when nginx is
// missing, and returns its path.
func RequireNginx(t testing.TB) string {
	t.Helper()
	bin := NginxBinary()
	if bin == "" {
		skipOrFail(t, "nginx is not installed")
	}
	return bin
}

// skipOrFail skips the test, or fails it under GB_REQUIRE_NGINX=1.
func skipOrFail(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("GB_REQUIRE_NGINX") == "1" {
		t.Fatalf("%s, and GB_REQUIRE_NGINX=1 requires it", why)
	}
	t.Skip(why)
}

// nginxVersion matches nginx -V's first line.
var nginxVersion = regexp.MustCompile(`nginx/(\d+)\.(\d+)\.(\d+)`)

// HTTP2Listen returns how nginx at bin turns h2 on for a TLS listener:
// "http2 on;" (nginx 1.25.1 and later) or the listen parameter "http2"
// (older), or an error saying why it cannot (no http_v2 module).
func HTTP2Listen(bin string) (directive bool, err error) {
	out, err := exec.Command(bin, "-V").CombinedOutput()
	if err != nil {
		return false, fmt.Errorf("nginx -V: %v", err)
	}
	if !strings.Contains(string(out), "--with-http_v2_module") {
		return false, fmt.Errorf("nginx (%s) was built without the http_v2 module", firstLineOf(out))
	}
	m := nginxVersion.FindStringSubmatch(string(out))
	if m == nil {
		return false, fmt.Errorf("nginx -V: no version in %q", firstLineOf(out))
	}
	v := [3]int{}
	for i := range v {
		v[i], _ = strconv.Atoi(m[i+1])
	}
	return v[0] > 1 || v[0] == 1 && (v[1] > 25 || v[1] == 25 && v[2] >= 1), nil
}

func firstLineOf(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}

// StartNginx starts nginx for the test and stops it in t.Cleanup.
func StartNginx(t testing.TB, o NginxOptions) *Nginx {
	t.Helper()
	bin := RequireNginx(t)
	h2directive := false
	if o.HTTP2 {
		o.TLS = true
		var err error
		if h2directive, err = HTTP2Listen(bin); err != nil {
			skipOrFail(t, err.Error())
		}
	}
	dir := t.TempDir()
	n := &Nginx{Root: filepath.Join(dir, "html"), Log: filepath.Join(dir, "access.log")}
	if err := writeNginxRoot(n.Root); err != nil {
		t.Fatal(err)
	}
	port, tlsPort := FreePort(t), 0
	listen := fmt.Sprintf("listen 127.0.0.1:%d;", port)
	if o.Unix {
		n.Unix = filepath.Join(dir, "nginx.sock")
		listen += fmt.Sprintf("\n        listen unix:%s;", n.Unix)
	}
	if o.TLS {
		for tlsPort == 0 || tlsPort == port {
			tlsPort = FreePort(t)
		}
		n.TLSURL = "https://127.0.0.1:" + strconv.Itoa(tlsPort)
		listen += tlsListen(t, dir, n, tlsPort, o.HTTP2, h2directive)
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(nginxConfig(dir, n, listen, o)), 0o644); err != nil {
		t.Fatal(err)
	}
	n.cmd = exec.Command(bin, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log"))
	n.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if out, err := exec.Command(bin, "-t", "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log")).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.stop)
	n.URL = "http://127.0.0.1:" + strconv.Itoa(port)
	waitListening(t, "tcp", "127.0.0.1:"+strconv.Itoa(port))
	if n.Unix != "" {
		waitListening(t, "unix", n.Unix)
	}
	for _, m := range extraUnix.FindAllStringSubmatch(o.Extra, -1) { // a test's own "listen unix:PATH;"
		waitListening(t, "unix", m[1])
	}
	if tlsPort != 0 {
		waitListening(t, "tcp", "127.0.0.1:"+strconv.Itoa(tlsPort))
	}
	return n
}

// extraUnix finds the sockets of "listen unix:PATH" directives in
// NginxOptions.Extra, which nginx may start listening on after its TCP port.
var extraUnix = regexp.MustCompile(`listen\s+unix:([^\s;]+)`)

// tlsListen writes the certificate and returns the TLS listener's
// directives, h2 on when http2 is set.
func tlsListen(t testing.TB, dir string, n *Nginx, port int, http2, directive bool) string {
	cert, key, err := WriteSelfSigned(dir)
	if err != nil {
		t.Fatal(err)
	}
	n.CertFile = cert
	param, on := "", ""
	if http2 && directive {
		on = "\n        http2 on;"
	} else if http2 {
		param = " http2"
	}
	return fmt.Sprintf("\n        listen 127.0.0.1:%d ssl%s;%s\n        ssl_certificate %s;\n        ssl_certificate_key %s;",
		port, param, on, cert, key)
}

// CertPool returns a pool holding the TLS port's certificate, for a Go
// client's tls.Config.RootCAs (empty without TLS).
func (n *Nginx) CertPool(t testing.TB) *x509.CertPool {
	t.Helper()
	pool := x509.NewCertPool()
	if n.CertFile == "" {
		return pool
	}
	b, err := os.ReadFile(n.CertFile)
	if err != nil || !pool.AppendCertsFromPEM(b) {
		t.Fatalf("nginx certificate %s: %v", n.CertFile, err)
	}
	return pool
}

// Pause stops nginx (master and worker) with SIGSTOP for d, then lets it
// go on with SIGCONT: a server that freezes without closing anything.
func (n *Nginx) Pause(d time.Duration) error {
	pg := -n.cmd.Process.Pid
	if err := syscall.Kill(pg, syscall.SIGSTOP); err != nil {
		return err
	}
	time.Sleep(d)
	return syscall.Kill(pg, syscall.SIGCONT)
}

func (n *Nginx) stop() {
	if n.cmd.Process != nil {
		_ = syscall.Kill(-n.cmd.Process.Pid, syscall.SIGCONT)
		_ = syscall.Kill(-n.cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = n.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-n.cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
}

// nginxConfig returns the configuration; listen holds the server block's
// listen (and TLS) directives.
func nginxConfig(dir string, n *Nginx, listen string, o NginxOptions) string {
	kr, kt := o.KeepaliveRequests, o.KeepaliveTimeout
	if kr <= 0 {
		kr = 1000000
	}
	if kt <= 0 {
		kt = 75 * time.Second
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;" // workers must read the test's private directory
	}
	return fmt.Sprintf(`%s
daemon off;
master_process on;
worker_processes 1;
pid %s/nginx.pid;
error_log %s/error.log warn;
events { worker_connections 20000; }
http {
    access_log off;
    log_format gb '%s';
    client_body_temp_path %s/tmp;
    proxy_temp_path %s/tmp;
    fastcgi_temp_path %s/tmp;
    uwsgi_temp_path %s/tmp;
    scgi_temp_path %s/tmp;
    types { text/plain txt; application/octet-stream dat; }
    server {
        %s
        root %s;
        access_log %s gb;
        keepalive_requests %d;
        keepalive_timeout %ds;
        location = /echo { client_max_body_size 64m; return 200 "posted\n"; }
        %s
    }
}
`, user, dir, dir, NginxLogFormat, dir, dir, dir, dir, dir, listen, n.Root, n.Log, kr, int(kt/time.Second), o.Extra)
}

func writeNginxRoot(root string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"10k.dat":   strings.Repeat("0123456789abcdef", 640),
		"small.txt": "hello\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func waitListening(t testing.TB, network, addr string) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial(network, addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("nginx did not listen on %s", addr)
}

// LogEntry is one access log line.
type LogEntry struct {
	Conn, ConnRequests             int64
	Status                         int
	RequestLength, BytesSent, Body int64
	Method, URI                    string
	Proto                          string // "HTTP/1.0", "HTTP/1.1" or "HTTP/2.0"
	Resumed                        bool   // the request came on a TLS connection that resumed a session
}

// Path returns the entry's URI without its query.
func (e LogEntry) Path() string {
	p, _, _ := strings.Cut(e.URI, "?")
	return p
}

// Entries reads the access log (nginx writes it unbuffered).
func (n *Nginx) Entries(t testing.TB) []LogEntry {
	t.Helper()
	f, err := os.Open(n.Log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []LogEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e LogEntry
		var msec string
		if _, err := fmt.Sscan(sc.Text(), &msec, &e.Conn, &e.ConnRequests, &e.Status, &e.RequestLength,
			&e.BytesSent, &e.Body, &e.Method, &e.URI, &e.Proto); err != nil {
			t.Fatalf("access log line %q: %v", sc.Text(), err)
		}
		e.Resumed = strings.HasSuffix(sc.Text(), " r")
		out = append(out, e)
	}
	return out
}

// LogTotals sums the access log: requests, distinct connections, bytes sent
// (headers and bodies), body bytes sent and request bytes received, and
// requests by status, by path (URI without query) and by protocol.
type LogTotals struct {
	Requests, Conns, BytesSent, BodyBytes, RequestBytes int64
	Status                                              map[int]int64
	Paths, Protocols                                    map[string]int64
	Resumed                                             int64 // requests on TLS connections that resumed a session
}

// Settled reads the access log's totals once it holds want more requests
// than before, or after 5 s: nginx writes a request's log line when it
// finalizes the request, which may be just after the client has read the
// response, so a count taken the moment a load ends can miss the last one.
func (n *Nginx) Settled(t testing.TB, before LogTotals, want int64) LogTotals {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := n.Totals(t)
		if got.Requests-before.Requests >= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Totals reads and sums the access log.
func (n *Nginx) Totals(t testing.TB) LogTotals {
	tot := LogTotals{Status: map[int]int64{}, Paths: map[string]int64{}, Protocols: map[string]int64{}}
	conns := map[int64]bool{}
	for _, e := range n.Entries(t) {
		tot.Requests++
		tot.BytesSent += e.BytesSent
		tot.BodyBytes += e.Body
		tot.RequestBytes += e.RequestLength
		tot.Status[e.Status]++
		tot.Paths[e.Path()]++
		tot.Protocols[e.Proto]++
		conns[e.Conn] = true
		if e.Resumed {
			tot.Resumed++
		}
	}
	tot.Conns = int64(len(conns))
	return tot
}
