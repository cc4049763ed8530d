//go:build race

package h3

// raceEnabled: the test binary runs under the race detector, whose
// instrumentation allocates (allocation counts do not hold).
const raceEnabled = true
