//go:build unix

package gb

import "syscall"

// checkFileLimit makes sure -c connections fit under RLIMIT_NOFILE,
// raising the soft limit up to the hard limit when needed (Go already does
// so at start-up on Linux), and refuses the run before it starts otherwise.
func checkFileLimit(concurrency int) error {
	need := uint64(concurrency) + fdMargin + uint64(loopFDs())
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return nil // nothing to check against
	}
	if uint64(rl.Cur) >= need {
		return nil
	}
	if uint64(rl.Max) >= need {
		rl.Cur = like(rl.Cur, need)
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err == nil {
			return nil
		}
	}
	return configErr("Concurrency", "{Concurrency} %d needs %d open files; the limit is %d (ulimit -n)", concurrency, need, rl.Max)
}

// like converts v to the type of an Rlimit field: uint64 on Linux and
// macOS, int64 on the BSDs.
func like[T int64 | uint64](_ T, v uint64) T { return T(v) }
