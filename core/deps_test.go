package core_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/tablewise/tablewise/"

// TestDependencyRule checks the layering rule of core/doc.go with go list:
// what every package reaches (Deps), and what a front door imports itself,
// its tests included (Imports, TestImports, XTestImports).
func TestDependencyRule(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Deps,Imports,TestImports,XTestImports", "github.com/tablewise/tablewise/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for dec.More() {
		var p struct {
			ImportPath                         string
			Deps                               []string
			Imports, TestImports, XTestImports []string
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
		reported := map[string]bool{}
		for _, imports := range [][]string{p.Imports, p.TestImports, p.XTestImports} {
			for _, dep := range imports {
				d := strings.TrimPrefix(dep, module)
				if d == dep || reported[d] {
					continue
				}
				if msg := wires(self, d); msg != "" {
					reported[d] = true
					t.Errorf("%s imports %s: %s", self, d, msg)
				}
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

// wires says why a package may not import dep itself: the question agent
// and the offline planner are wired in one place, core/ask, and every front
// door (cmd, tui, bridge) asks through it. Front-door tests fake a model
// with core/llm/llmtest, never by building an agent.
func wires(self, dep string) string {
	switch top(self) {
	case "cmd", "tui", "bridge":
	default:
		return ""
	}
	if dep == "core/agent" || dep == "core/offline" || strings.HasPrefix(dep, "core/agent/") || strings.HasPrefix(dep, "core/offline/") {
		return "front doors ask through core/ask, the one place that wires the agent and the offline planner"
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
	for _, c := range [][2]string{{"cmd/tablewise", "core/agent"}, {"tui", "core/offline"}, {"bridge/mcp", "core/agent"}, {"bridge/discord", "core/offline"}} {
		if wires(c[0], c[1]) == "" {
			t.Errorf("%s → %s allowed", c[0], c[1])
		}
	}
	for _, c := range [][2]string{{"cmd/tablewise", "core/ask"}, {"bridge/mcp", "core/llm/llmtest"}, {"core/ask", "core/agent"}, {"core/ask", "core/offline"}, {"tui", "core/answer"}} {
		if msg := wires(c[0], c[1]); msg != "" {
			t.Errorf("%s → %s refused: %s", c[0], c[1], msg)
		}
	}
}

// SQLite's wrapper and the packages that reach into SQLite's C API belong
// to the SQLite engine alone; modernc.org/sqlite as a database/sql driver
// is allowed only where fixtures are built (the fixture builder, the
// generators of the built-in databases, and tests that write databases
// the way other programs do); engine packages are opened by core/db alone.
var (
	sqliteInternals = []string{module + "core/engine/sqlite/internal/", "modernc.org/sqlite/lib"}
	// fixtureBuilders may import modernc.org/sqlite to write databases.
	fixtureBuilders = map[string]bool{
		"core/testdb":            true, // builds test databases from SQL
		"core/testdb/servers":    true, // reads SQLite fixtures to copy them into PostgreSQL and MariaDB
		"data/internal/sampledb": true, // generates the built-in sample database
		"data/eval/evaldb":       true, // generates the blind evaluation databases
		"data/scaledb":           true, // generates the scale databases (data/testdata/scale.sh)
	}
	// fixtureTests are packages whose tests may import it.
	fixtureTests = map[string]bool{
		"cmd/tablewise": true, // writes WAL databases as a live writer does
		"data":          true, // checks the generated sample database with the plain driver
	}
)

// TestEngineImports checks, with go list, every package's own imports
// (tests included): see engineImport.
func TestEngineImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", "github.com/tablewise/tablewise/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	sawEngine := false
	for dec.More() {
		var p struct {
			ImportPath                         string
			Imports, TestImports, XTestImports []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		self := strings.TrimPrefix(p.ImportPath, module)
		for _, imp := range p.Imports {
			sawEngine = sawEngine || imp == module+"core/engine/sqlite"
			if msg := engineImport(self, imp, false); msg != "" {
				t.Errorf("%s imports %s: %s", self, imp, msg)
			}
		}
		for _, imp := range append(p.TestImports, p.XTestImports...) {
			if msg := engineImport(self, imp, true); msg != "" {
				t.Errorf("%s's tests import %s: %s", self, imp, msg)
			}
		}
	}
	if !sawEngine {
		t.Fatal("no package imports core/engine/sqlite: the rule checked nothing")
	}
}

// engineImport says why self may not import dep ("" when it may); test
// says the import is made by self's tests.
func engineImport(self, dep string, test bool) string {
	inSQLite := self == "core/engine/sqlite" || strings.HasPrefix(self, "core/engine/sqlite/")
	for _, p := range sqliteInternals {
		if strings.HasPrefix(dep, p) && !inSQLite {
			return "only core/engine/sqlite reaches into SQLite's C API"
		}
	}
	if dep == "modernc.org/sqlite" && !inSQLite && !fixtureBuilders[self] && !(test && fixtureTests[self]) {
		return "modernc.org/sqlite is a driver for building fixtures only (core/testdb); SQL runs through core/db"
	}
	if engine, ok := strings.CutPrefix(dep, module+"core/engine/"); ok && engine != "" {
		if self != "core/db" && !strings.HasPrefix(self, "core/engine/") {
			return "engines are opened through core/db, never imported directly"
		}
	}
	return ""
}

func TestEngineImportCatchesBadImports(t *testing.T) {
	for _, c := range []struct {
		self, dep string
		test      bool
	}{
		{"core/query", module + "core/engine/sqlite/internal/lite", false},
		{"core/guard", "modernc.org/sqlite/lib", false},
		{"cmd/tablewise", "modernc.org/sqlite/lib", true},
		{"core/tools", "modernc.org/sqlite", false},
		{"bridge/mcp", "modernc.org/sqlite", true},
		{"bridge/mcp", module + "core/engine/sqlite", false},
		{"tui", module + "core/engine/sqlite", true},
		{"core/fault", module + "core/engine/postgres", false},
		{"core/db", module + "core/engine/sqlite/internal/lite", false},
	} {
		if engineImport(c.self, c.dep, c.test) == "" {
			t.Errorf("%s → %s (test %v) allowed", c.self, c.dep, c.test)
		}
	}
	for _, c := range []struct {
		self, dep string
		test      bool
	}{
		{"core/db", module + "core/engine/sqlite", false},
		{"core/engine/sqlite", module + "core/engine/sqlite/internal/lite", false},
		{"core/engine/sqlite/internal/lite/funcs", "modernc.org/sqlite/lib", false},
		{"core/testdb", "modernc.org/sqlite", false},
		{"cmd/tablewise", "modernc.org/sqlite", true},
		{"core/fault", module + "core/engine", false},
		{"bridge/mcp", module + "core/engine", false},
	} {
		if msg := engineImport(c.self, c.dep, c.test); msg != "" {
			t.Errorf("%s → %s (test %v) refused: %s", c.self, c.dep, c.test, msg)
		}
	}
}
