package profile

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Kind names one thing gb can capture from the target.
type Kind string

// The kinds, in the order gb captures, saves and reports them.
const (
	CPU       Kind = "cpu"
	Heap      Kind = "heap"
	Allocs    Kind = "allocs"
	Goroutine Kind = "goroutine"
	Block     Kind = "block"
	Mutex     Kind = "mutex"
	Trace     Kind = "trace"
)

// kinds lists every Kind in order.
var kinds = []Kind{CPU, Heap, Allocs, Goroutine, Block, Mutex, Trace}

// DefaultKinds is what a bare --profile captures.
const DefaultKinds = "cpu,allocs"

// ParseKinds parses a comma-separated list of kinds ("cpu,heap,trace").
// It returns them deduplicated, in gb's order; an empty list or an
// unknown name is an error.
func ParseKinds(s string) ([]Kind, error) {
	var ks []Kind
	for name := range strings.SplitSeq(s, ",") {
		ks = append(ks, Kind(strings.TrimSpace(name)))
	}
	return ordered(ks)
}

// ordered returns ks deduplicated in gb's order, refusing unknown kinds
// and an empty list.
func ordered(ks []Kind) ([]Kind, error) {
	var out []Kind
	for _, k := range ks {
		if !slices.Contains(kinds, k) {
			return nil, fmt.Errorf("profile: unknown kind %q (want cpu, heap, allocs, goroutine, block, mutex or trace)", string(k))
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("profile: no kinds")
	}
	slices.SortFunc(out, func(a, b Kind) int { return slices.Index(kinds, a) - slices.Index(kinds, b) })
	return out, nil
}

// file is the name gb saves the kind under: never a name from the server.
func (k Kind) file() string {
	if k == Trace {
		return "trace.out"
	}
	return string(k) + ".pb.gz"
}

// delta reports whether the kind is saved as the difference of a snapshot
// before and one after the load.
func (k Kind) delta() bool { return k == Heap || k == Allocs || k == Block || k == Mutex }
