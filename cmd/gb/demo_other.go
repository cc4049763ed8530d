//go:build !linux

package main

import "os/exec"

// dieWithParent does nothing where there is no parent-death signal: the
// child is stopped on gb's own exit paths only.
func dieWithParent(*exec.Cmd) {}
