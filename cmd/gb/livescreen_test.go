package main

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// cellWidth is the cells s takes on a terminal.
func cellWidth(s string) int { return styledLine{text(s)}.width() }

// TestFrameRedrawsInPlace: a frame goes to the top-left corner, writes
// each line, erases the rest of a short line and everything below; a
// line that fills the width is not erased (its last cell would go).
func TestFrameRedrawsInPlace(t *testing.T) {
	lines := []styledLine{{bold("ok"), text(" 12")}, {text("0123456789")}}
	got := string(frame(lines, 10, 24, false))
	want := "\x1b[H" + "ok 12\x1b[K" + "\r\n" + "0123456789" + "\r\n\x1b[J"
	if got != want {
		t.Errorf("frame %q, want %q", got, want)
	}
	if got, want := string(frame(lines, 10, 24, true)), "\x1b[H\x1b[1mok\x1b[0m 12\x1b[K"; !strings.HasPrefix(got, want) {
		t.Errorf("styled frame %q, want it to begin %q", got, want)
	}
	if got, want := string(frame(nil, 10, 24, false)), "\x1b[H\x1b[2J"; got != want {
		t.Errorf("empty frame %q, want %q", got, want)
	}
}

// TestFrameNeverScrolls: of more lines than the terminal has rows the
// last are drawn (gb ramp's newest steps and the panel), and no newline
// follows the bottom row.
func TestFrameNeverScrolls(t *testing.T) {
	lines := []styledLine{{text("a")}, {text("b")}, {text("c")}, {text("d")}}
	got := string(frame(lines, 80, 3, false))
	if want := "\x1b[Hb\x1b[K\r\nc\x1b[K\r\nd\x1b[K"; got != want {
		t.Errorf("frame %q, want %q", got, want)
	}
}

// csi matches a control sequence introducer's whole sequence.
var csi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// TestFrameCutsTextNotEscapes: at every width, a frame's visible text is
// no wider than the terminal, every style it opens is reset, and text a
// server sent (escape, bell, C1 CSI, carriage return) is never written
// raw.
func TestFrameCutsTextNotEscapes(t *testing.T) {
	hostile := styledLine{warn("failed 3"), text(" \x1b]0;owned\x07 \x9b2J \u009b2J \r\x7f x"), bold("█░▁ µs 日本")}
	for w := 1; w <= 40; w++ {
		f := string(frame([]styledLine{hostile}, w, 24, true))
		if opened, reset := strings.Count(f, "\x1b[1"), strings.Count(f, "\x1b[0m"); opened != reset {
			t.Errorf("width %d: %d styles opened, %d reset: %q", w, opened, reset, f)
		}
		visible := csi.ReplaceAllString(f, "")
		visible = strings.TrimSuffix(visible, "\r\n")
		if rawControl(visible) {
			t.Errorf("width %d: a raw control character or a cut escape is written: %q", w, visible)
		}
		if n := cellWidth(visible); n > w {
			t.Errorf("width %d: %q is %d cells", w, visible, n)
		}
	}
}

// rawControl reports whether s holds a C0 control byte, DEL, a raw 0x9b
// byte or a C1 control character.
func rawControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f || s[i] == 0x9b {
			return true
		}
	}
	return strings.IndexFunc(s, func(r rune) bool { return r >= 0x80 && r < 0xa0 }) >= 0
}

// TestCellWidths: the block characters and µ take a cell, East Asian wide
// runes two, combining marks none; a cut never splits a wide rune.
func TestCellWidths(t *testing.T) {
	for s, want := range map[string]int{"█░▁▇ µs": 7, "日本": 4, "e\u0301": 1, "a\tb": 3} {
		if got := cellWidth(s); got != want {
			t.Errorf("%q is %d cells, want %d", s, got, want)
		}
	}
	if got := (styledLine{text("a日本")}).cut(4).String(); got != "a日" {
		t.Errorf("cut to 4 cells: %q, want %q", got, "a日")
	}
}

// syncBuffer is a bytes.Buffer safe for the screen's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestScreenLeavesTerminalClean: the screen enters the alternate screen
// and hides the cursor first, draws the panel, and on stop (or when gb
// exits on a second Ctrl-C, which calls leave from another goroutine)
// goes back to the main screen with the cursor shown, and writes nothing
// after that.
func TestScreenLeavesTerminalClean(t *testing.T) {
	for _, exitFirst := range []bool{false, true} {
		var out syncBuffer
		l := newLive(&out, liveLimits{Duration: 10e9, Cores: 1})
		if exitFirst { // as exitNow does, from another goroutine, before the run ends
			for _, f := range atExit {
				f()
			}
			if s := out.String(); !strings.HasSuffix(s, sgrReset+leaveAlt+showCursor) {
				t.Errorf("gb's exit does not leave the alternate screen and show the cursor: %q", s)
			}
		}
		l.update(fixedSnap().snap.Progress)
		l.stop()
		l.scr.changed()
		s := out.String()
		if !strings.HasPrefix(s, enterAlt+eraseAll+home+hideCursor) {
			t.Errorf("exit first %v: the screen does not begin by entering the alternate screen, hiding the cursor: %q", exitFirst, s)
		}
		if !strings.HasSuffix(s, sgrReset+leaveAlt+showCursor) || strings.Count(s, leaveAlt) != 1 {
			t.Errorf("exit first %v: the screen does not end by leaving the alternate screen once, cursor shown: %q", exitFirst, s)
		}
		if shown.Load() != nil {
			t.Errorf("exit first %v: a stopped screen is still the one gb's exit would leave", exitFirst)
		}
	}
}
