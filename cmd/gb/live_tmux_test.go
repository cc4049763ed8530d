package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// tmuxPane runs a command in a detached 80x30 tmux session on a tmux
// server of its own, and reads its screen.
type tmuxPane struct {
	t      *testing.T
	socket string
}

// startTmux runs shell command cmd in a new pane; it skips the test when
// tmux is missing, unless GB_REQUIRE_TMUX=1.
func startTmux(t *testing.T, cmd string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("GB_REQUIRE_TMUX") == "1" {
			t.Fatal("tmux is required (GB_REQUIRE_TMUX=1) but not installed")
		}
		t.Skip("tmux is not installed")
	}
	p := &tmuxPane{t: t, socket: fmt.Sprintf("gb-live-%d-%d", os.Getpid(), time.Now().UnixNano())}
	p.tmux("new-session", "-d", "-s", "gb", "-x", "80", "-y", "30", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	return p
}

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen is the pane's text, its scrollback included.
func (p *tmuxPane) screen() string { return p.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "gb") }

// clean reports whether the pane is back on its main screen with the
// cursor shown, as a shell needs it after gb.
func (p *tmuxPane) clean() bool {
	return strings.TrimSpace(p.tmux("display-message", "-p", "-t", "gb", "#{alternate_on} #{cursor_flag}")) == "0 1"
}

