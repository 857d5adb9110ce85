package discord

import (
	"sync"
	"time"
)

// limiter is a token bucket per user: each user may ask rate.N questions
// at once, and gets one more every rate.Per/rate.N. It is safe for
// concurrent use.
type limiter struct {
	rate Rate
	now  func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
	// warned is when the user was last told they are limited, so a
	// burst of questions gets one polite reply, not one each.
	warned time.Time
}

// maxBuckets bounds the users remembered; full buckets are forgotten
// first (a user with a full bucket is the same as a new one).
const maxBuckets = 10_000

func newLimiter(r Rate) *limiter {
	return &limiter{rate: r, now: time.Now, buckets: map[string]*bucket{}}
}

// take spends one of user's tokens. When none is left it returns false,
// how long until the next one, and whether the user should be told
// (once per empty bucket).
func (l *limiter) take(user string) (ok bool, wait time.Duration, tell bool) {
	if l.rate.N <= 0 {
		return true, 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	per := l.rate.Per / time.Duration(l.rate.N) // one token every per
	b := l.buckets[user]
	if b == nil {
		if len(l.buckets) >= maxBuckets {
			l.forgetFull(now, per)
		}
		b = &bucket{tokens: float64(l.rate.N), at: now}
		l.buckets[user] = b
	}
	b.refill(now, per, l.rate.N)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0, false
	}
	wait = time.Duration((1 - b.tokens) * float64(per))
	tell = now.Sub(b.warned) >= wait
	if tell {
		b.warned = now
	}
	return false, wait, tell
}

func (b *bucket) refill(now time.Time, per time.Duration, n int) {
	if el := now.Sub(b.at); el > 0 {
		b.tokens = min(float64(n), b.tokens+float64(el)/float64(per))
		b.at = now
	}
}

// forgetFull drops the buckets that have refilled; if that is not enough,
// half of the rest, so memory stays bounded whatever the traffic.
func (l *limiter) forgetFull(now time.Time, per time.Duration) {
	for u, b := range l.buckets {
		b.refill(now, per, l.rate.N)
		if b.tokens >= float64(l.rate.N) {
			delete(l.buckets, u)
		}
	}
	if len(l.buckets) < maxBuckets {
		return
	}
	i := 0
	for u := range l.buckets {
		if i%2 == 0 {
			delete(l.buckets, u)
		}
		i++
	}
}
