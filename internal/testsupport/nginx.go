package testsupport

// A private nginx for tests: its own config, document root and access log
// in a temporary directory, listening on a free loopback port, stopped (by
// PID) when the test ends.
//
// Tests call StartNginx; when nginx is not installed the test is skipped,
// unless GB_REQUIRE_NGINX=1 (set by CI), which makes it fail instead.

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
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
}

// Nginx is a running nginx. Files are served from Root.
type Nginx struct {
	URL  string // "http://127.0.0.1:PORT"
	Root string // document root; holds 10k.dat (10240 bytes) and small.txt (6 bytes)
	Log  string // access log path, one line per request in NginxLogFormat
	cmd  *exec.Cmd
}

// NginxLogFormat is the access log format: request time, connection serial,
// requests on that connection, status, request length, bytes sent, body
// bytes sent, method and URI.
const NginxLogFormat = `$msec $connection $connection_requests $status $request_length $bytes_sent $body_bytes_sent $request_method $request_uri`

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
		if os.Getenv("GB_REQUIRE_NGINX") == "1" {
			t.Fatal("nginx is required (GB_REQUIRE_NGINX=1) but not installed")
		}
		t.Skip("nginx not installed")
	}
	return bin
}

// StartNginx starts nginx for the test and stops it in t.Cleanup.
func StartNginx(t testing.TB, o NginxOptions) *Nginx {
	t.Helper()
	bin := RequireNginx(t)
	dir := t.TempDir()
	n := &Nginx{Root: filepath.Join(dir, "html"), Log: filepath.Join(dir, "access.log")}
	if err := writeNginxRoot(n.Root); err != nil {
		t.Fatal(err)
	}
	port := FreePort(t)
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(nginxConfig(dir, n, port, o)), 0o644); err != nil {
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
	waitListening(t, "127.0.0.1:"+strconv.Itoa(port))
	return n
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

func nginxConfig(dir string, n *Nginx, port int, o NginxOptions) string {
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
        listen 127.0.0.1:%d;
        root %s;
        access_log %s gb;
        keepalive_requests %d;
        keepalive_timeout %ds;
        location = /echo { client_max_body_size 64m; return 200 "posted\n"; }
        %s
    }
}
`, user, dir, dir, NginxLogFormat, dir, dir, dir, dir, dir, port, n.Root, n.Log, kr, int(kt/time.Second), o.Extra)
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

func waitListening(t testing.TB, addr string) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", addr); err == nil {
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
			&e.BytesSent, &e.Body, &e.Method, &e.URI); err != nil {
			t.Fatalf("access log line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

// LogTotals sums the access log: requests, distinct connections, bytes sent
// (headers and bodies), body bytes sent and request bytes received.
type LogTotals struct {
	Requests, Conns, BytesSent, BodyBytes, RequestBytes int64
	Status                                              map[int]int64
}

// Totals reads and sums the access log.
func (n *Nginx) Totals(t testing.TB) LogTotals {
	tot := LogTotals{Status: map[int]int64{}}
	conns := map[int64]bool{}
	for _, e := range n.Entries(t) {
		tot.Requests++
		tot.BytesSent += e.BytesSent
		tot.BodyBytes += e.Body
		tot.RequestBytes += e.RequestLength
		tot.Status[e.Status]++
		conns[e.Conn] = true
	}
	tot.Conns = int64(len(conns))
	return tot
}
