package testserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/gb-bench/gb/internal/testserver/shape"
)

// maxLeftpad caps /leftpad?len=. The padding loop is quadratic in len on
// purpose, so this cap (not 1<<20) keeps one request under about a second.
const maxLeftpad = 1 << 16

// leftpad pads s on the left with ch until it is length runes long.
//
// It is slow on purpose: each step allocates a new string, one rune longer
// (s = ch + s), so a CPU or allocation profile of a loaded server names this
// function at the top. That is the demonstration; do not optimise it.
// It is kept out of line so that profiles name it even without inlining
// information.
//
//go:noinline
func leftpad(s string, length int, ch rune) string {
	pad := string(ch)
	for n := utf8.RuneCountInString(s); n < length; n++ {
		s = pad + s
	}
	return s
}

// leftpadReply is the JSON reply of /leftpad.
type leftpadReply struct {
	Str string `json:"str"`
}

// serveLeftpad answers /leftpad?str=&len=&chr= (chr defaults to a space).
func (s *Server) serveLeftpad(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	length := 0
	if v := q.Get("len"); v != "" {
		var err error
		if length, err = shape.ParseInt(v, 0, maxLeftpad); err != nil {
			badRequest(w, err)
			return
		}
	}
	ch := ' '
	if v, ok := q["chr"]; ok {
		c, size := utf8.DecodeRuneInString(v[0])
		if size == 0 || size != len(v[0]) || c == utf8.RuneError {
			badRequest(w, fmt.Errorf("%w: chr %q (want one character)", shape.ErrSyntax, v[0]))
			return
		}
		ch = c
	}
	b, err := json.Marshal(leftpadReply{Str: leftpad(q.Get("str"), length, ch)})
	if err != nil {
		badRequest(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
}
