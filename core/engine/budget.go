package engine

import "time"

// Budget bounds the time a catalog spends on work it may skip (exact row
// counts, sample rows): PerTable for each table, Total for all of them.
type Budget struct{ PerTable, Total time.Duration }

// ServerBudget is what a server engine's catalog spends on row counts,
// and again on sample rows: a table whose count takes longer keeps the
// server's estimate, one whose sample takes longer has no sample.
var ServerBudget = Budget{PerTable: 250 * time.Millisecond, Total: 2 * time.Second}

// Start begins spending b now.
func (b Budget) Start() Spending {
	return Spending{per: b.PerTable, until: time.Now().Add(b.Total)}
}

// Spending is a Budget being spent.
type Spending struct {
	per   time.Duration
	until time.Time
}

// Left reports whether any of the total remains.
func (s Spending) Left() bool { return time.Now().Before(s.until) }

// Next is the time the next table may take: PerTable, or what remains of
// the total when that is less (zero or less once it is spent).
func (s Spending) Next() time.Duration { return min(s.per, time.Until(s.until)) }
