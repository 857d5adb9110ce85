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