// await polls the screen until ok accepts it, for at most limit, and
// returns the last screen read.
func (p *tmuxPane) await(limit time.Duration, ok func(string) bool) (string, bool) {
	deadline := time.Now().Add(limit)
	for {
		s := p.screen()
		if ok(s) || time.Now().After(deadline) {
			return s, ok(s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// awaitDuring polls the screen until ok accepts it while gb still runs,
// and returns the last screen read: it gives up once the screen shows
// ended (a line gb prints as it ends), or after a minute (a hang). So the
// panel is read whenever it is up, however late a busy machine started
// gb, not within a fixed few seconds.
func (p *tmuxPane) awaitDuring(ok func(string) bool, ended string) (string, bool) {
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		s := p.screen()
		if ok(s) {
			return s, true
		}
		if strings.Contains(s, ended) || time.Now().After(deadline) {
			return s, false
		}
	}
}

// reportEnd is a line of gb's report: once on screen, the run has ended.
const reportEnd = "Requests per second:"

var (
	panelFailed  = regexp.MustCompile(`(?m)^ok [1-9]\d*  non-2xx [1-9]\d*  failed [1-9]\d* \(timeout`)
	panelRate    = regexp.MustCompile(`(?m)^req/s [1-9]\d*  \(avg `)
	panelLatency = regexp.MustCompile(`(?m)^latency p50 \d+(\.\d)?(µs|ms)  p99 `)
	panelLines   = regexp.MustCompile(`(elapsed \d|req/s \d|latency p50 |gb cpu \d|connections \d+ open)`)
)

// liveURL answers 10% 503 and makes 5% of the requests outlast -s 1.
func liveURL(t *testing.T) string {
	srv := testsupport.Server(t, testserver.Options{})
	return srv.URL() + "/ok?status=200:90,503:10&delay=5ms:95,2000ms:5"
}

// TestLivePanelInTmux runs gb on a terminal: during the run the pane
// shows the panel with a current req/s and the failures; after it, the
// report and no panel.
func TestLivePanelInTmux(t *testing.T) {
	skipUnderRace(t)
	p := startTmux(t, fmt.Sprintf("%s -t 8 -c 10 -s 1 '%s'; sleep 60", gbBin(t), liveURL(t)))
	s, ok := p.awaitDuring(func(s string) bool { return panelFailed.MatchString(s) && panelRate.MatchString(s) }, reportEnd)
	if !ok {
		t.Fatalf("no panel with failures and a current req/s during the run:\n%s", s)
	}
	for _, field := range []string{"elapsed ", " / 8.0s", "ETA ", "connections ", "gb cpu "} {
		if !strings.Contains(s, field) {
			t.Errorf("panel lacks %q:\n%s", field, s)
		}
	}
	// A closed interval of the 1 s series comes three to four seconds in.
	if s, ok := p.awaitDuring(panelLatency.MatchString, reportEnd); !ok {
		t.Errorf("no latency of a closed interval during the run:\n%s", s)
	}
	s, ok = p.await(time.Minute, func(s string) bool { return strings.Contains(s, reportEnd) })
	if !ok {
		t.Fatalf("no report after the run:\n%s", s)
	}
	if panelLines.MatchString(s) || !strings.Contains(s, "Finished ") {
		t.Errorf("after the run, want the report, ab's Finished line and no panel:\n%s", s)
	}
	if !p.clean() {
		t.Errorf("after the run the pane is still on the alternate screen or its cursor hidden")
	}
}

// TestLivePanelCtrlC interrupts a run showing the panel with Ctrl-C: gb
// still prints the full report, and the panel is gone.
func TestLivePanelCtrlC(t *testing.T) {
	skipUnderRace(t)
	p := startTmux(t, fmt.Sprintf("%s -t 30 -c 4 '%s'; sleep 60", gbBin(t), liveURL(t)))
	if s, ok := p.awaitDuring(panelRate.MatchString, reportEnd); !ok {
		t.Fatalf("no panel during the run:\n%s", s)
	}
	p.tmux("send-keys", "-t", "gb", "C-c")
	s, ok := p.await(time.Minute, func(s string) bool { return strings.Contains(s, reportEnd) })
	if !ok {
		t.Fatalf("no report after Ctrl-C:\n%s", s)
	}
	if panelLines.MatchString(s) || strings.Contains(s, "Finished ") || !strings.Contains(s, "Percentage of the requests") {
		t.Errorf("after Ctrl-C, want the full report, no Finished line and no panel:\n%s", s)
	}
	if !p.clean() {
		t.Errorf("after Ctrl-C the pane is still on the alternate screen or its cursor hidden")
	}
}

// TestLivePanelSecondCtrlC: two Ctrl-C in a row leave the shell its main
// screen and cursor, whether the second makes gb exit at once (exitNow,
// atExit) or, as usually here, comes after the first has stopped the run.
// TestScreenLeavesTerminalClean calls the exit's hook directly.
func TestLivePanelSecondCtrlC(t *testing.T) {
	skipUnderRace(t)
	p := startTmux(t, fmt.Sprintf("%s -t 30 -c 4 '%s'; echo exit=$?; sleep 60", gbBin(t), liveURL(t)))
	if s, ok := p.awaitDuring(panelRate.MatchString, reportEnd); !ok {
		t.Fatalf("no panel during the run:\n%s", s)
	}
	p.tmux("send-keys", "-t", "gb", "C-c", "C-c")
	s, ok := p.await(time.Minute, func(s string) bool { return strings.Contains(s, "exit=") })
	if !ok {
		t.Fatalf("gb did not end after two Ctrl-C:\n%s", s)
	}
	if panelLines.MatchString(s) || !p.clean() {
		t.Errorf("after gb's exit on a second Ctrl-C, want no panel, the main screen and the cursor shown:\n%s", s)
	}
}

var (
	panelBar     = regexp.MustCompile(`(?m)^elapsed .*\[([█░]+)\]`) // the time line's progress bar
	panelElapsed = regexp.MustCompile(`(?m)^elapsed \d`)
)

// TestLivePanelFollowsResize: when the terminal narrows during the run the
// panel redraws at the new width (a shorter bar or, when too narrow for
// one, none; no line wider).
func TestLivePanelFollowsResize(t *testing.T) {
	skipUnderRace(t)
	p := startTmux(t, fmt.Sprintf("%s -t 10 -c 4 '%s'; sleep 60", gbBin(t), liveURL(t)))
	if s, ok := p.awaitDuring(panelBar.MatchString, reportEnd); !ok {
		t.Fatalf("no bar in the panel during the run:\n%s", s)
	}
	p.tmux("resize-window", "-t", "gb", "-x", "50")
	narrow := func(s string) bool {
		m := panelBar.FindStringSubmatch(s)
		return panelElapsed.MatchString(s) && (m == nil || len([]rune(m[1])) < 30)
	}
	s, ok := p.awaitDuring(narrow, reportEnd)
	if !ok {
		t.Fatalf("the panel kept its 80-column bar after the pane narrowed to 50:\n%s", s)
	}
	for _, l := range strings.Split(s, "\n") {
		if cellWidth(l) > 50 {
			t.Errorf("line %q is %d wide in a 50-column pane", l, cellWidth(l))
		}
	}
}

var (
	panelRampRow = regexp.MustCompile(`(?m)^ +100 +\d+ +\d+ +\d+\.\d\d`)
	rampTarget2  = regexp.MustCompile(`(?m)^rate target 200/s  achieved `)
	serverLine   = regexp.MustCompile(`(?m)^server: cpu (\d+\.\d\d|-) cores, gc (\d+ \(\+\d+\)|-)`)
)

// TestRampPanelInTmux runs gb ramp on a terminal: during the second step
// the pane shows the first step's row above that step's panel; after the
// ramp, the step lines and the summary, and no panel.
func TestRampPanelInTmux(t *testing.T) {
	skipUnderRace(t)
	p := startTmux(t, fmt.Sprintf("%s ramp -k -c 4 --rate-from 100 --rate-to 200 --rate-step 100 --step-time 3s --pause 0 '%s'; sleep 60",
		gbBin(t), liveURL(t)))
	s, ok := p.awaitDuring(func(s string) bool { return panelRampRow.MatchString(s) && rampTarget2.MatchString(s) }, "saturation:")
	if !ok {
		t.Fatalf("no first step's row above step 2's panel:\n%s", s)
	}
	s, ok = p.await(time.Minute, func(s string) bool { return strings.Contains(s, "saturation:") })
	if !ok {
		t.Fatalf("no summary after the ramp:\n%s", s)
	}
	if panelLines.MatchString(s) || !strings.Contains(s, "   2          200 ") {
		t.Errorf("after the ramp, want the step lines and no panel:\n%s", s)
	}
	if !p.clean() {
		t.Errorf("after the ramp the pane is still on the alternate screen or its cursor hidden")
	}
}

// TestLivePanelServerInTmux: with --profile the panel shows the server's
// CPU and GC line during the run.
func TestLivePanelServerInTmux(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	p := startTmux(t, fmt.Sprintf("%s -t 5 -c 4 --profile=cpu --profile-dir %s '%s'; sleep 60", gbBin(t), dir, liveURL(t)))
	if s, ok := p.awaitDuring(serverLine.MatchString, reportEnd); !ok {
		t.Fatalf("no server line during a --profile run:\n%s", s)
	}
	if s, ok := p.await(time.Minute, func(s string) bool { return strings.Contains(s, reportEnd) }); !ok || serverLine.MatchString(s) {
		t.Errorf("after the run, want the report and no panel:\n%s", s)
	}
}
