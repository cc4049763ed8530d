package testsupport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// CaddyBinary returns caddy's path: on PATH, else where `go install`
// puts it ($GOBIN, $GOPATH/bin, ~/go/bin); "" when it is not installed.
func CaddyBinary() string {
	if p, err := exec.LookPath("caddy"); err == nil {
		return p
	}
	var dirs []string
	if d := os.Getenv("GOBIN"); d != "" {
		dirs = append(dirs, d)
	}
	if d := os.Getenv("GOPATH"); d != "" {
		dirs = append(dirs, filepath.Join(d, "bin"))
	}
	if h, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(h, "go", "bin"))
	}
	for _, d := range dirs {
		if p := filepath.Join(d, "caddy"); isExec(p) {
			return p
		}
	}
	return ""
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// RequireCaddy skips (or, with GB_REQUIRE_CADDY=1, fails) a test when
// caddy is missing, and returns its path.
func RequireCaddy(t testing.TB) string {
	t.Helper()
	bin := CaddyBinary()
	if bin == "" {
		if os.Getenv("GB_REQUIRE_CADDY") == "1" {
			t.Fatal("caddy is not installed, and GB_REQUIRE_CADDY=1 requires it (go install github.com/caddyserver/caddy/v2/cmd/caddy@v2.11.9)")
		}
		t.Skip("caddy is not installed")
	}
	return bin
}

// Caddy is a caddy server a test started: HTTPS with HTTP/1.1, HTTP/2 and
// HTTP/3 (UDP, same port) on loopback with a self-signed certificate,
// answering every request with "hello\n", and a JSON access log.
type Caddy struct {
	URL      string // https://127.0.0.1:PORT
	CertFile string // the certificate, its own CA (gb --cacert)
	Log      string // the access log: one JSON object per request
}

// StartCaddy starts caddy for the test and stops it in t.Cleanup.
func StartCaddy(t testing.TB) *Caddy {
	t.Helper()
	bin := RequireCaddy(t)
	dir := t.TempDir()
	cert, key, err := WriteSelfSigned(dir)
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	c := &Caddy{URL: "https://127.0.0.1:" + strconv.Itoa(port), CertFile: cert, Log: filepath.Join(dir, "access.log")}
	conf := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(conf, []byte(caddyfile(dir, port, cert, key, c.Log)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--config", conf, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	out, err := os.Create(filepath.Join(dir, "caddy.out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = out.Close()
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if nc, err := net.Dial("tcp", addr); err == nil {
			nc.Close()
			return c
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(out.Name())
			t.Fatalf("caddy did not listen on %s: %s", addr, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// caddyfile is the server's configuration.
func caddyfile(dir string, port int, cert, key, log string) string {
	return fmt.Sprintf(`{
	admin off
	persist_config off
	auto_https off
	storage file_system %s/data
	servers {
		protocols h1 h2 h3
	}
}

https://127.0.0.1:%d {
	tls %s %s
	log {
		output file %s
		format json
	}
	respond "hello" 200
}
`, dir, port, cert, key, log)
}

// freePort is a port free on 127.0.0.1 for TCP and UDP when it returns.
func freePort(t testing.TB) int {
	t.Helper()
	for range 20 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if u, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}); err == nil {
			u.Close()
			return port
		}
	}
	t.Fatal("no port free for both TCP and UDP")
	return 0
}

// CaddyLogTotals counts an access log: requests by protocol ("HTTP/3.0",
// "HTTP/2.0", ...) and by status.
type CaddyLogTotals struct {
	Requests  int64
	Protocols map[string]int64
	Status    map[int]int64
}

// Totals reads the access log once it holds want requests, or after
// 10 s: caddy writes a request's line once it finished the response,
// which may be just after the client read it.
func (c *Caddy) Totals(t testing.TB, want int64) CaddyLogTotals {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := c.read(t)
		if got.Requests >= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (c *Caddy) read(t testing.TB) CaddyLogTotals {
	tot := CaddyLogTotals{Protocols: map[string]int64{}, Status: map[int]int64{}}
	f, err := os.Open(c.Log)
	if os.IsNotExist(err) {
		return tot
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e struct {
			Msg     string `json:"msg"`
			Status  int    `json:"status"`
			Request struct {
				Proto string `json:"proto"`
			} `json:"request"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Msg != "handled request" {
			continue // a partly written last line, or another message
		}
		tot.Requests++
		tot.Protocols[e.Request.Proto]++
		tot.Status[e.Status]++
	}
	return tot
}
