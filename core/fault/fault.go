// Package fault turns an error into words once, for every front door: what
// kind of failure it is, what happened and what to do next. The typed
// errors of the core keep their message and hint apart (guard.Rejection,
// guard.SQLError, query.LimitError, tools.NotFoundError,
// chartspec.SpecError); their Error() joins them as "message — hint" for
// plain Go use, but renderers (the CLI's exit codes and messages, the
// explorer's error block, MCP error results, the agent's tool results) call
// Explain and never take an Error() string apart.
package fault

import (
	"context"
	"errors"

	"github.com/tablewise/tablewise/core/chartspec"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/export"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/tools"
)

// Kind sorts failures by what the user (or model) can do about them.
type Kind int

// Kinds, in the order of the CLI's exit codes.
const (
	// Internal is a bug or a failure of the environment: nothing the
	// caller sent can fix it.
	Internal Kind = iota
	// Usage is bad input: a flag, an argument, a name that does not exist,
	// a chart spec that does not fit, an empty statement.
	Usage
	// Refused is the guard's refusal: the statement would write, or is not
	// a single read-only query.
	Refused
	// Database is SQL that SQLite could not compile or run.
	Database
	// Limit is a deadline or a resource limit (memory, size, a budget, a
	// busy server).
	Limit
	// Canceled is a cancellation: the user stopped it.
	Canceled
)

var kindNames = [...]string{"internal", "usage", "refused", "database", "limit", "canceled"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "internal"
}

// Error is a failure with its kind, message and hint apart, for front
// doors' own errors (a bad flag, a bad tool argument, a busy server).
type Error struct {
	Kind Kind
	Msg  string
	Hint string
}

// New returns an *Error.
func New(kind Kind, msg, hint string) *Error { return &Error{Kind: kind, Msg: msg, Hint: hint} }

func (e *Error) Error() string { return format.WithHint(e.Msg, e.Hint) }

// Explain says what kind of failure err is, what happened (message) and
// what to do next (hint, possibly empty). For the core's typed errors the
// message and hint are their own fields, whatever wraps them; for
// cancellations and deadlines they are plain words; anything else is
// Internal with err.Error() as its message. A nil err explains as
// (Internal, "", ""). Message and hint are bounded for display
// (format.ClipMessage): a name, path or value the user gave, echoed in
// them, shows its start and its length, whatever its length.
func Explain(err error) (kind Kind, msg, hint string) {
	kind, msg, hint = explain(err)
	return kind, format.ClipMessage(msg), format.ClipMessage(hint)
}

// explain is Explain before the bound.
func explain(err error) (kind Kind, msg, hint string) {
	if err == nil {
		return Internal, "", ""
	}
	var (
		fe   *Error
		rej  *guard.Rejection
		se   *guard.SQLError
		le   *query.LimitError
		nf   *tools.NotFoundError
		spec *chartspec.SpecError
		ferr *export.FormatError
	)
	switch {
	case errors.As(err, &fe):
		return fe.Kind, fe.Msg, fe.Hint
	case errors.As(err, &rej):
		return Refused, rej.Reason, rej.Hint
	case errors.As(err, &se):
		return Database, se.Msg, se.Hint
	case errors.As(err, &le):
		return Limit, le.Msg, le.Hint
	case errors.As(err, &nf):
		return Usage, nf.Message(), nf.Hint()
	case errors.As(err, &spec):
		return Usage, spec.Msg, spec.Hint
	case errors.As(err, &ferr):
		return Usage, ferr.Message(), ferr.Hint()
	case errors.Is(err, guard.ErrEmpty):
		return Usage, err.Error(), "give one SELECT, WITH or VALUES statement"
	case errors.Is(err, engine.ErrNotFound), errors.Is(err, db.ErrOutputIsDatabase), errors.Is(err, engine.ErrBadPath):
		return Usage, err.Error(), ""
	case errors.Is(err, engine.ErrNeedsOwner), errors.Is(err, engine.ErrUnavailable):
		return Database, err.Error(), ""
	case errors.Is(err, context.DeadlineExceeded):
		return Limit, "the request ran out of time", "ask for less: aggregate or filter in SQL"
	case errors.Is(err, context.Canceled):
		return Canceled, "the request was cancelled", ""
	}
	return Internal, err.Error(), ""
}

// Line is Explain's message and hint on one line (format.WithHint).
func Line(err error) string {
	_, msg, hint := Explain(err)
	return format.WithHint(msg, hint)
}
