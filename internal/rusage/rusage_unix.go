//go:build unix

package rusage

import (
	"runtime"
	"syscall"
	"time"
)

// Self returns this process's CPU time so far (user and system) and its peak
// resident memory in KiB (getrusage); zeros when it cannot tell.
func Self() (cpu time.Duration, maxRSSKiB int64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	rss := int64(ru.Maxrss)
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		rss >>= 10 // bytes there, KiB elsewhere
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), rss
}
