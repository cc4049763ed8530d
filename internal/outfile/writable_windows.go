package outfile

import "os"

// writable reports whether this process may write the file at path, by
// opening it for writing (Windows has no access(2); a device such as NUL
// opens without effect).
func writable(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	return f.Close()
}
