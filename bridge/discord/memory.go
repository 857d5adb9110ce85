package discord

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"
	"time"
)

// pendingKind says what a pending item waits for.
type pendingKind int

const (
	// pendFollowUps: a follow-up menu under an answer.
	pendFollowUps pendingKind = iota
	// pendClarify: the answer asked the user a question back.
	pendClarify
	// pendDatabase: the question fits several databases; the user picks.
	pendDatabase
)

// pending is what a menu, a button or a reply continues: the question
// and who may continue it.
type pending struct {
	nonce string
	kind  pendingKind
	// asker is the only user who may continue it.
	asker string
	// conv is the conversation (channel, thread or DM channel id).
	conv string
	// db is the database label the question went to ("" before a pick).
	db string
	// question is the question (or SQL, when sql) that is continued.
	question string
	sql      bool
	// asked is the clarification asked back.
	asked string
	// options are follow-ups, clarification options or database labels.
	options []string
	// msgs are the bot's messages that carry it; a reply to one of them
	// continues it.
	msgs    []string
	created time.Time
}

// open says whether the item waits for an answer (a clarification or a
// database pick), which a new question in its conversation replaces.
func (p *pending) open() bool { return p.kind == pendClarify || p.kind == pendDatabase }

// option is the option text names, case and space insensitive, or "".
func (p *pending) option(text string) string {
	t := strings.Join(strings.Fields(strings.ToLower(text)), " ")
	for _, o := range p.options {
		if strings.Join(strings.Fields(strings.ToLower(o)), " ") == t {
			return o
		}
	}
	return ""
}

// Bounds of the bot's memory of menus and conversations.
const (
	maxPending = 2000
	pendingTTL = 24 * time.Hour
	maxConvDB  = 10_000
)

// memory keeps pending items by nonce, the open one of each
// conversation, the bot messages that carry them, and the database each
// conversation last used. It is bounded: the oldest items go first. It is
// safe for concurrent use.
type memory struct {
	mu     sync.Mutex
	items  map[string]*pending
	order  []string          // nonces, oldest first
	open   map[string]string // conversation → nonce of its open item
	byMsg  map[string]string // message id → nonce
	convDB map[string]string // conversation → database label
	now    func() time.Time
}

func newMemory() *memory {
	return &memory{items: map[string]*pending{}, open: map[string]string{}, byMsg: map[string]string{}, convDB: map[string]string{}, now: time.Now}
}

// newNonce is a random id for custom ids and request ids.
func newNonce() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// add keeps p under a new nonce; an open item becomes its conversation's
// open item, replacing the one before.
func (m *memory) add(p *pending) *pending {
	m.mu.Lock()
	defer m.mu.Unlock()
	p.nonce = newNonce()
	p.created = m.now()
	m.items[p.nonce] = p
	m.order = append(m.order, p.nonce)
	if p.open() {
		if old, ok := m.open[p.conv]; ok {
			m.dropLocked(old)
		}
		m.open[p.conv] = p.nonce
	}
	for len(m.order) > 0 && (len(m.items) > maxPending || m.expiredLocked(m.order[0])) {
		m.dropLocked(m.order[0])
		m.order = m.order[1:]
	}
	if len(m.order) > 2*maxPending { // nonces of items taken since
		live := m.order[:0]
		for _, n := range m.order {
			if _, ok := m.items[n]; ok {
				live = append(live, n)
			}
		}
		m.order = live
	}
	return p
}

func (m *memory) expiredLocked(nonce string) bool {
	p, ok := m.items[nonce]
	return !ok || m.now().Sub(p.created) > pendingTTL
}

// carried records that message id carries the item with nonce.
func (m *memory) carried(nonce string, ids []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.items[nonce]
	if !ok {
		return
	}
	p.msgs = append(p.msgs, ids...)
	for _, id := range ids {
		m.byMsg[id] = nonce
	}
}

// get returns the item with nonce, or nil when it is gone.
func (m *memory) get(nonce string) *pending {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.expiredLocked(nonce) {
		return nil
	}
	return m.items[nonce]
}

// byMessage returns the item a bot message carries, or nil.
func (m *memory) byMessage(id string) *pending { return m.getVia(m.byMsg, id) }

// openIn returns the open item of a conversation, or nil.
func (m *memory) openIn(conv string) *pending { return m.getVia(m.open, conv) }

// getVia returns the item whose nonce index holds under key, or nil when
// there is none or it is gone. index is m.byMsg or m.open (maps made once,
// read here under m.mu).
func (m *memory) getVia(index map[string]string, key string) *pending {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := index[key]
	if !ok || m.expiredLocked(n) {
		return nil
	}
	return m.items[n]
}

// take removes the item with nonce and returns it, or nil when it was
// already gone: of two clicks on one button, one continues it.
func (m *memory) take(nonce string) *pending {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.expiredLocked(nonce) {
		return nil
	}
	p := m.items[nonce]
	m.dropLocked(nonce)
	return p
}

// closeOpen drops the open item of a conversation and returns it.
func (m *memory) closeOpen(conv string) *pending {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.open[conv]
	if !ok {
		return nil
	}
	p := m.items[n]
	m.dropLocked(n)
	return p
}

// dropLocked forgets an item (its nonce stays in order until it reaches
// the front).
func (m *memory) dropLocked(nonce string) {
	p, ok := m.items[nonce]
	if !ok {
		return
	}
	delete(m.items, nonce)
	for _, id := range p.msgs {
		if m.byMsg[id] == nonce {
			delete(m.byMsg, id)
		}
	}
	if m.open[p.conv] == nonce {
		delete(m.open, p.conv)
	}
}

// dbOf is the database a conversation last used, or "".
func (m *memory) dbOf(conv string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.convDB[conv]
}

// setDB records the database a conversation used.
func (m *memory) setDB(conv, label string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.convDB[conv]; !ok && len(m.convDB) >= maxConvDB {
		clear(m.convDB) // forgetting only costs a menu on the next question
	}
	m.convDB[conv] = label
}
