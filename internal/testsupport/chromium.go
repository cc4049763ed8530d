package testsupport

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// chromiumNames are the executables headless Chromium may have (Debian's
// chromium package installs /usr/bin/chromium).
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome"}

// cdpTimeout bounds every wait for the browser.
const cdpTimeout = 60 * time.Second

// cdpMessage is one DevTools protocol message: a reply (ID set) or an
// event (Method set).
type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Browser is a headless Chromium with one page, driven over the DevTools
// protocol on a pipe (--remote-debugging-pipe). Every request the page
// makes is recorded (Requests). Its network is cut off but for loopback:
// every host name but 127.0.0.1 and localhost fails to resolve and the
// proxy is a closed port (Chromium never proxies loopback addresses). Not
// safe for concurrent use.
type Browser struct {
	tb       testing.TB
	toChrome *os.File
	msgs     chan cdpMessage
	next     int
	session  string

	mu       sync.Mutex
	requests []string // every URL the page requested, in order
}

// StartChromium starts the browser with a blank page and stops it (by its
// process) when the test ends. It skips the test when Chromium is not
// installed, unless GB_REQUIRE_CHROMIUM=1 makes that a failure.
func StartChromium(tb testing.TB) *Browser {
	tb.Helper()
	bin := ""
	for _, n := range chromiumNames {
		if p, err := exec.LookPath(n); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		if os.Getenv("GB_REQUIRE_CHROMIUM") == "1" {
			tb.Fatal("headless Chromium is required (GB_REQUIRE_CHROMIUM=1) but not installed")
		}
		tb.Skip("chromium not installed")
	}
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	proxy := closed.Addr().String()
	closed.Close()
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
		"--user-data-dir="+tb.TempDir(), "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
		"--hide-scrollbars", "--force-device-scale-factor=1",
		"--proxy-server="+proxy, "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, evW} // fd 3 and 4
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	cmdR.Close()
	evW.Close()
	b := &Browser{tb: tb, toChrome: cmdW, msgs: make(chan cdpMessage, 256)}
	go b.read(evR)
	tb.Cleanup(func() {
		_ = b.call("", "Browser.close", nil, nil)
		cmdW.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if tb.Failed() {
			tb.Logf("chromium stderr:\n%s", stderr.String())
		}
	})
	var target struct{ TargetID string }
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		tb.Fatal(err)
	}
	var attached struct{ SessionID string }
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		tb.Fatal(err)
	}
	b.session = attached.SessionID
	for _, m := range []string{"Network.enable", "Page.enable"} {
		if err := b.call(b.session, m, map[string]any{}, nil); err != nil {
			tb.Fatal(err)
		}
	}
	return b
}

// read delivers the browser's messages until its pipe closes, recording
// the page's requests as they come.
func (b *Browser) read(r *os.File) {
	defer close(b.msgs)
	br := bufio.NewReader(r)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		if m.Method == "Network.requestWillBeSent" {
			var p struct {
				Request struct{ URL string } `json:"request"`
			}
			if json.Unmarshal(m.Params, &p) == nil {
				b.mu.Lock()
				b.requests = append(b.requests, p.Request.URL)
				b.mu.Unlock()
			}
		}
		if m.ID != 0 {
			b.msgs <- m
		}
	}
}

// call sends method with params in session ("" for the browser) and
// decodes the reply's result into result (unless nil).
func (b *Browser) call(session, method string, params, result any) error {
	b.next++
	id := b.next
	req := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		req["sessionId"] = session
	}
	msg, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := b.toChrome.Write(append(msg, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	timer := time.NewTimer(cdpTimeout)
	defer timer.Stop()
	for {
		select {
		case m, ok := <-b.msgs:
			if !ok {
				return fmt.Errorf("%s: %w", method, errors.New("chromium closed the pipe"))
			}
			if m.ID != id {
				continue
			}
			if m.Error != nil {
				return fmt.Errorf("%s: %s", method, m.Error.Message)
			}
			if result != nil {
				return json.Unmarshal(m.Result, result)
			}
			return nil
		case <-timer.C:
			return fmt.Errorf("%s: timed out waiting for chromium", method)
		}
	}
}

// Navigate points the page at url (it does not wait for the load).
func (b *Browser) Navigate(url string) error {
	return b.call(b.session, "Page.navigate", map[string]any{"url": url}, nil)
}

// Eval evaluates a JavaScript expression (a promise is awaited) whose
// value is a JSON string, and decodes that into v.
func (b *Browser) Eval(expr string, v any) error {
	var r struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	if err := b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("javascript: %s", r.ExceptionDetails)
	}
	return json.Unmarshal([]byte(r.Result.Value), v)
}

// Viewport sets the page's viewport to width by height CSS pixels, one
// device pixel each.
func (b *Browser) Viewport(width, height int) error {
	return b.call(b.session, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
}

// Screenshot returns a PNG of the page's viewport.
func (b *Browser) Screenshot() ([]byte, error) {
	var shot struct{ Data string }
	if err := b.call(b.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(shot.Data)
}

// Requests returns the URL of every request the page made so far.
func (b *Browser) Requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.requests...)
}
