//go:build race

package h2

// raceEnabled: the test binary runs under the race detector, whose
// instrumentation allocates.
const raceEnabled = true
