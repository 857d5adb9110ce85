package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// sqlText is the statement a command was given: its --sql flag or its
// positional arguments, read from stdin when it is "-". It is "" when none
// was given.
func sqlText(flagVal string, pos []string, s *streams) (string, error) {
	sql := flagVal
	if sql == "" && len(pos) > 0 {
		sql = strings.Join(pos, " ")
	}
	if sql == "-" {
		return readAllLimited(s.in)
	}
	return sql, nil
}

// readAllLimited reads SQL from stdin, up to 4 MiB.
func readAllLimited(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, 4<<20))
	if err != nil {
		return "", fmt.Errorf("read stdin: %w", err)
	}
	return string(b), nil
}

// checkOut refuses an --out path that cannot be written before any work is
// done: a directory, or a file in a directory that does not exist. "-" is
// stdout.
func checkOut(cmd, path string) error {
	if path == "-" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() || strings.HasSuffix(path, string(filepath.Separator)) {
		return usagef("%s: --out %s is a directory; give a file name, e.g. %s", cmd, path, filepath.Join(path, "result"+filepath.Ext(path)))
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return usagef("%s: --out %s: directory %s does not exist (create it first)", cmd, path, dir)
	case !fi.IsDir():
		return usagef("%s: --out %s: %s is not a directory", cmd, path, dir)
	}
	return nil
}

// outError turns a failure to write --out (a *fs.PathError naming it: no
// permission, no space, a directory in the way) into a usage error; other
// errors pass through.
func outError(cmd, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return usagef("%s: cannot write --out %s: %v", cmd, path, pe.Err)
	}
	return err
}
