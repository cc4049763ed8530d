package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gb-bench/gb/internal/testsupport"
)

// A target is one URL under load and the server process whose CPU the
// harness watches while a tool runs.
type target struct {
	key  string // for -targets: nginx-10k, nginx-6b, hello
	name string // in the table
	url  string
	pid  int // the serving process: nginx's worker, or the hello server
	body int // expected body length, checked once before the runs
}

// server is a process the harness started; stop ends it by PID.
type server struct {
	name string
	cmd  *exec.Cmd
}

func (s *server) stop() {
	if s == nil || s.cmd == nil || s.cmd.Process == nil {
		return
	}
	pid := s.cmd.Process.Pid
	_ = syscall.Kill(pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		// The process group is the one this harness created for the server.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-done
	}
}

// nginxConfig is the benchmark's nginx: one worker, loopback, no access
// log, sendfile off (with sendfile and tcp_nopush nginx stalls pipelined
// batches of small files), keep-alive for as many requests as any run sends.
// worker_connections is far above the clients' connections: nginx starts
// closing idle keep-alive connections (failed requests for the client) when
// fewer than 1/16 of them are free, and the previous run's connections may
// not all be closed yet.
//
// tlsListen, when not empty, holds the directives of a second listener:
// TLS with h2 (see h2Listen).
func nginxConfig(dir, root string, port, conns int, tlsListen string) string {
	wc := 4*conns + 1024
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;" // the worker must read the private temporary directory
	}
	return fmt.Sprintf(`%s
daemon off;
master_process on;
worker_processes 1;
worker_rlimit_nofile %d;
pid %[3]s/nginx.pid;
error_log %[3]s/error.log warn;
events { worker_connections %[4]d; multi_accept on; }
http {
    access_log off;
    sendfile off;
    tcp_nopush off;
    tcp_nodelay on;
    keepalive_requests 100000000;
    keepalive_timeout 300s;
    client_body_temp_path %[3]s/tmp;
    proxy_temp_path %[3]s/tmp;
    fastcgi_temp_path %[3]s/tmp;
    uwsgi_temp_path %[3]s/tmp;
    scgi_temp_path %[3]s/tmp;
    types { application/octet-stream dat; }
    server {
        listen 127.0.0.1:%[5]d backlog=4096;
        root %[6]s;%[7]s
    }
}
`, user, 2*wc, dir, wc, port, root, tlsListen)
}

// h2Listen writes a self-signed certificate into dir and returns the
// directives of a TLS listener on port offering h2 by ALPN, or an error
// when this nginx has no http_v2 module.
func h2Listen(bin, dir string, port int) (string, error) {
	directive, err := testsupport.HTTP2Listen(bin)
	if err != nil {
		return "", err
	}
	cert, key, err := testsupport.WriteSelfSigned(dir)
	if err != nil {
		return "", err
	}
	param, on := " http2", ""
	if directive {
		param, on = "", "\n        http2 on;"
	}
	return fmt.Sprintf("\n        listen 127.0.0.1:%d ssl%s backlog=4096;%s\n        ssl_certificate %s;\n        ssl_certificate_key %s;",
		port, param, on, cert, key), nil
}

// nginxRun is the benchmark's nginx: its base URLs and worker.
type nginxRun struct {
	*server
	base    string // "http://127.0.0.1:PORT"
	tlsBase string // "https://127.0.0.1:PORT" with h2; "" without
	worker  int    // the worker's PID
}

// startNginx writes the config and the two files into dir and starts
// nginx, with a TLS listener offering h2 when h2 is set (and this nginx
// can: otherwise the note says why).
func startNginx(bin, dir string, conns int, h2 bool) (n nginxRun, note string, err error) {
	root := filepath.Join(dir, "html")
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o755); err != nil {
		return n, "", err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return n, "", err
	}
	if err := os.WriteFile(filepath.Join(root, "10k.dat"), bytes.Repeat([]byte("x"), 10240), 0o644); err != nil {
		return n, "", err
	}
	if err := os.WriteFile(filepath.Join(root, "6b.dat"), []byte("hello\n"), 0o644); err != nil {
		return n, "", err
	}
	port, err := freePort()
	if err != nil {
		return n, "", err
	}
	tlsPort, tls := 0, ""
	if h2 {
		if tlsPort, err = freePort(); err != nil {
			return n, "", err
		}
		if tls, err = h2Listen(bin, dir, tlsPort); err != nil {
			note, tlsPort = fmt.Sprintf("nginx cannot serve h2 (%v): its h2 target is skipped", err), 0
		}
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(nginxConfig(dir, root, port, conns, tls)), 0o644); err != nil {
		return n, "", err
	}
	args := []string{"-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log")}
	if out, err := exec.Command(bin, append([]string{"-t"}, args...)...).CombinedOutput(); err != nil {
		return n, "", fmt.Errorf("nginx -t: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return n, "", err
	}
	n = nginxRun{server: &server{name: "nginx", cmd: cmd}, base: "http://127.0.0.1:" + strconv.Itoa(port)}
	for _, p := range []int{port, tlsPort} {
		if err == nil && p != 0 {
			err = waitListening("127.0.0.1:" + strconv.Itoa(p))
		}
	}
	if err == nil {
		n.worker, err = childOf(cmd.Process.Pid)
	}
	if err != nil {
		n.stop()
		return nginxRun{}, "", err
	}
	if tlsPort != 0 {
		n.tlsBase = "https://127.0.0.1:" + strconv.Itoa(tlsPort)
	}
	return n, note, nil
}

