// Package chartspec holds the rules of a declarative chart spec
// (answer.ChartSpec) against the result it is drawn from: which kinds
// exist, which columns fit each field (Validate, Resolve), which chart suits
// a result's shape (Suggest) and how a partial spec is filled in (Complete).
// Every front door and the agent use it; charts only draws what it accepts.
package chartspec

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/format"
)

// Limits on what a spec may ask for.
const (
	// MaxScatterPoints is the largest scatter plot Validate accepts: every
	// point of a scatter is drawn, so its cost grows with the input.
	MaxScatterPoints = 10_000
	// MaxRows is the largest input any other kind accepts. Bars and pies
	// aggregate, lines are downsampled and histograms are binned, so their
	// drawing cost does not grow with the input, but scanning it does.
	MaxRows = 1_000_000
	// MaxSeries is how many series a chart draws; Suggest picks a series
	// column only when it has at most this many values.
	MaxSeries = 8
)

// ErrTooManyPoints is wrapped by the *SpecError Validate returns when a
// result has more points than its chart kind can draw.
var ErrTooManyPoints = errors.New("too many points")

// SpecError says why a chart spec does not fit the result it should be drawn
// from. Field is the spec field at fault ("kind", "x", "y", "series") or
// "rows" when the data itself is the problem; Hint says what to do instead.
// Callers detect it with errors.As (core/fault explains it as bad input).
type SpecError struct {
	Field string
	Msg   string
	Hint  string

	err error // wrapped sentinel, e.g. ErrTooManyPoints
}

// Error returns the message followed by the hint.
func (e *SpecError) Error() string { return format.WithHint(e.Msg, e.Hint) }

// Unwrap returns the sentinel error this one refines, if any.
func (e *SpecError) Unwrap() error { return e.err }

// Title names a chart after its columns: "Total by month", "Revenue by day
// and region", "Distribution of age".
func Title(kind, x, y, series string) string {
	var t string
	switch kind {
	case answer.KindHistogram:
		t = "distribution of " + humanize(x)
	default:
		t = humanize(y) + " by " + humanize(x)
		if series != "" {
			t += " and " + humanize(series)
		}
	}
	r, n := utf8.DecodeRuneInString(t)
	return string(unicode.ToUpper(r)) + t[n:]
}

// humanize turns a column name like "unit_price" into "unit price".
func humanize(name string) string {
	return strings.TrimSpace(strings.ReplaceAll(name, "_", " "))
}
