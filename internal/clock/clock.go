// Package clock reads the time on gb's hot path from the monotonic clock
// alone.
package clock

import "time"

// base anchors Now: the wall and monotonic times at process start.
var base = time.Now()

// Now returns the current time, as time.Now does, from one reading of the
// monotonic clock: time.Now also reads the wall clock, which costs about as
// much again (75 ns against 42 per call on a KVM guest's vDSO, four times per
// request). The result carries both a wall and a monotonic reading: Sub,
// Before and After use the monotonic one, exactly as with time.Now. Its wall
// time is base's plus the monotonic time since, so it does not follow steps
// of the system clock made while the process runs.
func Now() time.Time { return base.Add(time.Since(base)) }
