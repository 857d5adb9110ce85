package ask

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/answer"
)

func history(qs ...string) History {
	var h History
	for _, q := range qs {
		h.Turns = append(h.Turns, answer.Turn{Question: q, Answer: "answer to " + q})
	}
	return h
}

// TestMemoryEvictsLeastRecentlyUsed: past its bound the store forgets the
// conversation used longest ago — not the one saved first, not an arbitrary
// one — and never holds more than the bound. Keys are any strings (a chat
// channel, a DM, an MCP database label and thread joined by a NUL).
func TestMemoryEvictsLeastRecentlyUsed(t *testing.T) {
	ctx := context.Background()
	m := NewMemory(3, 0)
	first, idle, third := "discord:guild/1/channel/42", "mcp:shop\x00t-1", "dm:Zoë 🐙"
	for _, k := range []string{first, idle, third} {
		if err := m.Save(ctx, k, history(k)); err != nil {
			t.Fatal(err)
		}
	}
	// first was saved before the others but is used again now: idle becomes
	// the least recently used.
	if h, _ := m.Load(ctx, first); len(h.Turns) != 1 || h.Turns[0].Question != first {
		t.Fatalf("load %q: %+v", first, h)
	}
	if err := m.Save(ctx, "new", history("new")); err != nil {
		t.Fatal(err)
	}
	if h, _ := m.Load(ctx, idle); len(h.Turns) != 0 {
		t.Errorf("the least recently used conversation was kept: %+v", h)
	}
	for _, k := range []string{first, third, "new"} {
		if h, _ := m.Load(ctx, k); len(h.Turns) != 1 || h.Turns[0].Question != k {
			t.Errorf("%q was forgotten: %+v", k, h)
		}
	}
	if m.Len() != 3 {
		t.Errorf("holds %d conversations, bound 3", m.Len())
	}
	// The loads above used first, then third, then new: first goes next.
	_ = m.Save(ctx, "a", history("a"))
	if h, _ := m.Load(ctx, first); len(h.Turns) != 0 {
		t.Errorf("%q kept past its turn", first)
	}
	// Saving an existing key replaces it without growing the store.
	_ = m.Save(ctx, "a", history("a", "b"))
	if h, _ := m.Load(ctx, "a"); len(h.Turns) != 2 || m.Len() != 3 {
		t.Errorf("re-save: %+v, %d kept", h, m.Len())
	}
}

// TestFileStoreReadsEarlierThreads: a thread file written before the last
// bundle was kept (a bare array of turns) is read as it is and rewritten in
// the current form on save.
func TestFileStoreReadsEarlierThreads(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	legacy := `[
  {
    "question": "How many customers?",
    "answer": "There are 2,400 customers."
  }
]`
	if err := os.WriteFile(filepath.Join(dir, "t1.json"), []byte(legacy), 0o600); err != nil {
		t.Fatal(err)
	}
	f := NewFileStore(dir)
	h, err := f.Load(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Turns) != 1 || h.Turns[0].Answer != "There are 2,400 customers." || h.Last != nil {
		t.Fatalf("legacy thread read as %+v", h)
	}
	h.Turns = append(h.Turns, answer.Turn{Question: "And orders?", Answer: "11,887."})
	h.Last = &answer.Bundle{Question: "And orders?", Status: answer.StatusAnswered, Answer: "11,887.", SQL: "SELECT count(*) FROM orders", RowCount: 1}
	if err := f.Save(ctx, "t1", h); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "t1.json"))
	if !strings.HasPrefix(string(raw), `{`) || !strings.Contains(string(raw), `"turns"`) || !strings.Contains(string(raw), `"last"`) {
		t.Fatalf("saved as %s", raw)
	}
	back, err := f.Load(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Turns) != 2 || back.Turns[1].Question != "And orders?" || back.Last == nil || back.Last.SQL != "SELECT count(*) FROM orders" {
		t.Fatalf("read back %+v", back)
	}
	if h, err := f.Load(ctx, "never-asked"); err != nil || len(h.Turns) != 0 || h.Last != nil {
		t.Errorf("a thread without a file: %+v %v", h, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left beside the thread: %v", entries)
	}
}

func TestFileStoreRefusesBadKeysAndBadFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	f := NewFileStore(dir)
	for _, key := range []string{"../escape", "a/b", "", strings.Repeat("x", 65), "dot.json"} {
		if _, err := f.Load(ctx, key); !errors.Is(err, ErrBadKey) {
			t.Errorf("load %q: %v", key, err)
		}
		if err := f.Save(ctx, key, History{}); !errors.Is(err, ErrBadKey) {
			t.Errorf("save %q: %v", key, err)
		}
	}
	path := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(path, []byte(`{"turns": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := f.Load(ctx, "broken")
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "delete the file") {
		t.Errorf("a broken thread file: %v", err)
	}
}

// TestMemoryBoundsBytes: conversations past the byte bound are forgotten,
// least recently used first, however few they are; the one just saved
// stays even when it alone is over.
func TestMemoryBoundsBytes(t *testing.T) {
	ctx := context.Background()
	big := func(key string) History {
		return History{Turns: []answer.Turn{{Question: key, Answer: strings.Repeat("x", 400)}}}
	}
	m := NewMemory(100, 1000)
	for _, k := range []string{"a", "b"} {
		_ = m.Save(ctx, k, big(k))
	}
	_, _ = m.Load(ctx, "a")
	_ = m.Save(ctx, "c", big("c")) // three of about 430 bytes: over 1,000
	if m.Len() != 2 {
		t.Fatalf("kept %d conversations", m.Len())
	}
	if h, _ := m.Load(ctx, "b"); len(h.Turns) != 0 {
		t.Error("the least recently used conversation was kept past the byte bound")
	}
	if h, _ := m.Load(ctx, "a"); len(h.Turns) != 1 {
		t.Error("a recently used conversation was forgotten")
	}
	huge := History{Turns: []answer.Turn{{Question: "h", Answer: strings.Repeat("y", 2000)}}}
	_ = m.Save(ctx, "huge", huge)
	if h, _ := m.Load(ctx, "huge"); len(h.Turns) != 1 || m.Len() != 1 {
		t.Errorf("a conversation over the bound on its own: kept %v, %d in all", len(h.Turns) == 1, m.Len())
	}
}
