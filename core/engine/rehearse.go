package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tablewise/tablewise/core/format"
)

// The bounds of a rehearsal in a scratch database: the whole of it when
// its context has no deadline, each statement there, and dropping what it
// created.
const (
	RehearsalTimeout          = 2 * time.Minute
	RehearsalStatementTimeout = 30 * time.Second
	RehearsalDropTimeout      = 15 * time.Second
)

// RehearsalContext is ctx, bounded by RehearsalTimeout when it has no
// deadline of its own.
func RehearsalContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, RehearsalTimeout)
}

// Play fills r with the rehearsal of up and then, unless down is blank,
// down: run runs one script statement by statement and reports whether
// every statement ran; read reads the copy's schema after each script
// that ran in full. A script that fails ends the rehearsal (r is returned
// as it stands); an error reading the schema ends it with that error.
func (r *Rehearsal) Play(up, down string, run func(script string) ([]RehearsedStatement, bool), read func() ([]SchemaObject, error)) (*Rehearsal, error) {
	var ok bool
	var err error
	if r.Up, ok = run(up); !ok {
		return r, nil
	}
	if r.AfterUp, err = read(); err != nil {
		return nil, err
	}
	if strings.TrimSpace(down) == "" {
		return r, nil
	}
	if r.Down, ok = run(down); !ok {
		return r, nil
	}
	if r.AfterDown, err = read(); err != nil {
		return nil, err
	}
	return r, nil
}

// RunStatements runs stmts in a scratch database one at a time and stops
// at the first that fails: refuse vets a statement before it runs (its
// error is the statement's refusal), exec runs it, and message words the
// server's error. A statement that fails once ctx has ended is told as
// stopped by the rehearsal's deadline. It reports whether every statement
// ran.
func RunStatements(ctx context.Context, stmts []string, refuse, exec func(stmt string) error, message func(error) string) ([]RehearsedStatement, bool) {
	var out []RehearsedStatement
	for _, st := range stmts {
		if err := refuse(st); err != nil {
			out = append(out, RehearsedStatement{SQL: st, Err: err.Error()})
			return out, false
		}
		if err := exec(st); err != nil {
			msg := message(err)
			if ctx.Err() != nil {
				msg = "stopped: the rehearsal's deadline passed during this statement"
			}
			out = append(out, RehearsedStatement{SQL: st, Err: msg})
			return out, false
		}
		out = append(out, RehearsedStatement{SQL: st})
	}
	return out, true
}

// SplitStatements cuts script into statements at the tokens that end one:
// toks are script's tokens in order, as the engine's lexer reads them
// (comments left out), and end reports the offset just past a token and
// whether it ends a statement (a semicolon). A piece that holds no token,
// only comments and space, is dropped.
func SplitStatements[T any](script string, toks []T, end func(T) (int, bool)) []string {
	var out []string
	start, n := 0, 0
	for _, t := range toks {
		if e, ok := end(t); ok {
			if n > 0 {
				out = append(out, strings.TrimSpace(script[start:e]))
			}
			start, n = e, 0
			continue
		}
		n++
	}
	if n > 0 {
		out = append(out, strings.TrimSpace(script[start:]))
	}
	return out
}

// NotCopied is the rehearsal's note for a statement of the schema's copy
// that the scratch database refused, with the server's words why.
func NotCopied(stmt, why string) string {
	return fmt.Sprintf("not copied to the rehearsal: %s (%s)", format.ClipRunes(strings.Join(strings.Fields(stmt), " "), 120), why)
}

// ScratchNamesChecked is the refusal of a --scratch URL (shown redacted)
// that names the database being checked (display); made is what the
// rehearsal creates and drops there ("a database", "a schema").
func ScratchNamesChecked(shown, display, made string) error {
	return &UsageError{Sentinel: ErrScratchIsDatabase, Msg: fmt.Sprintf("--scratch %s names the database being checked (%s); tablewise never writes that one: give another database, on this server or another, where it may create and drop %s", shown, display, made)}
}

// DropRehearsal drops what a rehearsal created, on a context of its own
// bounded by RehearsalDropTimeout (the rehearsal's may be over): drop on
// the rehearsal's connection, and when that fails again on a new one.
func DropRehearsal(drop, again func(ctx context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), RehearsalDropTimeout)
	defer cancel()
	if drop(ctx) != nil {
		_ = again(ctx)
	}
}
