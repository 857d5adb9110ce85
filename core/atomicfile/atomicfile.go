// Package atomicfile writes files so that nobody ever sees one half
// written: the bytes go to a temporary file in the same directory, which is
// renamed over the target only once it is complete. Exports, chart images
// and saved conversations use it.
package atomicfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// File is a file being written. Write to it, then Commit to put it in
// place, or Abort to leave the target as it was. Abort after Commit does
// nothing, so `defer f.Abort()` is the usual pattern.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts writing path: a temporary file beside it, named after it
// (".name.*.tmp") and created with the permissions perm less the umask,
// that Commit renames to path. The directory must exist. Errors name path,
// never the temporary file.
func Create(path string, perm fs.FileMode) (*File, error) {
	dir, base := filepath.Split(path)
	for try := 0; ; try++ {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(uint64(rand.Uint32()), 10)+".tmp")
		tmp, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "create", Path: path, Err: underlying(err)}
		}
		return &File{File: tmp, path: path}, nil
	}
}

// Commit closes the temporary file and renames it to the target.
func (f *File) Commit() error {
	if f.done {
		return os.ErrClosed
	}
	f.done = true
	err := f.File.Close()
	if err == nil {
		if err = os.Rename(f.File.Name(), f.path); err != nil {
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
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.File.Name())
}

// WriteFile writes data to path atomically with the permissions perm.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}
