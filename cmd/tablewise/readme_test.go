package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/testdb"
)

// TestReadmeExamples runs every tablewise command in the README's shell
// and JSON examples, read from the README itself so that a changed README
// is checked again. Database paths that are placeholders (shop.db,
// /path/to/shop.db…) become a copy of the sample; commands that serve
// (mcp, discord) or reach outside (a model server) get --help appended,
// which checks that their flags exist and exits 0; questions are answered
// by the offline planner.
func TestReadmeExamples(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := readmeCommands(t, string(readme))
	if len(cmds) < 12 {
		t.Fatalf("found %d tablewise commands in the README's examples, expected at least 12: %q", len(cmds), cmds)
	}
	shop, _ := testdb.SampleCopy(t)
	dir := filepath.Dir(shop)
	// The suite the eval examples name is the README's own JSON Lines block.
	if m := regexp.MustCompile("(?ms)^```jsonl\n(.*?)^```").FindStringSubmatch(string(readme)); m != nil {
		if err := os.WriteFile(filepath.Join(dir, "shop.jsonl"), []byte(m[1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The data files the examples open are the README's own blocks whose
	// info string names a file (```csv orders.csv).
	for _, m := range regexp.MustCompile("(?ms)^```(?:csv|tsv) (\\S+)\n(.*?)^```").FindAllStringSubmatch(string(readme), -1) {
		if err := os.WriteFile(filepath.Join(dir, m[1]), []byte(m[2]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "DISCORD_BOT_TOKEN"} {
		t.Setenv(k, "")
	}
	t.Setenv("TABLEWISE_PROVIDER", "offline")
	for _, args := range cmds {
		for i, a := range args {
			if isPlaceholderDB(a) {
				args[i] = shop
			}
		}
		if len(args) > 0 && (args[0] == "mcp" || args[0] == "discord" || args[0] == "eval" && evalReachesOut(args)) {
			args = append(args, "--help")
		}
		code, out, errs := runCLI(t, "", args...)
		t.Logf("tablewise %s: exit %d", strings.Join(args, " "), code)
		if code != 0 {
			t.Errorf("README: tablewise %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, firstLine(out), errs)
		}
	}
	for _, f := range []string{"items.csv", "orders.png", "cities.png"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() < 1000 {
			t.Errorf("the README's examples wrote no %s: %v", f, err)
		}
	}
}

// evalReachesOut reports whether an eval example needs what a test has not:
// a model provider's key, a benchmark download, or the runs of such a model.
func evalReachesOut(args []string) bool {
	for i, a := range args {
		switch {
		case a == "--compare", strings.HasPrefix(a, "bird:"), strings.HasPrefix(a, "spider:"):
			return true
		case a == "--provider" && i+1 < len(args) && args[i+1] != "offline":
			return true
		}
	}
	return false
}

// isPlaceholderDB reports whether a README argument names a database that
// stands for the reader's own.
func isPlaceholderDB(a string) bool {
	return strings.Contains(a, "/path/to/") || strings.HasSuffix(a, "shop.db") || strings.HasSuffix(a, "your.sqlite")
}

// readmeCommands extracts the arguments of every tablewise command in the
// README's sh and json code blocks: lines that run tablewise (./tablewise,
// go run ./cmd/tablewise, after VAR=value prefixes or "claude mcp add NAME
// --"), and the command and args of MCP client configurations.
func readmeCommands(t *testing.T, readme string) [][]string {
	t.Helper()
	blocks := regexp.MustCompile("(?ms)^```(sh|json)\n(.*?)^```").FindAllStringSubmatch(readme, -1)
	var out [][]string
	for _, b := range blocks {
		if b[1] == "json" {
			var cfg map[string]map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			}
			if err := json.Unmarshal([]byte(b[2]), &cfg); err != nil {
				t.Errorf("README json example does not parse: %v\n%s", err, b[2])
				continue
			}
			for _, servers := range cfg {
				for name, s := range servers {
					if filepath.Base(s.Command) != "tablewise" {
						continue
					}
					if strings.Contains(b[2], "mcpServers") && !filepath.IsAbs(s.Command) {
						// Claude Desktop does not search the shell's PATH.
						t.Errorf("README: the Claude Desktop example runs %q for %s; it needs an absolute path", s.Command, name)
					}
					args := append([]string(nil), s.Args...)
					for i, a := range args {
						args[i] = strings.ReplaceAll(a, "${workspaceFolder}/", "")
					}
					out = append(out, args)
				}
			}
			continue
		}
		for _, line := range strings.Split(b[2], "\n") {
			words := shellWords(line)
			for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
				words = words[1:] // VAR=value prefixes
			}
			switch {
			case len(words) >= 4 && words[0] == "claude" && words[1] == "mcp" && words[2] == "add":
				i := slices.Index(words, "--")
				if i < 0 {
					continue // an HTTP client entry: no command to run
				}
				words = words[i+1:]
			case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/tablewise":
				words = append([]string{"tablewise"}, words[3:]...)
			}
			if len(words) == 0 || (words[0] != "tablewise" && words[0] != "./tablewise") {
				continue
			}
			out = append(out, words[1:])
		}
	}
	return out
}

// shellWords splits a line of the README's shell examples as sh would:
// words on spaces, "double" and 'single' quotes (with \n, \" kept as sh
// keeps them in double quotes: only \" and \\ are escapes), and a # comment
// outside quotes ends the line.
func shellWords(line string) []string {
	var words []string
	var b strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == 0 && c == '#' && !in:
			return words
		case quote == 0 && (c == ' ' || c == '\t'):
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		case quote == 0 && (c == '"' || c == '\''):
			quote, in = c, true
		case quote != 0 && c == quote:
			quote = 0
		case quote == '"' && c == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\'):
			i++
			b.WriteByte(line[i])
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, b.String())
	}
	return words
}
