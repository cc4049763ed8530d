package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"

	"golang.org/x/term"
)

// The live panel's terminal drawing: a frame of lines on the alternate
// screen, redrawn in place at a bounded rate. It reads no input, puts the
// terminal in no raw mode and installs no handler for SIGINT: Ctrl-C stays
// gb's (runSignalled), and whatever the terminal echoes meanwhile (^C)
// goes with the alternate screen when the panel leaves.

// Control sequences (ECMA-48 and xterm's private modes).
const (
	enterAlt   = "\x1b[?1049h" // save the cursor, switch to the alternate screen
	leaveAlt   = "\x1b[?1049l" // back to the main screen, cursor restored
	hideCursor = "\x1b[?25l"
	showCursor = "\x1b[?25h"
	home       = "\x1b[H"
	eraseLine  = "\x1b[K" // from the cursor to the end of the line
	eraseBelow = "\x1b[J" // from the cursor to the end of the screen
	eraseAll   = "\x1b[2J"
	sgrReset   = "\x1b[0m"
)

// frameEvery is the shortest time between two frames: 10 frames a second
// at most, however often the panel changes (bubbletea's bound was 60).
const frameEvery = 100 * time.Millisecond

// defaultWidth is the width when the terminal's cannot be read.
const defaultWidth = 80

// cellStyle is how a span is drawn; the zero value is plain.
type cellStyle uint8

const (
	stylePlain cellStyle = iota
	styleBold            // labels
	styleWarn            // bold red: failures, gb's own CPU limit
)

// sgr is the style's Select Graphic Rendition sequence; "" for plain.
func (s cellStyle) sgr() string {
	switch s {
	case styleBold:
		return "\x1b[1m"
	case styleWarn:
		return "\x1b[1;31m"
	}
	return ""
}

// span is text drawn in one style. Its text may hold any bytes: drawing
// shows a control character as '?' and never writes it.
type span struct {
	text  string
	style cellStyle
}

// text is s, plain.
func text(s string) span { return span{text: s} }

// textf is a plain formatted span.
func textf(format string, a ...any) span { return span{text: fmt.Sprintf(format, a...)} }

// bold is s in bold.
func bold(s string) span { return span{s, styleBold} }

// warn is s in bold red.
func warn(s string) span { return span{s, styleWarn} }

// styledLine is one line of a frame: spans, no newline.
type styledLine []span

// String is the line's text without styles, control characters shown as
// '?', as the terminal shows it.
func (l styledLine) String() string {
	var b strings.Builder
	for _, s := range l {
		for _, r := range s.text {
			b.WriteRune(printable(r))
		}
	}
	return b.String()
}

// width is the cells the line takes on a terminal.
func (l styledLine) width() int {
	n := 0
	for _, s := range l {
		for _, r := range s.text {
			n += cells(printable(r))
		}
	}
	return n
}

// cut is the line's first w cells, whole runes only: a wide rune that
// would straddle the edge is left out. Styles stay with their spans, so
// no escape sequence is ever cut; control characters become '?'.
func (l styledLine) cut(w int) styledLine {
	var out styledLine
	n := 0
	for _, s := range l {
		var b strings.Builder
		full := false
		for _, r := range s.text {
			r = printable(r)
			if n+cells(r) > w {
				full = true
				break
			}
			n += cells(r)
			b.WriteRune(r)
		}
		if b.Len() > 0 {
			out = append(out, span{b.String(), s.style})
		}
		if full {
			break
		}
	}
	return out
}

// printable is r as the panel may write it: a control character (C0,
// DEL, C1) is '?', a tab a space; everything else is itself.
func printable(r rune) rune {
	switch {
	case r == '\t':
		return ' '
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return '?'
	}
	return r
}

// cells is how many terminal cells printable rune r takes: 0 for a
// combining mark or a zero-width format character, 2 for the East Asian
// wide and emoji blocks, 1 for the rest (ASCII, µ, the block characters
// the panel draws).
func cells(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	}
	for _, b := range wideRunes {
		if r >= b[0] && r <= b[1] {
			return 2
		}
	}
	return 1
}

// wideRunes are the ranges of runes terminals draw two cells wide (the
// main East Asian Wide and Fullwidth blocks and the emoji pictographs).
var wideRunes = [...][2]rune{
	{0x1100, 0x115f}, {0x2e80, 0x303e}, {0x3041, 0x33ff}, {0x3400, 0x4dbf}, {0x4e00, 0x9fff},
	{0xa000, 0xa4cf}, {0xac00, 0xd7a3}, {0xf900, 0xfaff}, {0xfe30, 0xfe4f}, {0xff00, 0xff60},
	{0xffe0, 0xffe6}, {0x1f300, 0x1f64f}, {0x1f900, 0x1f9ff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd},
}

