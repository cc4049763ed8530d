//go:build race

package record

// raceEnabled: the test binary runs under the race detector, whose
// instrumentation allocates (heap byte counts do not hold).
const raceEnabled = true
