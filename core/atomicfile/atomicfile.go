// Package atomicfile writes files so that nobody ever sees one half
// written: the bytes go to a temporary file in the same directory, which is
// renamed over the target only once it is complete. Exports, chart images
// and saved conversations use it. A symbolic link is written where it
// points and stays a link. A target that is not a file is never
// replaced: a named pipe, the process's own stdout or stderr (/dev/stdout)
// and the null device are written straight, as a shell's > would, and any
// other device is refused.
package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
	"unicode/utf8"
)

// File is a file being written. Write to it, then Commit to put it in
// place, or Abort to leave the target as it was. Abort after Commit does
// nothing, so `defer f.Abort()` is the usual pattern.
type File struct {
	*os.File
	path string
	// target is where Commit renames the temporary file: path, or the
	// file path's symbolic link names.
	target string
	done   bool
	// direct says File writes the target itself (a pipe, stdout): there
	// is no temporary file to rename or remove.
	direct bool
	// stop ends the watch that cuts a pipe's writes when the context
	// given to CreateContext ends.
	stop func() bool
}

// Create starts writing path: a temporary file beside it, named after it
// (".name.*.tmp") and created with the permissions perm less the umask,
// or those of the file path names when there is one (as a shell's >
// leaves them: a file only its owner may read stays so), that Commit
// renames to path. The directory must exist. Errors name path,
// never the temporary file. A target that is a named pipe, stdout, stderr
// or the null device (also through a link, as /dev/stdout is) is opened
// and written straight; another device is refused.
func Create(path string, perm fs.FileMode) (*File, error) {
	return CreateContext(context.Background(), path, perm)
}

// CreateContext is Create bounded by ctx where the target can keep a
// writer waiting: a named pipe is opened once a reader has opened it, and
// when ctx ends first the error (wrapping ctx.Err()) says no reader came;
// once open, a write the reader does not take in time fails when ctx
// ends. Opening a pipe blocks in the kernel until its reader comes, where
// no deadline or signal reaches it, so the pipe is polled instead.
func CreateContext(ctx context.Context, path string, perm fs.FileMode) (*File, error) {
	fi, err := os.Stat(path)
	if err == nil && (!fi.Mode().IsRegular() || isStdStream(fi)) && !fi.IsDir() {
		if !writesStraight(fi) {
			return nil, &fs.PathError{Op: "create", Path: path, Err: errDevice}
		}
		if fi.Mode()&fs.ModeNamedPipe != 0 && !isStdStream(fi) {
			return openPipe(ctx, path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, &fs.PathError{Op: "create", Path: path, Err: underlying(err)}
		}
		return &File{File: f, path: path, direct: true}, nil
	}
	// A link is written where it points, as a shell's > writes it: the
	// link stays and the file it names gets the bytes.
	target := path
	if li, err := os.Lstat(path); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		target = Resolve(path)
	}
	dir, base := filepath.Split(target)
	for try := 0; ; try++ {
		suffix := "." + strconv.FormatUint(uint64(rand.Uint32()), 10) + ".tmp"
		name := filepath.Join(dir, "."+clipName(base, maxNameBytes-1-len(suffix))+suffix)
		tmp, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "create", Path: path, Err: underlying(err)}
		}
		if fi != nil && fi.Mode().IsRegular() {
			if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
				tmp.Close()
				os.Remove(name)
				return nil, &fs.PathError{Op: "create", Path: path, Err: underlying(err)}
			}
		}
		return &File{File: tmp, path: path, target: target}, nil
	}
}

// pipePoll is how often openPipe looks for a reader.
const pipePoll = 20 * time.Millisecond

// openPipe opens the named pipe at path for writing once a reader has
// opened it, or fails when ctx ends. The descriptor is non-blocking, so
// writes wait in the runtime's poller, where a deadline ends them: ctx
// ending sets one.
func openPipe(ctx context.Context, path string) (*File, error) {
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			file := &File{File: f, path: path, direct: true}
			file.stop = context.AfterFunc(ctx, func() { f.SetWriteDeadline(time.Unix(1, 0)) })
			return file, nil
		}
		if !errors.Is(err, syscall.ENXIO) { // ENXIO: no reader yet
			return nil, &fs.PathError{Op: "create", Path: path, Err: underlying(err)}
		}
		select {
		case <-ctx.Done():
			return nil, &fs.PathError{Op: "create", Path: path, Err: NoReader(path, ctx.Err())}
		case <-time.After(pipePoll):
		}
	}
}

