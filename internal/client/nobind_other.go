//go:build !linux

package client

// noPortAtBind does nothing: IP_BIND_ADDRESS_NO_PORT is Linux's.
func noPortAtBind(uintptr) {}
