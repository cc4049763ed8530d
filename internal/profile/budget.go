package profile

import (
	"errors"
	"fmt"
	"sync"
)

// errMemory is returned when a profile would take the capture past its
// memory budget.
var errMemory = errors.New("profile: over gb's memory budget for profiles")

// budget is the memory a capture may hold at once, in bytes: bodies as
// received, decompressed profiles and parsed ones (by estimate). Parts
// reserve before they allocate and fail when the budget is spent, so a
// hostile target cannot make gb grow however it shapes its profiles.
// Safe for concurrent use.
type budget struct {
	mu   sync.Mutex
	left int64
}

func newBudget(n int64) *budget { return &budget{left: n} }

// reserve takes n bytes from the budget, or returns an error wrapping
// errMemory (and takes nothing) when fewer are left.
func (b *budget) reserve(n int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.left {
		return fmt.Errorf("%w (%d MiB more asked, %d MiB left)", errMemory, (n+1<<20-1)>>20, b.left>>20)
	}
	b.left -= n
	return nil
}

// release gives n bytes back.
func (b *budget) release(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.left += n
}
