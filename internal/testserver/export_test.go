package testserver

// What the external tests (package testserver_test) check inside.

// Leftpad is the deliberately slow padding behind /leftpad.
var Leftpad = leftpad

// StallPending reports whether a stall deadline is set on s.
func StallPending(s *Server) bool { return !s.stall.cur.Load().until.IsZero() }
