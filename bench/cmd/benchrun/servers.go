package main

import (
	"bufio"
	"bytes"
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
func nginxConfig(dir, root string, port, conns int) string {
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
        root %[6]s;
    }
}
`, user, 2*wc, dir, wc, port, root)
}

// startNginx writes the config and the two files into dir and starts
// nginx; it returns the server and its worker's PID.
func startNginx(bin, dir string, conns int) (*server, string, int, error) {
	root := filepath.Join(dir, "html")
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o755); err != nil {
		return nil, "", 0, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, "", 0, err
	}
	if err := os.WriteFile(filepath.Join(root, "10k.dat"), bytes.Repeat([]byte("x"), 10240), 0o644); err != nil {
		return nil, "", 0, err
	}
	if err := os.WriteFile(filepath.Join(root, "6b.dat"), []byte("hello\n"), 0o644); err != nil {
		return nil, "", 0, err
	}
	port, err := freePort()
	if err != nil {
		return nil, "", 0, err
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(nginxConfig(dir, root, port, conns)), 0o644); err != nil {
		return nil, "", 0, err
	}
	args := []string{"-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log")}
	if out, err := exec.Command(bin, append([]string{"-t"}, args...)...).CombinedOutput(); err != nil {
		return nil, "", 0, fmt.Errorf("nginx -t: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, "", 0, err
	}
	s := &server{name: "nginx", cmd: cmd}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	if err := waitListening("127.0.0.1:" + strconv.Itoa(port)); err != nil {
		s.stop()
		return nil, "", 0, err
	}
	worker, err := childOf(cmd.Process.Pid)
	if err != nil {
		s.stop()
		return nil, "", 0, err
	}
	return s, base, worker, nil
}

// startHello starts bench/hello (built at bin) and reads its URL.
func startHello(bin string) (*server, string, error) {
	cmd := exec.Command(bin, "-procs", "1")
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	s := &server{name: "hello", cmd: cmd}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		s.stop()
		return nil, "", fmt.Errorf("hello server: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return s, strings.TrimSpace(line), nil
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
func checkTarget(t *target) error {
	resp, err := http.Get(t.url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 || len(b) != t.body {
		return fmt.Errorf("%s: status %d, %d body bytes, want 200 and %d", t.url, resp.StatusCode, len(b), t.body)
	}
	return nil
}
