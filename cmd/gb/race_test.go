//go:build race

package main

// raceEnabled: this test binary runs under the race detector, which does
// not watch the gb binary the end-to-end tests start.
const raceEnabled = true
