package eval

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/testdb"
)

func write(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadCasesBothFormats(t *testing.T) {
	dir := t.TempDir()
	p := write(t, filepath.Join(dir, "mine.jsonl"), `{"id":"a","question":"How many?","gold_sql":"SELECT 1","db":"shop","difficulty":"simple","evidence":"x means y","ordered":false}
// a comment

{"question":"Top 3 by n","sql":"SELECT 2 ORDER BY 1","shape":"topn","ordered":true,"set":"blind-x"}
{"question":"Why?","expect":"refuse"}
`)
	cases, err := LoadCases(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 3 {
		t.Fatalf("%d cases", len(cases))
	}
	a, b, c := cases[0], cases[1], cases[2]
	if a.ID != "a" || a.GoldSQL != "SELECT 1" || a.DB != "shop" || a.Difficulty != "simple" || a.Evidence != "x means y" || a.Ordered == nil || *a.Ordered {
		t.Errorf("issue format: %+v", a)
	}
	if a.Prompt() != "How many?\n\nEvidence: x means y" {
		t.Errorf("prompt %q", a.Prompt())
	}
	// data/eval format: "sql" is the gold; the id is file:line.
	if b.ID != "mine:4" || b.GoldSQL != "SELECT 2 ORDER BY 1" || b.Shape != "topn" || !b.OrderMatters() || b.Set != "blind-x" {
		t.Errorf("data/eval format: %+v", b)
	}
	if c.ID != "mine:5" || c.Expect != ExpectRefuse || c.GoldSQL != "" {
		t.Errorf("refusal: %+v", c)
	}
	for _, bad := range []struct{ text, want string }{
		{`{"id":"x","question":"q","gold_sql":"SELECT 1"}` + "\n" + `{"id":"x","question":"r","gold_sql":"SELECT 2"}`, `"x" is used twice`},
		{`{"id":"x","question":"q"}`, "needs a question and gold_sql"},
		{`{"id":"x",`, "bad.jsonl:1"},
		{"\n// nothing\n", "no questions"},
	} {
		_, err := LoadCases(write(t, filepath.Join(dir, "bad.jsonl"), bad.text))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want %q", bad.text, err, bad.want)
		}
	}
}

// Every gold file of data/eval loads, with unique ids.
func TestLoadDataEvalFiles(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "data", "eval", "*.jsonl"))
	if len(files) < 8 {
		t.Fatalf("found %d gold files", len(files))
	}
	for _, f := range files {
		if _, err := LoadCases(f); err != nil {
			t.Error(err)
		}
	}
}

func TestLoadBIRD(t *testing.T) {
	gold := testdb.SharedData(t, "bird-minidev/mini_dev_sqlite.json")
	s, err := LoadSuite("bird:" + filepath.Dir(gold))
	if err != nil {
		t.Fatal(err)
	}
	diff := map[string]int{}
	dbs := map[string]bool{}
	for _, c := range s.Cases {
		diff[c.Difficulty]++
		dbs[c.DB] = true
		if c.GoldSQL == "" || c.Evidence == "" && c.ID == "bird-0" {
			t.Errorf("%+v", c)
		}
	}
	// mini_dev_sqlite.json: 500 questions, 148 simple, 250 moderate, 102
	// challenging, 11 databases.
	if len(s.Cases) != 500 || diff["simple"] != 148 || diff["moderate"] != 250 || diff["challenging"] != 102 || len(dbs) != 11 {
		t.Errorf("%d cases, %v, %d databases", len(s.Cases), diff, len(dbs))
	}
	if s.Cases[0].ID != "bird-0" || s.Cases[0].DB != "debit_card_specializing" || !strings.HasPrefix(s.Cases[0].GoldSQL, "SELECT CAST(SUM(IIF(Currency = 'EUR'") {
		t.Errorf("first case %+v", s.Cases[0])
	}
	if _, err := LoadSuite("bird:" + t.TempDir()); err == nil || !strings.Contains(err.Error(), "mini_dev_sqlite.json") {
		t.Errorf("an empty folder: %v", err)
	}
}

