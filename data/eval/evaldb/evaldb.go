// Package evaldb builds the cross-domain evaluation databases that the
// blind question sets in data/eval (hr, airlines, health, campus,
// logistics) and the held-out sets (saas, library, restaurant) are asked
// against.
// Nothing here is committed as a database file: Build writes them from
// code, deterministically (fixed seeds, fixed dates), in a few seconds.
//
// Each database is modelled on a well-known public one and keeps its naming
// habits, so that questions meet the conventions real schemas have:
//
//   - hr: MySQL's "employees" sample (snake_case, composite keys, to_date
//     '9999-01-01' for "current", salary and title histories).
//   - airlines: PostgreSQL's "airlines" demo (snake_case, scheduled and
//     actual times, status enum, bookings → tickets → ticket_flights →
//     boarding_passes with composite keys).
//   - health: Synthea's CSV export (UPPERCASE columns, text ids, START/STOP
//     with STOP NULL while ongoing, SNOMED/RxNorm/CVX codes).
//   - campus: a college registry in the style of the Lahman baseball
//     database (camelCase, abbreviated names, integer yearID, 'Y'/'N'
//     flags, one- and two-letter stat columns) with no declared foreign
//     keys: tables join on same-named columns.
//   - saas: a subscription-billing export in the habits of Stripe's data
//     model plus product analytics (singular table names, prefixed text
//     ids, references named after the table, Unix-second timestamps next
//     to ISO text ones, money in integer cents, ISO country codes).
//   - library: a lending library in the habits of Koha (run-together
//     lower-case column names, text codes as keys, a reference named
//     differently from its target, NULL returndate while a loan is out,
//     titles ↔ subjects many-to-many).
//   - logistics: a parcel carrier's operational export (snake_case with
//     abbreviations, business codes beside integer keys, a reference named
//     for its role, upper-case event types, timestamps as text, nullable
//     ship and delivery dates).
//   - restaurant: a restaurant group's point-of-sale export (abbreviated
//     names such as emp_id, first_nm, qty, tip_amt; a reference named for
//     its role; enums with underscores; a closed restaurant; 0/1 flags).
package evaldb

import (
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/data/internal/sqlitefile"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Names lists the databases in a fixed order. Each is written as
// <name>.db and its questions live in data/eval/<name>.jsonl.
var Names = []string{"hr", "airlines", "health", "campus", "saas", "library", "logistics", "restaurant"}

// HeldOut names the databases whose questions form the held-out set
// (data/eval/README.md): written before the planner was tuned on the blind
// sets, and run against the planner once, at the end.
var HeldOut = []string{"saas", "library", "restaurant"}

// SetTag is the "set" field the questions of database name carry:
// "blind-<name>", or "heldout-<name>" for a held-out database.
func SetTag(name string) string {
	for _, h := range HeldOut {
		if h == name {
			return "heldout-" + name
		}
	}
	return "blind-" + name
}

var builders = map[string]func(*builder){
	"hr":         buildHR,
	"airlines":   buildAirlines,
	"health":     buildHealth,
	"campus":     buildCampus,
	"saas":       buildSaaS,
	"library":    buildLibrary,
	"logistics":  buildLogistics,
	"restaurant": buildRestaurant,
}

// Build writes every database into dir (which must exist) and returns
// their paths by name. Existing files of the same name are replaced.
func Build(dir string) (map[string]string, error) {
	paths := make(map[string]string, len(Names))
	for _, name := range Names {
		p := filepath.Join(dir, name+".db")
		if err := BuildOne(name, p); err != nil {
			return nil, err
		}
		paths[name] = p
	}
	return paths, nil
}

// BuildOne writes the database called name at path.
func BuildOne(name, path string) error {
	fn, ok := builders[name]
	if !ok {
		return fmt.Errorf("evaldb: unknown database %q (known: %s)", name, strings.Join(Names, ", "))
	}
	for _, p := range []string{path, path + "-journal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("evaldb: %w", err)
		}
	}
	if err := write(path, fn); err != nil {
		return fmt.Errorf("evaldb: build %s: %w", name, err)
	}
	return nil
}

// BuildTemp builds every database into t.TempDir() and returns their paths
// by name; it fails the test when a build fails.
func BuildTemp(t testing.TB) map[string]string {
	t.Helper()
	paths, err := Build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

func write(path string, fn func(*builder)) error {
	// With foreign_keys on, a row whose declared reference points nowhere
	// fails its INSERT, so a generator bug cannot produce dangling keys.
	pragmas := []string{"PRAGMA journal_mode = OFF", "PRAGMA synchronous = OFF", "PRAGMA foreign_keys = ON"}
	return sqlitefile.Fill(path, pragmas, func(db *sql.DB) error {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		b := &builder{tx: tx, stmts: map[string]*sql.Stmt{}}
		fn(b)
		for _, s := range b.stmts {
			_ = s.Close()
		}
		if b.err != nil {
			_ = tx.Rollback()
			return b.err
		}
		return tx.Commit()
	})
}

// builder collects inserts in one transaction; the first error sticks and
// later calls do nothing, so generators read as plain sequences.
type builder struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
	err   error
}

