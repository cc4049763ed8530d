package rusage

import (
	"syscall"
	"time"
)

// Self returns this process's CPU time so far (user and kernel, GetProcessTimes)
// and 0 for its peak resident memory, which Windows does not report
// through the syscall package (the report then leaves rss out).
func Self() (cpu time.Duration, maxRSSKiB int64) {
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0, 0
	}
	var created, exited, kernel, user syscall.Filetime
	if syscall.GetProcessTimes(h, &created, &exited, &kernel, &user) != nil {
		return 0, 0
	}
	ticks := func(t syscall.Filetime) int64 { return int64(t.HighDateTime)<<32 | int64(t.LowDateTime) }
	return time.Duration(ticks(kernel)+ticks(user)) * 100, 0 // 100 ns ticks
}
