//go:build !race

package h1

// raceEnabled: the test binary runs without the race detector.
const raceEnabled = false
