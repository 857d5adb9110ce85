package eval

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/tablewise/tablewise/core/guard"
)

// Case is one question of a suite. A suite line is
// {"id","question","gold_sql","db"?,"difficulty"?,"evidence"?,"ordered"?};
// the gold files of data/eval ({"question","sql","shape","ordered"?,
// "expect"?,"batch"?,"set"?}) read the same way, "sql" standing for
// "gold_sql" and the id made from the file name and line number.
type Case struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	GoldSQL  string `json:"gold_sql,omitempty"`
	// DB names the database the question is about (BIRD's and Spider's
	// db_id), found in the --db-dir directory; empty means the --db one.
	DB         string `json:"db,omitempty"`
	Difficulty string `json:"difficulty,omitempty"`
	// Evidence is the knowledge the question needs that the schema does
	// not hold (BIRD's "evidence"); it is sent with the question.
	Evidence string `json:"evidence,omitempty"`
	// Ordered says whether the order of the rows matters. Unset, it
	// matters when the gold query's outermost SELECT has an ORDER BY
	// (guard.OrdersResult), as in Spider's test-suite evaluation.
	Ordered *bool `json:"ordered,omitempty"`
	// Expect is ExpectRefuse for a question that should be declined: it
	// has no gold SQL, and abstaining is its right answer.
	Expect string `json:"expect,omitempty"`
	// Shape, Batch and Set group the data/eval gold questions.
	Shape string `json:"shape,omitempty"`
	Batch string `json:"batch,omitempty"`
	Set   string `json:"set,omitempty"`

	// check, for the built-in behaviours, judges the answers instead of
	// a gold query.
	check *behaviour
}

// ExpectRefuse marks a case that should be declined.
const ExpectRefuse = "refuse"

// OrderMatters says whether c's rows must come in gold's order.
func (c Case) OrderMatters() bool {
	if c.Ordered != nil {
		return *c.Ordered
	}
	return guard.OrdersResult(c.GoldSQL)
}

// asksTop matches questions that ask for "the top …".
var asksTop = regexp.MustCompile(`(?i)\btop\b`)

// AsksTop says whether the question asks for "the top …", where the
// lenient ranking rule tolerates extra trailing rows.
func (c Case) AsksTop() bool { return asksTop.MatchString(c.Question) }

// Prompt is what is asked: the question, and its evidence when there is
// some.
func (c Case) Prompt() string {
	if c.Evidence == "" {
		return c.Question
	}
	return c.Question + "\n\nEvidence: " + c.Evidence
}

// suiteLine is a line of a suite file in either format.
type suiteLine struct {
	Case
	SQL string `json:"sql,omitempty"`
	// BIRD and Spider spell these differently.
	DBID string `json:"db_id,omitempty"`
}

// LoadCases reads a JSON Lines suite: the format or data/eval's.
// Blank lines and lines starting with // are skipped. A case needs a
// question and gold SQL (or "expect": "refuse"); ids must be unique.
func LoadCases(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load suite: %w", err)
	}
	defer f.Close()
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	var out []Case
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "//") {
			continue
		}
		var l suiteLine
		if err := json.Unmarshal([]byte(text), &l); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		c := l.Case
		if c.GoldSQL == "" {
			c.GoldSQL = l.SQL
		}
		if c.DB == "" {
			c.DB = l.DBID
		}
		if c.ID == "" {
			c.ID = base + ":" + strconv.Itoa(line)
		}
		if c.Question == "" || (c.GoldSQL == "" && c.Expect != ExpectRefuse) {
			return nil, fmt.Errorf("%s:%d: a case needs a question and gold_sql (or \"expect\": \"refuse\")", path, line)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("load suite %s: %w", path, err)
	}
	return out, checkIDs(path, out)
}

func checkIDs(source string, cases []Case) error {
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.ID] {
			return fmt.Errorf("%s: the id %q is used twice; ids name questions in results and must be unique", source, c.ID)
		}
		seen[c.ID] = true
	}
	if len(cases) == 0 {
		return fmt.Errorf("%s: no questions", source)
	}
	return nil
}

