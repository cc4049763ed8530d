package main

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill the child when gb dies, whatever
// ends it (a second signal, a closed stdout pipe, SIGKILL).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
