package tui

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestE2ETmux runs testdata/e2e.sh: the real binary in a real terminal
// (tmux at 100x30). It builds ./cmd/tablewise; while that command does not
// open the explorer yet (the script exits 3), it runs the explorer through
// the tui/internal/tuidemo harness instead and says so.
func TestE2ETmux(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the tmux end-to-end script under -short")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: skipping the end-to-end script (tui/testdata/e2e.sh)")
	}
	run := func(pkg string) (string, int) {
		out := t.TempDir()
		cmd := exec.Command("bash", filepath.Join("testdata", "e2e.sh"))
		cmd.Env = append(os.Environ(), "TABLEWISE_E2E_PKG="+pkg, "TABLEWISE_E2E_OUT="+out)
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return b.String(), 0
		case errors.As(err, &ee):
			return b.String(), ee.ExitCode()
		}
		t.Fatalf("run e2e.sh: %v", err)
		return "", -1
	}
	out, code := run("./cmd/tablewise")
	if code == 3 {
		t.Logf("./cmd/tablewise does not open the explorer yet; running the tui harness instead:\n%s", out)
		out, code = run("./tui/internal/tuidemo")
	}
	t.Logf("%s", out)
	if code != 0 {
		t.Fatalf("e2e.sh exited %d", code)
	}
}
