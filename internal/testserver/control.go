package testserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/gb-bench/gb/internal/testserver/shape"
)

// maxTimers bounds the stalls /__ctl?at= may have pending.
const maxTimers = 64

// ctlReply is the JSON reply of /__ctl.
type ctlReply struct {
	Stall string `json:"stall"`
	At    string `json:"at"`
}

// serveCtl answers POST /__ctl?stall=D[&at=T]: Stall(D) now, or T from
// now. stall=0 cancels.
func (s *Server) serveCtl(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d, err := shape.ParseDelay(q.Get("stall"))
	var at time.Duration
	if err == nil && q.Has("at") {
		at, err = shape.ParseDelay(q.Get("at"))
	}
	if err == nil && !q.Has("stall") {
		err = fmt.Errorf("%w: /__ctl needs stall=", shape.ErrSyntax)
	}
	if err == nil {
		err = s.stallAt(d, at)
	}
	if err != nil {
		badRequest(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(ctlReply{Stall: d.String(), At: at.String()})
}

// stallAt calls Stall(d) after at (now when at is 0).
func (s *Server) stallAt(d, at time.Duration) error {
	if at <= 0 {
		s.Stall(d)
		return nil
	}
	s.timerMu.Lock()
	defer s.timerMu.Unlock()
	if len(s.timers) >= maxTimers {
		return fmt.Errorf("%w: more than %d scheduled stalls", shape.ErrSyntax, maxTimers)
	}
	if s.timers == nil {
		s.timers = make(map[*time.Timer]struct{})
	}
	var t *time.Timer
	t = time.AfterFunc(at, func() {
		s.timerMu.Lock()
		delete(s.timers, t)
		s.timerMu.Unlock()
		s.Stall(d)
	})
	s.timers[t] = struct{}{}
	return nil
}

// serveLedger answers GET /__ledger with the ledger as JSON.
func (s *Server) serveLedger(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(s.Ledger())
}

// serveReset answers POST /__reset: ResetLedger, 204.
func (s *Server) serveReset(w http.ResponseWriter, _ *http.Request) {
	s.ResetLedger()
	w.WriteHeader(http.StatusNoContent)
}
