package config

import (
	"path/filepath"
	"testing"
)

func TestStateDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if got := StateDir(); got != "/x/state" {
		t.Fatalf("with XDG_STATE_HOME: %s", got)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := StateDir(); got != filepath.Join("/home/u", ".local", "state") {
		t.Fatalf("without XDG_STATE_HOME: %s", got)
	}
}
