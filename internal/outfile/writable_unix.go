//go:build unix

package outfile

import "syscall"

// writable reports whether this process may write the file at path
// (access(2) with W_OK), without opening it.
func writable(path string) error { return syscall.Access(path, 2) }
