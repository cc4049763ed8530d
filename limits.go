package gb

import (
	"runtime"

	"github.com/gb-bench/gb/internal/evloop"
)

// fdMargin is the file descriptors gb needs besides one per connection and
// its event loops': stdio, output files, the profile client, the resolver.
const fdMargin = 32

// loopFDs is the most file descriptors the event loops may hold: a run has
// at most one loop per core (-G is capped at the core count).
func loopFDs() int { return evloop.FilesPerLoop * runtime.NumCPU() }
