package client

import "syscall"

// ipBindAddressNoPort is Linux's IP_BIND_ADDRESS_NO_PORT: a socket bound to
// a source address gets its port at connect, for the whole 4-tuple, so each
// source address has its full ephemeral range for every server address.
const ipBindAddressNoPort = 24

// noPortAtBind sets IP_BIND_ADDRESS_NO_PORT on fd; kernels without it
// (before 4.2) keep binding the port at bind.
func noPortAtBind(fd uintptr) {
	_ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IP, ipBindAddressNoPort, 1)
}
