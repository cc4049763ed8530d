package report_test

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
	"testing"
	"time"
)

// chromiumNames are the executables headless Chromium may have (Debian's
// chromium package installs /usr/bin/chromium).
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome"}

// findChromium returns the browser to test with; it skips the test when
// there is none, unless GB_REQUIRE_CHROMIUM=1 makes that a failure.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, n := range chromiumNames {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("GB_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("headless Chromium is required (GB_REQUIRE_CHROMIUM=1) but not installed")
	}
	t.Skip("chromium not installed")
	return ""
}

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

// browser is a headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: commands on its fd 3, replies and events
// on its fd 4, each message ending in a NUL byte). Every request any page
// makes is reported as a Network.requestWillBeSent event, so the test
// sees them all. Its network is also cut off: every host name fails to
// resolve and the proxy is a closed port.
type browser struct {
	cmd      *exec.Cmd
	toChrome *os.File
	msgs     chan cdpMessage
	next     int
	events   []cdpMessage // events read while waiting for replies
	session  string       // the page's session
}

// startBrowser starts the browser with a page attached, and stops it when
// the test ends.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin := findChromium(t)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	proxy := closed.Addr().String()
	closed.Close()
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
		"--user-data-dir="+t.TempDir(), "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
		"--hide-scrollbars", "--force-device-scale-factor=1",
		"--proxy-server="+proxy, "--host-resolver-rules=MAP * ~NOTFOUND", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, evW} // fd 3 and 4
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmdR.Close()
	evW.Close()
	b := &browser{cmd: cmd, toChrome: cmdW, msgs: make(chan cdpMessage, 256)}
	go b.read(evR)
	t.Cleanup(func() {
		b.call("", "Browser.close", nil, nil)
		cmdW.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("chromium stderr:\n%s", stderr.String())
		}
	})
	var target struct{ TargetID string }
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		t.Fatal(err)
	}
	var attached struct{ SessionID string }
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		t.Fatal(err)
	}
	b.session = attached.SessionID
	for _, m := range []string{"Network.enable", "Page.enable"} {
		if err := b.call(b.session, m, map[string]any{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// read delivers the browser's messages until its pipe closes.
func (b *browser) read(r *os.File) {
	defer close(b.msgs)
	br := bufio.NewReader(r)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) == nil {
			b.msgs <- m
		}
	}
}

// cdpTimeout bounds every wait for the browser.
const cdpTimeout = 60 * time.Second

// call sends method with params in session ("" for the browser) and
// decodes the reply's result into result (unless nil).
func (b *browser) call(session, method string, params, result any) error {
	b.next++
	id := b.next
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params, "sessionId": session})
	if err != nil {
		return err
	}
	if session == "" {
		msg, _ = json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	}
	if _, err := b.toChrome.Write(append(msg, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	m, err := b.wait(func(m cdpMessage) bool { return m.ID == id })
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if m.Error != nil {
		return fmt.Errorf("%s: %s", method, m.Error.Message)
	}
	if result != nil {
		return json.Unmarshal(m.Result, result)
	}
	return nil
}

// wait returns the first message for which match is true, keeping the
// events read meanwhile.
func (b *browser) wait(match func(cdpMessage) bool) (cdpMessage, error) {
	timer := time.NewTimer(cdpTimeout)
	defer timer.Stop()
	for {
		select {
		case m, ok := <-b.msgs:
			if !ok {
				return cdpMessage{}, errors.New("chromium closed the pipe")
			}
			if m.Method != "" {
				b.events = append(b.events, m)
			}
			if match(m) {
				return m, nil
			}
		case <-timer.C:
			return cdpMessage{}, errors.New("timed out waiting for chromium")
		}
	}
}

// open navigates the page to url and waits for its load event and its
// fonts.
func (b *browser) open(url string) error {
	b.events = nil
	if err := b.call(b.session, "Page.navigate", map[string]any{"url": url}, nil); err != nil {
		return err
	}
	loaded := func(m cdpMessage) bool { return m.Method == "Page.loadEventFired" && m.SessionID == b.session }
	for _, e := range b.events {
		if loaded(e) {
			return nil
		}
	}
	_, err := b.wait(loaded)
	return err
}

// eval evaluates a JavaScript expression (a promise is awaited) whose
// value is a JSON string, and decodes that into v.
func (b *browser) eval(expr string, v any) error {
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

// viewport sets the page's viewport to width by height CSS pixels, one
// device pixel each.
func (b *browser) viewport(width, height int) error {
	return b.call(b.session, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
}

// screenshot returns a PNG of the page's viewport.
func (b *browser) screenshot() ([]byte, error) {
	var shot struct{ Data string }
	if err := b.call(b.session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &shot); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(shot.Data)
}

// requests returns the URL of every request the page made since the last
// open (Network.requestWillBeSent).
func (b *browser) requests() []string {
	var urls []string
	for _, e := range b.events {
		if e.Method != "Network.requestWillBeSent" {
			continue
		}
		var p struct {
			Request struct{ URL string } `json:"request"`
		}
		if json.Unmarshal(e.Params, &p) == nil {
			urls = append(urls, p.Request.URL)
		}
	}
	return urls
}