// NoReader is the error for the named pipe at path that no program has
// opened for reading: it says so and what to do. waited, when not nil, is
// why waiting for a reader ended (a context's error); it is wrapped. With
// nil, the pipe was found without a reader at once.
func NoReader(path string, waited error) error {
	const do = "start its reader first, e.g. cat "
	if waited != nil {
		return fmt.Errorf("named pipe: no reader opened it in time (%w); %s%s", waited, do, path)
	}
	return fmt.Errorf("named pipe: no reader opened it; %s%s", do, path)
}

// errPipeStalled says a pipe's reader took too little, too late.
var errPipeStalled = errors.New("named pipe: its reader stopped reading and the deadline passed")

// Write writes p to the temporary file, or straight to a pipe; a write a
// pipe's reader did not take before the context ended fails saying so.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	if err != nil && f.stop != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		err = &fs.PathError{Op: "write", Path: f.path, Err: errPipeStalled}
	}
	return n, err
}

// maxNameBytes is the longest file name most file systems take (NAME_MAX).
const maxNameBytes = 255

// clipName cuts name to at most n bytes, at a character boundary, so that
// the temporary file of a name near the limit is not longer than it.
func clipName(name string, n int) string {
	if len(name) <= n {
		return name
	}
	for n > 0 && !utf8.RuneStart(name[n]) {
		n--
	}
	return name[:n]
}

// Commit closes the temporary file and renames it to the target.
func (f *File) Commit() error {
	if f.done {
		return os.ErrClosed
	}
	f.done = true
	if f.stop != nil {
		f.stop()
	}
	err := f.File.Close()
	if f.direct {
		if err != nil {
			err = &fs.PathError{Op: "write", Path: f.path, Err: underlying(err)}
		}
		return err
	}
	if err == nil {
		if err = os.Rename(f.File.Name(), f.target); err != nil {
			err = &fs.PathError{Op: "write", Path: f.path, Err: underlying(err)}
		}
	}
	if err != nil {
		os.Remove(f.File.Name())
	}
	return err
}

// underlying is the system error inside a *fs.PathError or *os.LinkError,
// so that messages name the user's path instead of the temporary one.
func underlying(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// Abort closes and removes the temporary file; the target is untouched.
// A target written straight (a pipe, stdout) keeps what was written.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	if f.stop != nil {
		f.stop()
	}
	f.File.Close()
	if !f.direct {
		os.Remove(f.File.Name())
	}
}

// errDevice refuses a device that is not one of the streams a command may
// be pointed at: a link planted to /dev/sda or /dev/mem must not make an
// export write there.
var errDevice = errors.New("is a device, not a file; write to a file, a named pipe, /dev/stdout or /dev/stderr")

// writesStraight says whether the target fi is written in place: a named
// pipe, stdout, stderr or the null device.
func writesStraight(fi fs.FileInfo) bool {
	if fi.Mode()&fs.ModeNamedPipe != 0 || isStdStream(fi) {
		return true
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(fi, null)
}

// isStdStream says whether fi is the process's stdout or stderr, whatever
// they are (a terminal, a pipe, a file the shell redirected to).
func isStdStream(fi fs.FileInfo) bool {
	for _, f := range []*os.File{os.Stdout, os.Stderr} {
		if sfi, err := f.Stat(); err == nil && os.SameFile(fi, sfi) {
			return true
		}
	}
	return false
}

// Resolve follows symbolic links in p, also when p or the file a link
// names does not exist yet (then its directory is resolved): the file a
// write to p reaches.
func Resolve(p string) string {
	for range 40 {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			break
		}
		target, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p = target
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(dir, filepath.Base(p))
	}
	return p
}

// WriteFile writes data to path atomically with the permissions perm.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return WriteFileContext(context.Background(), path, data, perm)
}

// WriteFileContext is WriteFile bounded by ctx as CreateContext is.
func WriteFileContext(ctx context.Context, path string, data []byte, perm fs.FileMode) error {
	f, err := CreateContext(ctx, path, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}
