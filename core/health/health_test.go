package health

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/tools"
)

// build creates a SQLite database from a file of testdata.
func build(t *testing.T, name string) string {
	t.Helper()
	sql, err := os.ReadFile("testdata/" + name + ".sql")
	if err != nil {
		t.Fatal(err)
	}
	return testdb.Build(t, name+".db", string(sql))
}

func check(t *testing.T, path string, opt Options) *Report {
	t.Helper()
	before := testdb.FileHash(t, path)
	d, err := db.Open(context.Background(), path, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(context.Background(), d, opt)
	d.Close()
	if err != nil {
		t.Fatal(err)
	}
	if testdb.FileHash(t, path) != before {
		t.Fatal("the database file changed")
	}
	return rep
}

func TestPlantedProblems(t *testing.T) {
	rep := check(t, build(t, "planted"), Options{})
	want := map[string]string{ // code → the object it must name
		NoPrimaryKey:     "log_lines",
		UnindexedFK:      "notes.parent_id",
		OrphanRows:       "tags.parent_id",
		DuplicateIndex:   "index cities_name_again",
		RedundantIndex:   "index visits_city",
		TypeMismatch:     "stock.qty",
		MixedDateFormats: "events.happened",
		NotNullCandidate: "people.nickname",
		WideTable:        "survey",
	}
	got := map[string][]Finding{}
	for _, f := range rep.Findings {
		got[f.Code] = append(got[f.Code], f)
		if f.Why == "" || f.Fix == "" || f.Severity == "" {
			t.Errorf("finding %s lacks a why, a fix or a severity: %+v", f.Code, f)
		}
	}
	for code, obj := range want {
		fs := got[code]
		if len(fs) != 1 {
			t.Errorf("%s: %d findings, want 1: %+v", code, len(fs), fs)
			continue
		}
		if !slices.Contains(fs[0].Objects, obj) {
			t.Errorf("%s names %v, want %s", code, fs[0].Objects, obj)
		}
	}
	for code := range got {
		if _, ok := want[code]; !ok {
			t.Errorf("unexpected finding %s: %+v", code, got[code])
		}
	}
	if len(rep.Notes) > 0 {
		t.Errorf("notes on a small database: %v", rep.Notes)
	}
	// The details a user acts on.
	orphan := got[OrphanRows][0]
	if !strings.Contains(orphan.Why, "2 rows of tags") || orphan.Severity != Error {
		t.Errorf("orphans: %+v", orphan)
	}
	if fix := got[UnindexedFK][0].Fix; fix != "CREATE INDEX notes_parent_id_idx ON notes (parent_id);" {
		t.Errorf("fix for the unindexed key: %q", fix)
	}
	if why := got[TypeMismatch][0].Why; !strings.Contains(why, `"twelve"`) || !strings.Contains(why, "1 row of stock.qty") {
		t.Errorf("type mismatch: %s", why)
	}
	if why := got[MixedDateFormats][0].Why; !strings.Contains(why, `2 like "2024-01-05"`) || !strings.Contains(why, `1 like "01/06/2024"`) {
		t.Errorf("date formats: %s", why)
	}
	if fix := got[DuplicateIndex][0].Fix; fix != "DROP INDEX cities_name_again;" {
		t.Errorf("fix for the duplicate: %q", fix)
	}
	// Errors come first.
	if rep.Findings[0].Severity != Error {
		t.Errorf("first finding is %s, want the error", rep.Findings[0].Severity)
	}
}

func TestCleanDatabase(t *testing.T) {
	rep := check(t, build(t, "clean"), Options{})
	if len(rep.Findings) != 0 || len(rep.Notes) != 0 {
		t.Errorf("findings on a clean database: %+v, notes %v", rep.Findings, rep.Notes)
	}
	if rep.Tables != 2 {
		t.Errorf("checked %d tables, want 2", rep.Tables)
	}
}

// TestSampledTable: a table over SampleRows is judged on a sample, and the
// finding says so.
func TestSampledTable(t *testing.T) {
	rep := check(t, build(t, "planted"), Options{SampleRows: 2, Tables: []string{"tags", "people"}})
	var orphan, notNull *Finding
	for i, f := range rep.Findings {
		switch f.Code {
		case OrphanRows:
			orphan = &rep.Findings[i]
		case NotNullCandidate:
			notNull = &rep.Findings[i]
		}
	}
	// The first two rows of tags hold one orphan.
	if orphan == nil || !orphan.Sampled || !strings.Contains(orphan.Why, "1 row of tags (in a sample of 2 rows)") {
		t.Errorf("sampled orphans: %+v", orphan)
	}
	// Two rows are too few to call a column NOT NULL.
	if notNull != nil {
		t.Errorf("NOT NULL candidate from a sample of 2 rows: %+v", notNull)
	}
	if rep.Tables != 2 {
		t.Errorf("checked %d tables, want 2", rep.Tables)
	}
}

func TestUnknownTable(t *testing.T) {
	d := testdb.Open(t, build(t, "clean"))
	_, err := Check(context.Background(), d, Options{Tables: []string{"nope"}})
	var nf *tools.NotFoundError
	if !errors.As(err, &nf) || nf.Name != "nope" {
		t.Errorf("err = %v, want a NotFoundError naming nope", err)
	}
	_, err = Check(context.Background(), d, Options{Tables: []string{"chld"}})
	if !errors.As(err, &nf) || len(nf.Nearest) == 0 || nf.Nearest[0] != "child" {
		t.Errorf("err = %v, want child suggested", err)
	}
}

func TestShape(t *testing.T) {
	for in, want := range map[string]string{
		"2024-03-05":          "9-9-9",
		"1999-12-31":          "9-9-9",
		"3/5/2024":            "9/9/9",
		"2024-03-05 10:00:00": "9-9-9 9:9:9",
		"2024-03-05T10:00Z":   "9-9-9T9:9Z",
		"March 5, 2024":       "a 9, 9",
	} {
		if got := shape(in); got != want {
			t.Errorf("shape(%q) = %q, want %q", in, got, want)
		}
	}
}
