// Package rusage reads this process's own CPU time and peak resident
// memory, on every system gb builds for (getrusage on Unix, with macOS's
// bytes turned into KiB; GetProcessTimes on Windows, without memory).
package rusage
