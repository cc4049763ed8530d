package gb

import (
	"runtime"
	"syscall"

	"github.com/gb-bench/gb/internal/evloop"
)

// fdMargin is the file descriptors gb needs besides one per connection and
// its event loops': stdio, output files, the profile client, the resolver.
const fdMargin = 32

// loopFDs is the most file descriptors the event loops may hold: a run has
// at most one loop per core (-G is capped at the core count).
func loopFDs() int { return evloop.FilesPerLoop * runtime.NumCPU() }

// checkFileLimit makes sure -c connections fit under RLIMIT_NOFILE,
// raising the soft limit up to the hard limit when needed (Go already does
// so at start-up on Linux), and refuses the run before it starts otherwise.
func checkFileLimit(concurrency int) error {
	need := uint64(concurrency) + fdMargin + uint64(loopFDs())
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return nil // nothing to check against
	}
	if rl.Cur >= need {
		return nil
	}
	if rl.Max >= need {
		rl.Cur = need
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err == nil {
			return nil
		}
	}
	return configErr(false, "-c %d needs %d open files; the limit is %d (ulimit -n)", concurrency, need, rl.Max)
}
