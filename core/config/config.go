// Package config holds settings shared by every front door.
package config

import (
	"os"
	"path/filepath"
)

// StateDir is where tablewise keeps its history, threads, traces and logs:
// $XDG_STATE_HOME, else ~/.local/state, else the user cache directory,
// else the temporary directory. Files go in its tablewise subdirectory.
func StateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return d
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".local", "state")
	}
	if d, err := os.UserCacheDir(); err == nil && d != "" {
		return d
	}
	return os.TempDir()
}
