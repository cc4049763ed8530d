//go:build !unix

package main

import "os"

// notifyResize does nothing: without SIGWINCH the panel keeps the width
// it read at each frame.
func notifyResize(chan<- os.Signal) {}

// stopResize does nothing (see notifyResize).
func stopResize(chan<- os.Signal) {}
