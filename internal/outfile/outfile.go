package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Stdout is the path that means standard output.
const Stdout = "-"

// Check reports whether path can be written by [Write]: "-" always can;
// otherwise its directory must exist and accept new files (checked by
// creating and removing a temporary file), and path must not be a
// directory, a symbolic link or a socket. An existing file is fine: Write
// replaces it. An existing device or named pipe must be writable. Check
// does not open a named pipe (opening and closing it would end its
// reader's input): Write refuses one that has no reader when it writes.
func Check(path string) error {
	if path == Stdout {
		return nil
	}
	fi, err := target(path)
	if err != nil {
		return err
	}
	if inPlace(fi) {
		if err := writable(path); err != nil {
			return fmt.Errorf("not writable: %w", err)
		}
		return nil
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".gb-check-*")
	if err != nil {
		return dirError(dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// Write writes the file at path with what fn writes, buffered. For "-" it
// writes to standard output. Otherwise it writes a new temporary file
// (created with O_EXCL) in path's directory, syncs it, sets its mode to
// perm (exactly, whatever the umask: use 0600 for files that hold request
// data) and renames it over path, so readers see the old file or the
// complete new one. A path that is a symbolic link is refused. A path that
// is a character device or a named pipe (/dev/null, a fifo) is written in
// place; a named pipe is opened without waiting for a reader, so Write
// fails at once with ErrNoReader when none has it open, never blocks
// there, and its writes wait for the reader in Go's poller rather than
// in a blocking system call. On any error the temporary file is removed
// and path is untouched.
func Write(path string, perm os.FileMode, fn func(io.Writer) error) error {
	if path == Stdout {
		return writeTo(os.Stdout, fn)
	}
	fi, err := target(path)
	if err != nil {
		return err
	}
	if inPlace(fi) {
		return writeInPlace(path, fn)
	}
	return replace(path, perm, fn)
}

// inPlace reports whether fi (nil: no file yet) is a device or a named
// pipe, which Write writes in place rather than replacing.
func inPlace(fi fs.FileInfo) bool {
	return fi != nil && fi.Mode()&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe) != 0
}

// target returns path's file info (nil when it does not exist yet), or an
// error when it is a kind of file that Write refuses.
func target(path string) (fs.FileInfo, error) {
	if path == "" {
		return nil, errors.New("empty file name")
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, syscall.ENOTDIR):
		return nil, fmt.Errorf("not a directory: %s", filepath.Dir(path))
	case err != nil:
		return nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, errors.New("is a symbolic link; give the real path")
	case fi.IsDir():
		return nil, errors.New("is a directory")
	case fi.Mode()&fs.ModeSocket != 0:
		return nil, errors.New("is a socket")
	}
	return fi, nil
}

// dirError explains why a file cannot be created in dir.
func dirError(dir string, err error) error {
	fi, serr := os.Stat(dir)
	switch {
	case errors.Is(serr, fs.ErrNotExist):
		return fmt.Errorf("no such directory: %s", dir)
	case serr == nil && !fi.IsDir():
		return fmt.Errorf("not a directory: %s", dir)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("directory %s is not writable: %w", dir, fs.ErrPermission)
	case errors.Is(err, syscall.EROFS):
		return fmt.Errorf("directory %s is on a read-only file system: %w", dir, syscall.EROFS)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cannot create a file in %s: %w", dir, err)
}

// replace writes a temporary file next to path and renames it over path.
func replace(path string, perm os.FileMode, fn func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return dirError(dir, err)
	}
	unfinished.add(f.Name())
	defer unfinished.remove(f.Name())
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = writeTo(f, fn); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if _, err = target(path); err != nil { // it may have changed while fn ran
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

// unfinished are the temporary files of the writes under way.
var unfinished tempFiles

// tempFiles is a set of temporary file names, safe for concurrent use.
type tempFiles struct {
	mu    sync.Mutex
	names map[string]struct{}
}

func (t *tempFiles) add(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.names == nil {
		t.names = map[string]struct{}{}
	}
	t.names[name] = struct{}{}
}

func (t *tempFiles) remove(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.names, name)
}

// RemoveUnfinished removes the temporary files of the writes under way,
// for a program about to exit in the middle of one (a second signal): no
// ".NAME.tmp-*" file is left beside the paths, which keep their old
// contents. Writes still running fail afterwards.
func RemoveUnfinished() {
	unfinished.mu.Lock()
	defer unfinished.mu.Unlock()
	for name := range unfinished.names {
		os.Remove(name)
		delete(unfinished.names, name)
	}
}

// ErrNoReader is Write's error for a named pipe that no process has open
// for reading: opening it would block until one does.
var ErrNoReader = errors.New("is a named pipe with no reader (start the reader first)")

// writeInPlace writes to an existing device or named pipe.
func writeInPlace(path string, fn func(io.Writer) error) error {
	flag := os.O_WRONLY
	if fi, err := os.Stat(path); err == nil && fi.Mode()&fs.ModeNamedPipe != 0 {
		flag |= syscall.O_NONBLOCK // ENXIO instead of waiting for a reader
	}
	f, err := os.OpenFile(path, flag, 0)
	if errors.Is(err, syscall.ENXIO) && flag&syscall.O_NONBLOCK != 0 {
		return ErrNoReader
	}
	if err != nil {
		return err
	}
	if err := writeTo(f, fn); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeTo runs fn on a buffer over w and flushes it.
func writeTo(w io.Writer, fn func(io.Writer) error) error {
	b := bufio.NewWriter(w)
	if err := fn(b); err != nil {
		return err
	}
	return b.Flush()
}

// syncDir makes the rename durable; file systems that cannot sync a
// directory are not an error.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}
