package atomicfile_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tablewise/tablewise/core/atomicfile"
)

func TestWriteFileReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteFile(path, []byte("new contents"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "new contents" {
		t.Fatalf("read %q, %v", b, err)
	}
	assertOnly(t, dir, "out.csv")
}

// TestReplacedFileKeepsItsMode: a file replaced keeps the permissions it
// had, as a shell's > leaves them: a file only its owner could read must
// not become readable by everyone because an export or a chart replaced
// it, nor a shared one lose its group's access.
func TestReplacedFileKeepsItsMode(t *testing.T) {
	for _, mode := range []fs.FileMode{0o600, 0o664, 0o640} {
		path := filepath.Join(t.TempDir(), "out.csv")
		if err := os.WriteFile(path, []byte("old"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil { // the umask may have cut it
			t.Fatal(err)
		}
		if err := atomicfile.WriteFile(path, []byte("new"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := atomicfile.Create(path, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("newer")
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != mode {
			t.Errorf("a %v file replaced twice: mode %v (%v), want %v", mode, fi.Mode().Perm(), err, mode)
		}
		if b, _ := os.ReadFile(path); string(b) != "newer" {
			t.Errorf("a %v file replaced: holds %q, want \"newer\"", mode, b)
		}
	}
}

// A file aborted half-way leaves the target as it was and no temporary
// file behind; the target is never seen half written.
func TestAbortLeavesTargetAlone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("half"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("target changed before Commit: %q", b)
	}
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("target changed by Abort: %q", b)
	}
	if err := f.Commit(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Commit after Abort = %v, want os.ErrClosed", err)
	}
	assertOnly(t, dir, "out.csv")
}

func TestCreateInMissingDirectoryFails(t *testing.T) {
	if _, err := atomicfile.Create(filepath.Join(t.TempDir(), "no", "such", "x.png"), 0o644); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Create in a missing directory = %v, want ErrNotExist", err)
	}
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) != len(names) || (len(got) > 0 && got[0] != names[0]) {
		t.Errorf("directory holds %v, want %v", got, names)
	}
}

// TestPermissionsFollowUmask: a file is created with perm less the umask,
// as os.WriteFile does, and errors name the target, not the temporary file.
func TestPermissionsFollowUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "out.csv")
	if err := atomicfile.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v (%v), want 0640 under umask 027", fi.Mode().Perm(), err)
	}
	missing := filepath.Join(t.TempDir(), "no", "out.csv")
	err := atomicfile.WriteFile(missing, []byte("x"), 0o644)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != missing || strings.Contains(err.Error(), ".tmp") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("WriteFile in a missing directory = %v, want a *fs.PathError on %s", err, missing)
	}
}

// TestWriteToFIFO writes into a named pipe the user named, as a shell's >
// would: the pipe stays a pipe and its reader gets the bytes.
func TestWriteToFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := atomicfile.WriteFile(path, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the pipe was replaced: %v, %v", fi.Mode(), err)
	}
	b := make([]byte, 64)
	n, _ := r.Read(b)
	if string(b[:n]) != "a,b\n1,2\n" {
		t.Errorf("the reader got %q", b[:n])
	}
}

// TestWriteThroughStdoutLink is /dev/stdout: a link to /proc/self/fd/N.
// The bytes go to that descriptor and the link stays in place (renaming
// over /dev/stdout as root would replace the system's link with a file).
func TestWriteThroughStdoutLink(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	fd := "/proc/self/fd/" + strconv.Itoa(int(pw.Fd()))
	if _, err := os.Stat(fd); err != nil {
		t.Skipf("no %s: %v", fd, err)
	}
	link := filepath.Join(t.TempDir(), "stdout")
	if err := os.Symlink(fd, link); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteFile(link, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v, %v", fi.Mode(), err)
	}
	pw.Close()
	b, _ := io.ReadAll(pr)
	if string(b) != "x\n" {
		t.Errorf("the pipe got %q", b)
	}
}

// TestDeviceRefused: a device other than the null device (a link planted
// to /dev/zero, say) is neither written nor replaced.
func TestDeviceRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	link := filepath.Join(t.TempDir(), "out.csv")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	err := atomicfile.WriteFile(link, []byte("x"), 0o644)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != link || !strings.Contains(err.Error(), "device") {
		t.Fatalf("err = %v, want a *fs.PathError naming %s and saying it is a device", err, link)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v, %v", fi.Mode(), err)
	}
}

// TestLongNameIsWritten: a file name near the system's limit (255 bytes)
// is a name the user may give. The temporary file beside it is named
// after it, and was longer than the limit, so the write failed with "file
// name too long" for a name that is not. The file is written, and nothing
// is left beside it.
func TestLongNameIsWritten(t *testing.T) {
	dir := t.TempDir()
	for _, base := range []string{strings.Repeat("b", 251) + ".csv", strings.Repeat("é", 125) + ".csv"} {
		path := filepath.Join(dir, base)
		if err := atomicfile.WriteFile(path, []byte("a\n"), 0o644); err != nil {
			t.Fatalf("%d-byte name: %v", len(base), err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != "a\n" {
			t.Errorf("%d-byte name: read back %q, %v", len(base), b, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files left: %v", entries)
	}
}

// TestWriteThroughLink: a target that is a symbolic link is written where
// it points, as a shell's > writes it, and stays a link: before, the
// export replaced the link with a file of its own and the file it named
// kept its old bytes. A link that names a file not there yet creates it.
func TestWriteThroughLink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "reports", "latest.csv")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "out.csv")
	if err := os.Symlink(filepath.Join("reports", "latest.csv"), link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "next.csv")
	if err := os.Symlink(filepath.Join("reports", "next.csv"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ link, target string }{{link, real}, {dangling, filepath.Join(dir, "reports", "next.csv")}} {
		if err := atomicfile.WriteFile(c.link, []byte("new contents"), 0o644); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(c.link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link (%v)", c.link, err)
		}
		if b, err := os.ReadFile(c.target); err != nil || string(b) != "new contents" {
			t.Errorf("%s holds %q (%v), want the new contents", c.target, b, err)
		}
	}
	if fi, err := os.Stat(real); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the linked file's mode: %v (%v), want it kept at 0600", fi.Mode(), err)
	}
	assertOnly(t, filepath.Join(dir, "reports"), "latest.csv", "next.csv")
}
