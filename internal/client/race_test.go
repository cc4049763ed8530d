//go:build race

package client

// raceEnabled: the test binary runs under the race detector, whose
// instrumentation deepens every call chain (stack sizes do not hold).
const raceEnabled = true
