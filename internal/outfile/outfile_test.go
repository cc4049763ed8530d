package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

func TestWriteReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A failing writer leaves the old file and no temporary file behind.
	boom := errors.New("boom")
	err := Write(path, 0o600, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write = %v, want %v", err, boom)
	}
	assertFile(t, path, "old\n")
	assertOnlyFile(t, dir, "out.csv")

	// A successful write replaces the file: a new inode, never the old one truncated.
	before := inode(t, path)
	if err := Write(path, 0o600, writeString("new\n")); err != nil {
		t.Fatal(err)
	}
	assertFile(t, path, "new\n")
	assertOnlyFile(t, dir, "out.csv")
	if inode(t, path) == before {
		t.Errorf("file was rewritten in place, not replaced")
	}
}

func TestWriteMode(t *testing.T) {
	dir := t.TempDir()
	for _, perm := range []os.FileMode{0o600, 0o644} {
		path := filepath.Join(dir, perm.String())
		if err := Write(path, perm, writeString("x")); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != perm {
			t.Errorf("mode %v, want %v", got, perm)
		}
	}
}

func TestSymlinkRefused(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.WriteFile(real, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := Check(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Check(symlink) = %v, want a symbolic link error", err)
	}
	if err := Write(link, 0o600, writeString("x")); err == nil {
		t.Errorf("Write(symlink) succeeded")
	}
	assertFile(t, real, "keep")
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link was replaced: %v %v", fi, err)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, err string // err: "" for success, else a substring of the error
	}{
		{"-", ""},
		{filepath.Join(dir, "new.tsv"), ""},
		{file, ""}, // replaced by Write
		{"", "empty file name"},
		{filepath.Join(dir, "missing", "out.tsv"), "no such directory: " + filepath.Join(dir, "missing")},
		{dir, "is a directory"},
		{filepath.Join(file, "out.tsv"), "not a directory: " + file},
	} {
		err := Check(tc.path)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("Check(%q) = %v, want nil", tc.path, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Check(%q) = %v, want an error containing %q", tc.path, err, tc.err)
		case err != nil && strings.Contains(err.Error(), "\n"):
			t.Errorf("Check(%q) error is not one line: %q", tc.path, err)
		}
	}
	assertOnlyFile(t, dir, "file")
}

// TestCheckReadOnlyDir runs as an unprivileged user: root may write to any
// directory, so as root the test re-runs itself as nobody on a copy of the
// test binary (and is skipped where that is not possible).
func TestCheckReadOnlyDir(t *testing.T) {
	if dir := os.Getenv("OUTFILE_TEST_RODIR"); dir != "" {
		checkReadOnly(t, dir)
		return
	}
	if os.Geteuid() != 0 {
		dir := t.TempDir()
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		checkReadOnly(t, ro)
		return
	}
	base, err := os.MkdirTemp("", "outfile-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "outfile.test")
	ro := filepath.Join(base, "ro")
	copyFile(t, exe, bin)
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestCheckReadOnlyDir$", "-test.v")
	cmd.Env = append(os.Environ(), "OUTFILE_TEST_RODIR="+ro)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Skipf("cannot run the test as nobody: %v", err)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestCheckReadOnlyDir") {
		t.Errorf("as nobody: %v\n%s", err, out)
	}
}

func checkReadOnly(t *testing.T, ro string) {
	err := Check(filepath.Join(ro, "out.csv"))
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "not writable") {
		t.Errorf("Check in a read-only directory = %v, want a not writable error", err)
	}
	if err := Write(filepath.Join(ro, "out.csv"), 0o600, writeString("x")); err == nil {
		t.Errorf("Write in a read-only directory succeeded")
	}
}

func TestWriteDevice(t *testing.T) {
	before, err := os.Stat(os.DevNull)
	if err != nil {
		t.Skip(err)
	}
	if err := Check(os.DevNull); err != nil {
		t.Errorf("Check(%s) = %v", os.DevNull, err)
	}
	if err := Write(os.DevNull, 0o600, writeString("x")); err != nil {
		t.Fatalf("Write(%s) = %v", os.DevNull, err)
	}
	after, err := os.Stat(os.DevNull)
	if err != nil || !os.SameFile(before, after) || after.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("%s was replaced: %v %v", os.DevNull, after, err)
	}
}

func assertFile(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Errorf("%s = %q, want %q", path, b, want)
	}
}

func assertOnlyFile(t *testing.T, dir, name string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != name {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %q, want only %q", dir, names, name)
	}
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestWriteStdout(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stdout
	os.Stdout = f
	err = Write(Stdout, 0o600, writeString("to stdout\n"))
	os.Stdout = saved
	if err != nil {
		t.Fatal(err)
	}
	assertFile(t, f.Name(), "to stdout\n")
}

// writeOrHang runs Write on path and fails the test if it has not returned
// after a minute (a blocked open never does).
func writeOrHang(t *testing.T, path, data string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- Write(path, 0o600, writeString(data)) }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("Write(%s) still blocked after a minute", path)
		return nil
	}
}

func TestWriteFIFOWithoutReaderFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip(err)
	}
	if err := Check(path); err != nil {
		t.Errorf("Check(fifo) = %v", err)
	}
	if err := writeOrHang(t, path, "x"); !errors.Is(err, ErrNoReader) {
		t.Errorf("Write(fifo without reader) = %v, want ErrNoReader", err)
	}
}

func TestWriteFIFOWithReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip(err)
	}
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a reader, already there
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := writeOrHang(t, path, "through the pipe\n"); err != nil {
		t.Fatalf("Write(fifo with reader) = %v", err)
	}
	got, err := io.ReadAll(r)
	if err != nil || string(got) != "through the pipe\n" {
		t.Errorf("reader got %q, %v", got, err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the fifo was replaced: %v %v", fi, err)
	}
}

// TestRemoveUnfinished: a program exiting in the middle of a Write (a
// second signal) leaves no temporary file beside the path, which keeps
// its old contents.
func TestRemoveUnfinished(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := Write(path, 0o600, func(w io.Writer) error {
		if _, err := io.WriteString(w, strings.Repeat("new", 10000)); err != nil {
			return err
		}
		RemoveUnfinished() // what the exit path does
		return nil
	})
	if err == nil {
		t.Error("Write succeeded after its temporary file was removed")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("path holds %.20q, want the old contents", b)
	}
}
