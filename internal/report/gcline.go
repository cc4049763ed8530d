package report

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"time"
)

// GCSummary writes GoHttpBench's GC summary line of gb's own runtime
// (NumGC, last and mean pause, pause overhead, heap, allocation rate, pause
// quantiles) for -v 2. It goes to stderr: its "NN%" token must not follow
// ab's report on stdout.
func GCSummary(w io.Writer, elapsed time.Duration) {
	var gs debug.GCStats
	gs.PauseQuantiles = make([]time.Duration, 100)
	debug.ReadGCStats(&gs)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	secs := max(elapsed.Seconds(), 1e-9)
	if gs.NumGC == 0 {
		fmt.Fprintf(w, "Alloc:%s Sys:%s Alloc(Rate):%s/s\n", sizeString(ms.Alloc), sizeString(ms.Sys),
			sizeString(uint64(float64(ms.TotalAlloc)/secs)))
		return
	}
	fmt.Fprintf(w, "NumGC:%d Pause:%s Pause(Avg):%s Overhead:%3.2f%% Alloc:%s Sys:%s Alloc(Rate):%s/s Histogram:%s %s %s\n",
		gs.NumGC, durString(gs.Pause[0]), durString(gs.PauseTotal/time.Duration(len(gs.Pause))),
		100*gs.PauseTotal.Seconds()/secs, sizeString(ms.Alloc), sizeString(ms.Sys),
		sizeString(uint64(float64(ms.TotalAlloc)/secs)),
		durString(gs.PauseQuantiles[94]), durString(gs.PauseQuantiles[98]), durString(gs.PauseQuantiles[99]))
}

// durString prints a duration as GoHttpBench does: two decimals and the
// largest fitting unit, "0" for zero.
func durString(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d < time.Microsecond:
		return fmt.Sprintf("%.2fns", float64(d))
	case d < time.Millisecond:
		return fmt.Sprintf("%.2fus", float64(d)/1e3)
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(d)/1e6)
	case d < time.Minute:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%.2fm", d.Minutes())
	}
	return fmt.Sprintf("%.2fh", d.Hours())
}

// sizeString prints bytes in base 1024 as GoHttpBench does.
func sizeString(b uint64) string {
	switch {
	case b < 1<<10:
		return fmt.Sprintf("%dB", b)
	case b < 1<<20:
		return fmt.Sprintf("%.2fK", float64(b)/(1<<10))
	case b < 1<<30:
		return fmt.Sprintf("%.2fM", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.2fG", float64(b)/(1<<30))
}
