package main

import (
	"context"
	"strconv"

	tea "charm.land/bubbletea/v2"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/tui"
)

// runTUI opens the explorer on d in the terminal and returns when the user
// quits. asker answers questions (the answer service); nil makes questions
// explain how to configure a model. The explorer logs to the state directory, never to
// the terminal.
func runTUI(ctx context.Context, d *db.DB, s *streams, asker tui.Asker) error {
	opts := tui.Options{Asker: asker, Getenv: s.getenv}
	var progOpts []tea.ProgramOption
	if s.in != nil {
		progOpts = append(progOpts, tea.WithInput(s.in))
	}
	if s.out != nil {
		progOpts = append(progOpts, tea.WithOutput(s.out))
	}
	if !s.outTTY {
		// No terminal to ask for its size: COLUMNS and LINES, else 80x24.
		progOpts = append(progOpts, tea.WithWindowSize(envSize(s.getenv, "COLUMNS", 80), envSize(s.getenv, "LINES", 24)))
	}
	return tui.Run(ctx, d, opts, progOpts...)
}

func envSize(getenv func(string) string, name string, def int) int {
	if getenv == nil {
		return def
	}
	if n, err := strconv.Atoi(getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