// startServe starts `gb serve --tls` (h2 and HTTP/1.1 by ALPN on its TLS
// listener) and reads its https URL from the banner.
func startServe(gb string) (*server, string, error) {
	return startReading("gb serve", exec.Command(gb, "serve", "--tls", "--no-pprof", "--addr", "127.0.0.1:0"),
		func(line string) (string, bool) {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "https:" {
				return f[1], true
			}
			return "", false
		})
}

// startHello starts bench/hello (built at bin) and reads its URL.
func startHello(bin string) (*server, string, error) {
	cmd := exec.Command(bin, "-procs", "1")
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	return startReading("hello server", cmd, func(line string) (string, bool) { return strings.TrimSpace(line), true })
}

// startReading starts a server in a process group of its own and reads
// its stdout until match finds the URL in a line; the rest is discarded.
func startReading(name string, cmd *exec.Cmd, match func(line string) (string, bool)) (*server, string, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	s := &server{name: name, cmd: cmd}
	br := bufio.NewReader(out)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			s.stop()
			return nil, "", fmt.Errorf("%s: no URL in its output: %v", name, err)
		}
		if url, ok := match(line); ok {
			go func() { _, _ = io.Copy(io.Discard, br) }()
			return s, url, nil
		}
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func waitListening(addr string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is not listening: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// childOf finds the one child of pid (nginx's worker) in /proc.
func childOf(pid int) (int, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			child, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if ppid, err := parentPID(child); err == nil && ppid == pid {
				return child, nil
			}
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("no worker process under nginx %d", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// statFields returns the fields of /proc/PID/stat after the command name
// (which may contain spaces): index 0 is the state, 1 the parent PID.
func statFields(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, errors.New("malformed stat")
	}
	return strings.Fields(string(b[i+1:])), nil
}

func parentPID(pid int) (int, error) {
	f, err := statFields(pid)
	if err != nil || len(f) < 2 {
		return 0, errors.New("no stat")
	}
	return strconv.Atoi(f[1])
}

// clockTick is USER_HZ, the unit of /proc/PID/stat's times; 100 on every
// Linux that Go supports.
const clockTick = 100

// processCPU is the CPU time pid has used so far: the sum of its threads'
// run time from /proc/PID/task/*/schedstat (nanoseconds), or, where the
// kernel has no schedstat, utime+stime from /proc/PID/stat (ticks).
func processCPU(pid int) (time.Duration, error) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err == nil {
		var sum time.Duration
		ok := true
		for _, t := range tasks {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
			if err != nil {
				ok = false
				break
			}
			f := strings.Fields(string(b))
			if len(f) == 0 {
				ok = false
				break
			}
			ns, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				ok = false
				break
			}
			sum += time.Duration(ns)
		}
		if ok {
			return sum, nil
		}
	}
	f, err := statFields(pid)
	if err != nil || len(f) < 13 {
		return 0, fmt.Errorf("cpu of %d: %v", pid, err)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("cpu of %d: malformed stat", pid)
	}
	return time.Duration(ut+st) * time.Second / clockTick, nil
}

// checkTarget fetches the URL once and checks the status and body length,
// so a misconfigured server fails before the runs rather than inside them.
// https targets (self-signed) are fetched over h2 without verification.
func checkTarget(t *target) error {
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetHTTP2(true)
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Protocols: p,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := c.Get(t.url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if strings.HasPrefix(t.url, "https:") && resp.ProtoMajor != 2 {
		return fmt.Errorf("%s: answered over %s, want HTTP/2", t.url, resp.Proto)
	}
	if resp.StatusCode != 200 || len(b) != t.body {
		return fmt.Errorf("%s: status %d, %d body bytes, want 200 and %d", t.url, resp.StatusCode, len(b), t.body)
	}
	return nil
}
