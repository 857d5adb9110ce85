package tui

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"

	"github.com/tablewise/tablewise/core/config"
	"github.com/tablewise/tablewise/core/db"
)

// StateDir is where the explorer keeps its history and log (see
// config.StateDir). Files go in its tablewise subdirectory.
func StateDir() string { return config.StateDir() }

// HistoryPath is the history file in state directory dir.
func HistoryPath(dir string) string { return filepath.Join(dir, "tablewise", "history") }

// LogPath is the log file in state directory dir.
func LogPath(dir string) string { return filepath.Join(dir, "tablewise", "tui.log") }

// OpenLog opens (appending) the explorer's log file in state directory dir.
// The explorer owns the terminal, so it never logs anywhere else.
func OpenLog(dir string) (*slog.Logger, func() error, error) {
	path := LogPath(dir)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug})), f.Close, nil
}

// Run opens the explorer on d in the terminal and returns when the user
// quits. It logs to the state directory's tablewise/tui.log (unless
// opts.Logger is set); extra program options (input, output, environment)
// are passed to Bubble Tea.
func Run(ctx context.Context, d *db.DB, opts Options, progOpts ...tea.ProgramOption) error {
	if opts.Logger == nil {
		dir := opts.StateDir
		if dir == "" {
			dir = StateDir()
		}
		if log, closeLog, err := OpenLog(dir); err == nil {
			defer closeLog()
			opts.Logger = log
		}
	}
	// Code that logs through the default logger (or the log package) must
	// not write over the screen either.
	if opts.Logger != nil {
		prev := slog.Default()
		slog.SetDefault(opts.Logger)
		defer slog.SetDefault(prev)
	}
	opts.Context = ctx
	app := New(d, opts)
	defer app.Close()
	p := tea.NewProgram(app, append([]tea.ProgramOption{tea.WithContext(ctx)}, progOpts...)...)
	_, err := p.Run()
	switch {
	case err == nil:
		app.log.Info("explorer quit")
		return nil
	case errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, tea.ErrInterrupted):
		return context.Canceled
	}
	app.log.Error("explorer failed", "err", err)
	return fmt.Errorf("explorer: %w", err)
}
