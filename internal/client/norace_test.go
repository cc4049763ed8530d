//go:build !race

package client

// raceEnabled: the test binary runs without the race detector.
const raceEnabled = false