// frame is the bytes that redraw the screen with lines, from the top-left
// corner: each line cut to width cells, erased to its end when shorter,
// and the rest of the screen erased. Of more lines than height (0 =
// unknown) the last height are drawn, so the screen never scrolls. styled
// says whether to write the spans' styles.
func frame(lines []styledLine, width, height int, styled bool) []byte {
	if height > 0 && len(lines) > height {
		lines = lines[len(lines)-height:]
	}
	var b bytes.Buffer
	b.WriteString(home)
	if len(lines) == 0 {
		b.WriteString(eraseAll)
		return b.Bytes()
	}
	for i, l := range lines {
		l = l.cut(width)
		for _, s := range l {
			if sgr := s.style.sgr(); styled && sgr != "" {
				b.WriteString(sgr + s.text + sgrReset)
			} else {
				b.WriteString(s.text)
			}
		}
		if l.width() < width { // a full line leaves the cursor on its last cell: erasing would clear it
			b.WriteString(eraseLine)
		}
		if i < len(lines)-1 {
			b.WriteString("\r\n")
		}
	}
	if height == 0 || len(lines) < height { // a next line exists: erase from there down
		b.WriteString("\r\n" + eraseBelow)
	}
	return b.Bytes()
}

// screen draws frames on a terminal's alternate screen from its own
// goroutine until stop.
type screen struct {
	out    io.Writer
	fd     int  // out's descriptor; -1 if it has none
	styled bool // write styles: out is a terminal, NO_COLOR is unset and TERM is not dumb
	draw   func(width int) []styledLine

	dirty chan struct{} // a frame is due; buffered, one pending at most
	quit  chan struct{} // closed by stop
	done  chan struct{} // closed when the goroutine has left the screen

	mu   sync.Mutex // serialises writes to out with leave
	left bool       // the screen was left: nothing more is drawn
}

// newScreen enters the alternate screen on out, hides the cursor and
// draws draw's lines at once and, at most every frameEvery, again after
// each changed. draw is called from the screen's goroutine with the
// terminal's width.
func newScreen(out io.Writer, draw func(width int) []styledLine) *screen {
	s := &screen{out: out, fd: -1, draw: draw,
		dirty: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	if f, ok := out.(interface{ Fd() uintptr }); ok {
		s.fd = int(f.Fd())
	}
	s.styled = s.fd >= 0 && term.IsTerminal(s.fd) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	s.write([]byte(enterAlt + eraseAll + home + hideCursor))
	s.changed()
	go s.loop()
	return s
}

// changed asks for a new frame; it never blocks.
func (s *screen) changed() {
	select {
	case s.dirty <- struct{}{}:
	default:
	}
}

// stop leaves the alternate screen, showing the cursor again, and returns
// once the terminal is as it was. Call it once.
func (s *screen) stop() {
	close(s.quit)
	<-s.done
}

// loop draws a frame on each change and on each resize, no two within
// frameEvery, until stop.
func (s *screen) loop() {
	defer close(s.done)
	defer s.leave()
	resized := make(chan os.Signal, 1)
	notifyResize(resized)
	defer stopResize(resized)
	pause := time.NewTimer(0)
	defer pause.Stop()
	clear := false // a resize: the old frame may have wrapped; start from a blank screen
	for {
		select {
		case <-s.quit:
			return
		case <-s.dirty:
		case <-resized:
			clear = true
		}
		select { // the bound on the frame rate
		case <-s.quit:
			return
		case <-pause.C:
		}
		width, height := s.size()
		f := frame(s.draw(width), width, height, s.styled)
		if clear {
			f = append([]byte(eraseAll), f...)
			clear = false
		}
		s.write(f)
		pause.Reset(frameEvery)
	}
}

// size is the terminal's width and height; defaultWidth and 0 (unknown)
// when they cannot be read.
func (s *screen) size() (width, height int) {
	if s.fd >= 0 {
		if w, h, err := term.GetSize(s.fd); err == nil && w > 0 {
			return w, max(h, 0)
		}
	}
	return defaultWidth, 0
}

// write writes b unless the screen was left.
func (s *screen) write(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.left {
		_, _ = s.out.Write(b)
	}
}

// leave switches back to the main screen and shows the cursor, once; safe
// from any goroutine (gb's exit on a second Ctrl-C calls it too).
func (s *screen) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.left {
		s.left = true
		_, _ = io.WriteString(s.out, sgrReset+leaveAlt+showCursor)
	}
}