// Suite is a loaded suite: its cases and, for the downloaded benchmarks,
// the directory their databases are in.
type Suite struct {
	// Name is what the user passed (--suite).
	Name  string
	Cases []Case
	// DBDir is where the cases' databases are unless --db-dir says
	// otherwise (BIRD's dev_databases, Spider's database).
	DBDir string
	// Behaviours: the built-in behaviour suite, asked on the sample.
	Behaviours bool
}

// ErrUnknownSuite means --suite names nothing tablewise can read.
var ErrUnknownSuite = errors.New("unknown suite")

// Suite names.
const (
	SuiteBehaviours = "behaviours"
	prefixBIRD      = "bird:"
	prefixSpider    = "spider:"
)

// LoadSuite reads what --suite names: a JSON Lines file, "bird:DIR" (a
// BIRD mini-dev or dev download), "spider:DIR" (a Spider download) or
// "behaviours".
func LoadSuite(name string) (*Suite, error) {
	s := &Suite{Name: name}
	var err error
	switch {
	case name == SuiteBehaviours || name == "behaviors":
		s.Name, s.Behaviours, s.Cases = SuiteBehaviours, true, behaviourCases()
	case strings.HasPrefix(name, prefixBIRD):
		s.Cases, s.DBDir, err = loadBIRD(strings.TrimPrefix(name, prefixBIRD))
	case strings.HasPrefix(name, prefixSpider):
		s.Cases, s.DBDir, err = loadSpider(strings.TrimPrefix(name, prefixSpider))
	default:
		s.Cases, err = LoadCases(name)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// firstFile is the first of names that is a file in dir.
func firstFile(dir string, names ...string) string { return first(dir, false, names) }

// firstDir is the first of names that is a directory in dir.
func firstDir(dir string, names ...string) string { return first(dir, true, names) }

func first(dir string, wantDir bool, names []string) string {
	for _, n := range names {
		p := filepath.Join(dir, n)
		if st, err := os.Stat(p); err == nil && st.IsDir() == wantDir {
			return p
		}
	}
	return ""
}

// loadBIRD reads a BIRD download: mini_dev_sqlite.json (mini-dev) or
// dev.json (dev), each entry with question_id, db_id, question, evidence,
// SQL and difficulty; databases in dev_databases/<db>/<db>.sqlite. When
// the JSON has no SQL, the gold file (SQL<TAB>db_id per line, in the same
// order) supplies it. A case is named by its position ("bird-0"…), as
// BIRD's prediction files name them (question_id is not unique in
// mini-dev: 137 and 138 appear twice).
func loadBIRD(dir string) ([]Case, string, error) {
	type entry struct {
		DBID       string `json:"db_id"`
		Question   string `json:"question"`
		Evidence   string `json:"evidence"`
		SQL        string `json:"SQL"`
		Difficulty string `json:"difficulty"`
	}
	qfile, entries, err := readEntries[entry]("BIRD", dir, "them", "mini_dev_sqlite.json", "dev.json")
	if err != nil {
		return nil, "", err
	}
	var gold []string
	if gfile := firstFile(dir, "mini_dev_sqlite_gold.sql", "dev.sql", "dev_gold.sql"); gfile != "" {
		if gold, err = goldLines(gfile); err != nil {
			return nil, "", err
		}
	}
	cases := make([]Case, len(entries))
	for i, e := range entries {
		sql := e.SQL
		if sql == "" && i < len(gold) {
			sql = gold[i]
		}
		if sql == "" || e.Question == "" || e.DBID == "" {
			return nil, "", fmt.Errorf("load BIRD %s: entry %d has no question, db_id or SQL", qfile, i)
		}
		cases[i] = Case{ID: "bird-" + strconv.Itoa(i), Question: e.Question, GoldSQL: sql, DB: e.DBID, Difficulty: e.Difficulty, Evidence: e.Evidence}
	}
	dbDir := firstDir(dir, "dev_databases", "databases")
	return cases, dbDir, checkIDs(qfile, cases)
}

// readEntries reads the JSON array of a suite's question file, the first
// of names in dir, and returns the file's path. suite ("BIRD", "Spider")
// names it in errors; holds says what the download's folder holds, for
// the error when dir has none of names.
func readEntries[T any](suite, dir, holds string, names ...string) (string, []T, error) {
	qfile := firstFile(dir, names...)
	if qfile == "" {
		return "", nil, fmt.Errorf("%w: %s:%s has no %s (point at the folder of the %s download that holds %s)",
			ErrUnknownSuite, strings.ToLower(suite), dir, strings.Join(names, " or "), suite, holds)
	}
	raw, err := os.ReadFile(qfile)
	if err != nil {
		return "", nil, fmt.Errorf("load %s: %w", suite, err)
	}
	var entries []T
	if err := json.Unmarshal(raw, &entries); err != nil {
		return "", nil, fmt.Errorf("load %s %s: %w", suite, qfile, err)
	}
	return qfile, entries, nil
}

// goldLines reads a gold file of SQL<TAB>db_id lines and returns the SQL.
func goldLines(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load gold SQL: %w", err)
	}
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if i := strings.LastIndexByte(line, '\t'); i >= 0 {
			line = line[:i]
		}
		out = append(out, strings.TrimSpace(line))
	}
	return out, nil
}

