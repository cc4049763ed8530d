package main

// Output files, written once for every command: checked before a run
// (checkOutputs), then written atomically or to stdout for "-" (writeAll,
// writeOut).

import (
	"fmt"
	"io"

	"github.com/gb-bench/gb/internal/getopt"
	"github.com/gb-bench/gb/internal/outfile"
)

// reportFile is one output file: its flag, its path ("" = not asked for)
// and its renderer.
type reportFile struct {
	flag, path string
	write      func(io.Writer) error
}

// writeAll writes the files asked for; "-" is stdout.
func writeAll(files []reportFile, stdout io.Writer) error {
	for _, f := range files {
		if f.path == "" {
			continue
		}
		if err := writeOut(f.path, stdout, f.write); err != nil {
			return fmt.Errorf("cannot write %s %s: %v", f.flag, f.path, err)
		}
	}
	return nil
}

// writeOut writes an output file with write; "-" is stdout, the command's
// own (which is not always os.Stdout: tests run gb in-process).
func writeOut(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == outfile.Stdout && stdout != nil {
		return write(stdout)
	}
	return outfile.Write(path, 0o600, write)
}

// checkOutputs checks the output files asked for before a run: no two on
// one path (one would overwrite the other; two on stdout would
// interleave), and each writable. write is not used.
func checkOutputs(files []reportFile) error {
	seen := map[string]string{}
	for _, f := range files {
		if f.path == "" {
			continue
		}
		if other, dup := seen[f.path]; dup {
			return getopt.Errorf(false, "%s and %s both write to %s: give each its own file", other, f.flag, f.path)
		}
		seen[f.path] = f.flag
		if err := outfile.Check(f.path); err != nil {
			return fmt.Errorf("cannot write %s %s: %v", f.flag, f.path, err)
		}
	}
	return nil
}
