package core_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/tablewise/tablewise/"

// TestDependencyRule checks the layering rule of core/doc.go with go list.
func TestDependencyRule(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Deps", "github.com/tablewise/tablewise/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Deps       []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		checked++
		self := strings.TrimPrefix(p.ImportPath, module)
		for _, dep := range p.Deps {
			if !strings.HasPrefix(dep, module) {
				continue
			}
			d := strings.TrimPrefix(dep, module)
			if msg := violates(self, d); msg != "" {
				t.Errorf("%s imports %s: %s", self, d, msg)
			}
		}
	}
	if checked < 5 {
		t.Fatalf("go list returned only %d packages", checked)
	}
}

func top(p string) string { return strings.SplitN(p, "/", 2)[0] }

func violates(self, dep string) string {
	switch {
	case top(dep) == "cmd":
		return "nothing imports cmd"
	case top(self) == "core" && (top(dep) == "tui" || top(dep) == "bridge" || top(dep) == "charts"):
		return "core imports nothing from tui, bridge or charts"
	case top(self) == "charts" && (top(dep) == "tui" || top(dep) == "bridge"):
		return "charts may import only core"
	case top(self) == "bridge" && top(dep) == "tui":
		return "bridges never import tui"
	case top(self) == "bridge" && top(dep) == "bridge" && bridgeName(self) != bridgeName(dep):
		return "bridges never import each other"
	case top(self) == "tui" && top(dep) == "bridge":
		return "tui never imports a bridge"
	}
	return ""
}

func bridgeName(p string) string {
	parts := strings.SplitN(p, "/", 3)
	if len(parts) < 2 {
		return p
	}
	return parts[1]
}

func TestViolatesCatchesBadImports(t *testing.T) {
	for _, c := range [][2]string{{"core/query", "charts"}, {"core/db", "tui"}, {"bridge/mcp", "bridge/discord"}, {"charts", "tui"}, {"tui", "cmd/tablewise"}} {
		if violates(c[0], c[1]) == "" {
			t.Errorf("%s → %s allowed", c[0], c[1])
		}
	}
	for _, c := range [][2]string{{"bridge/mcp", "core/query"}, {"charts", "core/answer"}, {"tui", "charts"}, {"bridge/mcp", "bridge/mcp/internal"}} {
		if msg := violates(c[0], c[1]); msg != "" {
			t.Errorf("%s → %s refused: %s", c[0], c[1], msg)
		}
	}
}
