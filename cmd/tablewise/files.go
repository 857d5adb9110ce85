package main

import (
	"fmt"
	"io"
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

// refuseDatabaseTarget stops an output path that names the database file
// itself (or its journal): tablewise never writes the database, not even
// by replacing it with an export.
func refuseDatabaseTarget(out, dbPath string) error {
	if out == "" || out == "-" {
		return nil
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil
	}
	if abs == dbPath || abs == dbPath+"-journal" || abs == dbPath+"-wal" || abs == dbPath+"-shm" {
		return usagef("refusing to write to %s: it is the database file — choose another --out", out)
	}
	a, errA := os.Stat(abs)
	b, errB := os.Stat(dbPath)
	if errA == nil && errB == nil && os.SameFile(a, b) {
		return usagef("refusing to write to %s: it is the database file — choose another --out", out)
	}
	return nil
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory and a rename, so path is never left half-written.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
