//go:build linux

package client

import "testing"

// BenchmarkNewConnectionRequestLoop is ab's default mode on the event
// loop: 20 tasks, each request on a new connection (socket, connect,
// write, read, close). Its allocs/op are the connect path's (the
// in-process server's included).
func BenchmarkNewConnectionRequestLoop(b *testing.B) { benchLoop(b, 20, false) }