func (b *builder) exec(sqls ...string) {
	for _, q := range sqls {
		if b.err != nil {
			return
		}
		if _, err := b.tx.Exec(q); err != nil {
			b.err = fmt.Errorf("%w\n%s", err, q)
		}
	}
}

// insert adds one row to table, values in column order.
func (b *builder) insert(table string, vals ...any) {
	if b.err != nil {
		return
	}
	key := fmt.Sprintf("%s/%d", table, len(vals))
	st, ok := b.stmts[key]
	if !ok {
		q := "INSERT INTO " + table + " VALUES (" + strings.TrimSuffix(strings.Repeat("?, ", len(vals)), ", ") + ")"
		var err error
		if st, err = b.tx.Prepare(q); err != nil {
			b.err = fmt.Errorf("%s: %w", q, err)
			return
		}
		b.stmts[key] = st
	}
	if _, err := st.Exec(vals...); err != nil {
		b.err = fmt.Errorf("insert into %s %v: %w", table, vals, err)
	}
}

// rng is a seeded source with the few draws the generators need.
type rng struct{ *rand.Rand }

func newRNG(seed uint64) rng { return rng{rand.New(rand.NewPCG(seed, 0x7ab1e5))} }

// between returns an int in [lo, hi].
func (r rng) between(lo, hi int) int { return lo + r.IntN(hi-lo+1) }

func (r rng) chance(p float64) bool { return r.Float64() < p }

func pick[T any](r rng, xs []T) T { return xs[r.IntN(len(xs))] }

// weighted returns an index drawn with the given weights.
func (r rng) weighted(w []int) int {
	total := 0
	for _, x := range w {
		total += x
	}
	n := r.IntN(total)
	for i, x := range w {
		if n < x {
			return i
		}
		n -= x
	}
	return len(w) - 1
}

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func isoDate(t time.Time) string { return t.Format(time.DateOnly) }

func isoDateTime(t time.Time) string { return t.Format(time.DateTime) }

// days returns a time d days after t.
func days(t time.Time, d int) time.Time { return t.AddDate(0, 0, d) }

// randomDay returns a day in [from, to].
func (r rng) randomDay(from, to time.Time) time.Time {
	n := int(to.Sub(from).Hours() / 24)
	return days(from, r.IntN(n+1))
}

// money rounds to cents.
func money(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }

// boolInt is a flag column's value: 1 for true, 0 for false.
func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

var (
	maleNames = []string{"James", "Robert", "John", "Michael", "David", "William", "Richard", "Joseph", "Thomas", "Charles",
		"Daniel", "Matthew", "Anthony", "Mark", "Steven", "Paul", "Andrew", "Joshua", "Kevin", "Brian", "George", "Ryan",
		"Jacob", "Gary", "Eric", "Jonathan", "Justin", "Scott", "Brandon", "Samuel", "Raj", "Wei", "Carlos", "Luis",
		"Ahmed", "Kenji", "Dmitri", "Tomasz", "Kwame", "Mateo", "Hiroshi", "Pedro", "Omar", "Ivan", "Liam", "Noah"}
	femaleNames = []string{"Mary", "Patricia", "Jennifer", "Linda", "Elizabeth", "Barbara", "Susan", "Jessica", "Sarah",
		"Karen", "Lisa", "Nancy", "Betty", "Sandra", "Ashley", "Emily", "Donna", "Michelle", "Carol", "Amanda", "Melissa",
		"Deborah", "Stephanie", "Rebecca", "Laura", "Sharon", "Cynthia", "Amy", "Anna", "Priya", "Mei", "Sofia", "Lucia",
		"Fatima", "Yuki", "Olga", "Agnieszka", "Ama", "Valentina", "Aiko", "Ana", "Leila", "Irina", "Emma", "Olivia"}
	lastNames = []string{"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez",
		"Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson",
		"Martin", "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
		"Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores", "Green", "Adams",
		"Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts", "Patel", "Chen", "Kim",
		"Tanaka", "Kowalski", "Ivanov", "Mensah", "O'Brien", "Schmidt", "Rossi", "Novak", "Yamamoto", "Singh", "Cohen",
		"Murphy", "Bauer", "Silva", "Khan", "Okafor", "Larsen", "Dubois", "Fischer", "Haddad", "Park", "Sato"}
)

// person draws a gender ("M" or "F") and a first and last name.
func (r rng) person(pMale float64) (gender, first, last string) {
	if r.chance(pMale) {
		return "M", pick(r, maleNames), pick(r, lastNames)
	}
	return "F", pick(r, femaleNames), pick(r, lastNames)
}
