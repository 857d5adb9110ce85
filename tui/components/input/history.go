package input

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultHistoryLimit is how many entries the history keeps.
const DefaultHistoryLimit = 1000

// History is the list of past inputs, oldest first, kept in a file with
// one JSON string per line so multi-line entries stay one line.
type History struct {
	path    string
	limit   int
	entries []string
}

// OpenHistory reads the history at path (a missing file is an empty
// history). An empty path keeps the history in memory only. When the file
// has grown past twice the limit it is compacted to the newest entries.
func OpenHistory(path string, limit int) (*History, error) {
	if limit <= 0 {
		limit = DefaultHistoryLimit
	}
	h := &History{path: path, limit: limit}
	if path == "" {
		return h, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return h, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	lines := 0
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		lines++
		var s string
		if json.Unmarshal(line, &s) != nil || strings.TrimSpace(s) == "" {
			continue // a damaged line is skipped, not fatal
		}
		if n := len(h.entries); n > 0 && h.entries[n-1] == s {
			continue
		}
		h.entries = append(h.entries, s)
	}
	if len(h.entries) > limit {
		h.entries = append([]string(nil), h.entries[len(h.entries)-limit:]...)
	}
	if err := sc.Err(); err != nil {
		return h, err
	}
	if lines > 2*limit {
		return h, h.rewrite()
	}
	return h, nil
}

func (h *History) rewrite() error {
	dir := filepath.Dir(h.path)
	tmp, err := os.CreateTemp(dir, ".history-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	for _, e := range h.entries {
		b, _ := json.Marshal(e)
		w.Write(b)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), h.path)
}

// Len is the number of entries.
func (h *History) Len() int { return len(h.entries) }

// At returns entry i (0 is the oldest).
func (h *History) At(i int) string { return h.entries[i] }

// Add appends s (unless it repeats the newest entry) and writes it to the
// file.
func (h *History) Add(s string) error {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	if n := len(h.entries); n > 0 && h.entries[n-1] == s {
		return nil
	}
	h.entries = append(h.entries, s)
	if len(h.entries) > h.limit {
		h.entries = h.entries[len(h.entries)-h.limit:]
	}
	if h.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(s)
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Search returns the index of the newest entry before index before that
// contains q (case-insensitive), or -1.
func (h *History) Search(q string, before int) int {
	q = strings.ToLower(q)
	for i := min(before, len(h.entries)) - 1; i >= 0; i-- {
		if strings.Contains(strings.ToLower(h.entries[i]), q) {
			return i
		}
	}
	return -1
}
