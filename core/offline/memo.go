package offline

import "sync"

// memo remembers the results of a pure function of a key, up to memoLimit
// keys (past that it computes without remembering), for every planner of
// the process: on a schema of thousands of tables the same few hundred
// words are stemmed hundreds of thousands of times.
type memo[K comparable, V any] struct {
	mu sync.RWMutex
	m  map[K]V
}

const memoLimit = 1 << 18

func (c *memo[K, V]) get(k K, f func(K) V) V {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = f(k)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[K]V{}
	}
	if len(c.m) < memoLimit {
		c.m[k] = v
	}
	c.mu.Unlock()
	return v
}

var stemMemo memo[string, string]