// spiderDir writes a small Spider-shaped download: dev.json and one
// database in database/<db>/<db>.sqlite.
func spiderDir(t *testing.T) string {
	dir := t.TempDir()
	dev := []map[string]any{
		{"db_id": "concert", "question": "How many singers are there?", "query": "SELECT count(*) FROM singer"},
		{"db_id": "concert", "question": "List singer names by age", "query": "SELECT name FROM singer ORDER BY age"},
	}
	raw, _ := json.Marshal(dev)
	write(t, filepath.Join(dir, "dev.json"), string(raw))
	testdb.BuildAt(t, filepath.Join(dir, "database", "concert", "concert.sqlite"),
		`CREATE TABLE singer (name TEXT, age INTEGER); INSERT INTO singer VALUES ('Ann', 30), ('Bo', 25), ('Cy', 41)`)
	return dir
}

func TestLoadSpider(t *testing.T) {
	dir := spiderDir(t)
	s, err := LoadSuite("spider:" + dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != 2 || s.Cases[1].ID != "spider-1" || s.Cases[1].DB != "concert" || !s.Cases[1].OrderMatters() || s.Cases[0].OrderMatters() {
		t.Errorf("%+v", s.Cases)
	}
	if s.DBDir != filepath.Join(dir, "database") {
		t.Errorf("database folder %q", s.DBDir)
	}
}

// TestLoadNoQuestionFile: a downloaded benchmark's folder without its
// question file is an unknown suite, and the error names the files looked
// for and the folder to point at.
func TestLoadNoQuestionFile(t *testing.T) {
	dir := t.TempDir()
	for suite, want := range map[string]string{
		"bird:":   "unknown suite: bird:" + dir + " has no mini_dev_sqlite.json or dev.json (point at the folder of the BIRD download that holds them)",
		"spider:": "unknown suite: spider:" + dir + " has no dev.json (point at the folder of the Spider download that holds dev.json and database/)",
	} {
		_, err := LoadSuite(suite + dir)
		if !errors.Is(err, ErrUnknownSuite) || err.Error() != want {
			t.Errorf("%s: %v\nwant %s", suite, err, want)
		}
	}
}

func TestLoadPredictions(t *testing.T) {
	cases := []Case{{ID: "bird-0"}, {ID: "bird-1"}}
	dir := t.TempDir()
	got, err := LoadPredictions(write(t, filepath.Join(dir, "p.jsonl"), `{"id":"bird-1","sql":"SELECT 1"}`+"\n"+`{"id":"bird-0","sql":""}`+"\n"), cases)
	if err != nil || len(got) != 2 || got["bird-1"] != "SELECT 1" || got["bird-0"] != "" {
		t.Errorf("lines: %v %v", got, err)
	}
	// BIRD's own predict file: position → "SQL\t----- bird -----\tdb".
	got, err = LoadPredictions(write(t, filepath.Join(dir, "predict.json"), `{"0": "SELECT a FROM t\t----- bird -----\tdb1", "1": "SELECT 2\t----- bird -----\tdb2"}`), cases)
	if err != nil || got["bird-0"] != "SELECT a FROM t" || got["bird-1"] != "SELECT 2" {
		t.Errorf("BIRD format: %v %v", got, err)
	}
	for _, bad := range []string{`{"id":"a"}`, `{"id":"a","sql":"x"}` + "\n" + `{"id":"a","sql":"y"}`, `{"7": "SELECT 1"}`} {
		if _, err := LoadPredictions(write(t, filepath.Join(dir, "bad"), bad), cases); err == nil {
			t.Errorf("%q loaded", bad)
		}
	}
}

func TestSelect(t *testing.T) {
	var cases []Case
	for _, id := range strings.Split("a b c d e f g h", " ") {
		cases = append(cases, Case{ID: id})
	}
	ids := func(cs []Case) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return strings.Join(out, "")
	}
	if got := ids(Select(cases, 3, 0)); got != "abc" {
		t.Errorf("limit without seed: %s", got)
	}
	a, b := ids(Select(cases, 0, 7)), ids(Select(cases, 0, 7))
	if a != b || a == "abcdefgh" || len(a) != 8 {
		t.Errorf("seed 7: %s then %s", a, b)
	}
	if c := ids(Select(cases, 4, 7)); c != a[:4] {
		t.Errorf("seed 7, limit 4: %s, want %s", c, a[:4])
	}
	if ids(Select(cases, 0, 8)) == a {
		t.Error("seeds 7 and 8 shuffle alike")
	}
	if !slices.Equal([]string{ids(cases)}, []string{"abcdefgh"}) {
		t.Error("Select changed its input")
	}
}
