// Package outfile writes gb's output files (-e, -g, --json, ...) so that a
// run never ends with a half-written or clobbered file: Check validates a
// path before the run starts, and Write replaces the file atomically after
// it (a temporary file in the same directory, synced, then renamed).
//
// The path "-" means standard output. Error messages are one line without
// the path, meant to follow it: "gb: cannot write -g out.tsv: <error>".
package outfile
