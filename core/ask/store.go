package ask

import (
	"bytes"
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/atomicfile"
	"github.com/tablewise/tablewise/core/config"
)

// Store keeps conversations by key. The service asks one question of a
// conversation at a time, so for one key a Store sees a Load, then a Save,
// with no other call for that key between them; calls for different keys
// come at once.
type Store interface {
	// Load returns the conversation kept under key, or an empty History
	// when there is none.
	Load(ctx context.Context, key string) (History, error)
	// Save keeps h under key, replacing what was there.
	Save(ctx context.Context, key string, h History) error
}

// Bounds of a Memory unless told otherwise.
const (
	// DefaultConversations is how many conversations it keeps.
	DefaultConversations = 1000
	// DefaultMemoryBytes is how much their histories may take, measured as
	// JSON: questions and answers, and each last bundle without its rows.
	DefaultMemoryBytes = 64 << 20
)

// Memory keeps conversations in memory, within a number of conversations
// and a number of bytes: saving past either forgets the least recently used
// (loaded or saved) ones. Any string is a key, so an MCP thread, a chat
// channel or a direct-message user each get their own. It is safe for
// concurrent use.
type Memory struct {
	mu       sync.Mutex
	max      int
	maxBytes int64
	bytes    int64
	order    *list.List // of *memoryEntry, most recently used first
	byKey    map[string]*list.Element
}

type memoryEntry struct {
	key  string
	h    History
	size int64
}

var _ Store = (*Memory)(nil)

// NewMemory keeps up to maxConversations conversations taking up to
// maxBytes; a bound ≤ 0 means its default (DefaultConversations,
// DefaultMemoryBytes).
func NewMemory(maxConversations int, maxBytes int64) *Memory {
	if maxConversations <= 0 {
		maxConversations = DefaultConversations
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMemoryBytes
	}
	return &Memory{max: maxConversations, maxBytes: maxBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

// Load returns the conversation under key and marks it used.
func (m *Memory) Load(_ context.Context, key string) (History, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.byKey[key]
	if !ok {
		return History{}, nil
	}
	m.order.MoveToFront(e)
	return e.Value.(*memoryEntry).h, nil
}

// Save keeps h under key as the most recently used conversation, forgetting
// the least recently used ones beyond the bounds (never h itself).
func (m *Memory) Save(_ context.Context, key string, h History) error {
	data, err := json.Marshal(h)
	if err != nil {
		return err
	}
	size := int64(len(key) + len(data))
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.byKey[key]; ok {
		me := e.Value.(*memoryEntry)
		m.bytes += size - me.size
		me.h, me.size = h, size
		m.order.MoveToFront(e)
	} else {
		m.byKey[key] = m.order.PushFront(&memoryEntry{key: key, h: h, size: size})
		m.bytes += size
	}
	for m.order.Len() > 1 && (m.order.Len() > m.max || m.bytes > m.maxBytes) {
		oldest := m.order.Back()
		me := oldest.Value.(*memoryEntry)
		m.order.Remove(oldest)
		delete(m.byKey, me.key)
		m.bytes -= me.size
	}
	return nil
}

// Len is how many conversations are kept.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order.Len()
}

// ErrBadKey is wrapped by a FileStore's error for a key that cannot name a
// file.
var ErrBadKey = errors.New("a thread ID takes letters, digits, '-' and '_', up to 64")

// maxFileBytes bounds a conversation file read back.
const maxFileBytes = 16 << 20

// FileStore keeps each conversation in its own file, DIR/KEY.json, so a
// thread continues across runs (tablewise ask --thread ID). Keys name
// files: letters, digits, '-' and '_', up to 64; any other key is refused
// with an error wrapping ErrBadKey.
//
// A file holds {"turns": [{"question", "answer"}…], "last": {bundle}}.
// Files written before the last bundle was kept hold only the array of
// turns; they are read as they are and rewritten in the current form when
// their thread next saves.
type FileStore struct{ dir string }

var _ Store = (*FileStore)(nil)

// NewFileStore keeps conversations in dir, creating it on first save.
func NewFileStore(dir string) *FileStore { return &FileStore{dir: dir} }

// DefaultThreadDir is where the CLI keeps its threads: tablewise/threads
// in the state directory.
func DefaultThreadDir() string { return filepath.Join(config.StateDir(), "tablewise", "threads") }

func (f *FileStore) path(key string) (string, error) {
	if !validFileKey(key) {
		return "", fmt.Errorf("%w (got %q)", ErrBadKey, key)
	}
	return filepath.Join(f.dir, key+".json"), nil
}

// Load reads the conversation's file; a thread without one is empty.
func (f *FileStore) Load(_ context.Context, key string) (History, error) {
	path, err := f.path(key)
	if err != nil {
		return History{}, err
	}
	file, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return History{}, nil
	}
	if err != nil {
		return History{}, fmt.Errorf("thread %s: %w", key, err)
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxFileBytes+1))
	if err == nil && len(data) > maxFileBytes {
		err = fmt.Errorf("larger than %d MiB", maxFileBytes>>20)
	}
	var h History
	if err == nil {
		if data = bytes.TrimSpace(data); bytes.HasPrefix(data, []byte("[")) {
			err = json.Unmarshal(data, &h.Turns)
		} else {
			err = json.Unmarshal(data, &h)
		}
	}
	if err != nil {
		return History{}, fmt.Errorf("thread %s: %s: %w (delete the file to start the thread over)", key, path, err)
	}
	return h, nil
}

// Save writes the conversation's file through a temporary file and a
// rename, so a reader never sees it half-written.
func (f *FileStore) Save(_ context.Context, key string, h History) error {
	path, err := f.path(key)
	if err != nil {
		return err
	}
	if h.Turns == nil {
		h.Turns = []answer.Turn{}
	}
	data, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o600)
}

func validFileKey(key string) bool {
	if key == "" || len(key) > 64 {
		return false
	}
	for _, c := range key {
		if !(c == '-' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