// loadSpider reads a Spider download: dev.json (db_id, question, query)
// with databases in database/<db>/<db>.sqlite. Spider has no ids; a case
// is named by its position in dev.json.
func loadSpider(dir string) ([]Case, string, error) {
	type entry struct {
		DBID     string `json:"db_id"`
		Question string `json:"question"`
		Query    string `json:"query"`
	}
	qfile, entries, err := readEntries[entry]("Spider", dir, "dev.json and database/", "dev.json")
	if err != nil {
		return nil, "", err
	}
	cases := make([]Case, len(entries))
	for i, e := range entries {
		if e.Query == "" || e.Question == "" || e.DBID == "" {
			return nil, "", fmt.Errorf("load Spider %s: entry %d has no question, db_id or query", qfile, i)
		}
		cases[i] = Case{ID: "spider-" + strconv.Itoa(i), Question: e.Question, GoldSQL: e.Query, DB: e.DBID}
	}
	return cases, firstDir(dir, "database"), checkIDs(qfile, cases)
}

// Select is the cases a run asks: all of them in suite order, shuffled
// first when seed is not 0, then the first limit when limit > 0. The same
// seed always picks the same questions in the same order.
func Select(cases []Case, limit int, seed uint64) []Case {
	out := append([]Case(nil), cases...)
	if seed != 0 {
		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	if limit > 0 && limit < len(out) {
		out = out[:limit]
	}
	return out
}

// LoadPredictions reads --predictions: JSON Lines of {"id","sql"}, or
// BIRD's own prediction file (one JSON object mapping the position of each
// question in the suite, "0", "1"…, to "SQL\t----- bird -----\tdb_id").
// cases is the whole suite, in its order, for the positions.
func LoadPredictions(path string, cases []Case) (map[string]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load predictions: %w", err)
	}
	var bird map[string]string
	if json.Unmarshal(raw, &bird) == nil && len(bird) > 0 {
		out := map[string]string{}
		for k, v := range bird {
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(cases) {
				return nil, fmt.Errorf("%s: %q is not the position of a question of the suite (0–%d)", path, k, len(cases)-1)
			}
			sql, _, _ := strings.Cut(v, "\t----- bird -----\t")
			out[cases[i].ID] = strings.TrimSpace(sql)
		}
		return out, nil
	}
	out := map[string]string{}
	for n, line := range strings.Split(string(raw), "\n") {
		text := strings.TrimSpace(line)
		if text == "" || strings.HasPrefix(text, "//") {
			continue
		}
		var p struct {
			ID  *string `json:"id"`
			SQL *string `json:"sql"`
		}
		if err := json.Unmarshal([]byte(text), &p); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
		if p.ID == nil || p.SQL == nil {
			return nil, fmt.Errorf("%s:%d: a prediction is {\"id\": …, \"sql\": …}", path, n+1)
		}
		if _, dup := out[*p.ID]; dup {
			return nil, fmt.Errorf("%s:%d: a second prediction for %q", path, n+1, *p.ID)
		}
		out[*p.ID] = *p.SQL
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no predictions", path)
	}
	return out, nil
}
