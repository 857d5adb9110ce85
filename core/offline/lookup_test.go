package offline

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/data/scaledb"
)

// TestLookupFindsEveryCandidate checks that scoring only the tables that
// share a word with a span gives the candidates scoring every table
// gives, for every span of up to four words of the gold questions.
func TestLookupFindsEveryCandidate(t *testing.T) {
	sets := []struct {
		name string
		tp   *testPlanner
	}{{"sample", samplePlanner(t)}, {"chinook", chinookPlanner(t)}}
	for _, n := range []string{"hr", "airlines", "health", "campus"} {
		sets = append(sets, struct {
			name string
			tp   *testPlanner
		}{n, evalDBPlanner(t, n)})
	}
	for _, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			ix, err := set.tp.p.index(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			cases := goldCases(t, set.name+".jsonl")
			spans := 0
			for _, c := range cases {
				toks := categoryOf(mergePhrases(ix.correct(tokenize(c.Question))))
				for i := range toks {
					for l := 1; l <= 4 && i+l <= len(toks); l++ {
						span := toks[i : i+l]
						got, want := ix.schemaCands(span), allTablesCands(ix, span)
						if !sameCands(got, want) {
							t.Fatalf("%q, span %q: lookup gave %v, every table %v", c.Question, spanText(span), got, want)
						}
						spans++
					}
				}
			}
			if spans < 100 {
				t.Fatalf("only %d spans checked", spans)
			}
		})
	}
}

// allTablesCands is schemaCands scoring every table of the schema.
func allTablesCands(ix *index, span []token) []*cand {
	content := ix.content(span)
	if len(content) == 0 {
		return nil
	}
	var out []*cand
	for _, tb := range ix.s.tables {
		out = scoreTable(out, content, tb, tb.cols)
	}
	return keepClose(boostHeadNoun(content, out))
}

func sameCands(a, b []*cand) bool {
	return slices.EqualFunc(a, b, func(x, y *cand) bool { return x.t == y.t && x.c == y.c && x.score == y.score })
}

func spanText(span []token) string {
	s := ""
	for i, t := range span {
		if i > 0 {
			s += " "
		}
		s += t.low
	}
	return s
}

// TestQuestionScoresOnlyTablesSharingAWord checks, on a generated schema
// of 200 tables, that a word is scored against the few tables whose
// names or columns hold it, not the whole schema, and a word no name
// holds against none.
func TestQuestionScoresOnlyTablesSharingAWord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wide.db")
	if err := (scaledb.Wide{Tables: 200, Columns: 8, Rows: 3}).Write(path); err != nil {
		t.Fatal(err)
	}
	ix, err := freshPlanner(t, path).p.index(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Words run together — a table's or a column's two words, a
	// table's last word and a column's first — find what a full scan
	// finds.
	named := 0
	for _, tb := range ix.s.tables[:40] {
		var joined []string
		for k := 0; k+1 < len(tb.words); k++ {
			joined = append(joined, tb.words[k]+tb.words[k+1])
		}
		for _, c := range tb.cols {
			for k := 0; k+1 < len(c.words); k++ {
				joined = append(joined, c.words[k]+c.words[k+1])
			}
			if len(tb.words) > 0 && len(c.words) > 0 {
				joined = append(joined, tb.words[len(tb.words)-1]+c.words[0])
			}
		}
		for _, w := range joined {
			span := []token{{raw: w, low: w, stem: w}}
			got, want := ix.schemaCands(span), allTablesCands(ix, span)
			if !sameCands(got, want) {
				t.Fatalf("%q: lookup gave %v, every table %v", w, got, want)
			}
			if len(want) > 0 {
				named++
			}
		}
	}
	if named < 40 {
		t.Fatalf("only %d words run together name something", named)
	}
	name := scaledb.WideName(7)
	toks := tokenize(name)
	head := toks[len(toks)-1].stem
	var tables []*tableInfo
	for _, h := range ix.lookupHits(head) {
		tables = append(tables, ix.s.tables[h.t])
	}
	if len(tables) == 0 || len(tables) >= len(ix.s.tables)/2 {
		t.Fatalf("%q: %d of %d tables to score", head, len(tables), len(ix.s.tables))
	}
	for _, tb := range tables {
		if !holdsMatch(tb, head) {
			t.Fatalf("%q: table %s scored, but no word of it matches", head, tb.name)
		}
	}
	for _, tb := range ix.s.tables {
		if holdsMatch(tb, head) && !slices.Contains(tables, tb) {
			t.Fatalf("%q: table %s holds a matching word but is not scored", head, tb.name)
		}
	}
	// A word only columns hold: the columns that hold it are scored,
	// not the others of their tables.
	region := stem("region")
	hits := ix.lookupHits(region)
	if len(hits) == 0 {
		t.Fatalf("%q names no column", region)
	}
	for _, h := range hits {
		tb := ix.s.tables[h.t]
		if h.all {
			t.Fatalf("%q: every column of %s scored", region, tb.name)
		}
		for ci, c := range tb.cols {
			if holds, listed := colMatch(c, region), slices.Contains(h.cols, int32(ci)); holds != listed {
				t.Fatalf("%q: column %s holds it %v, scored %v", region, c, holds, listed)
			}
		}
	}
	if got := ix.lookupHits("zzyzx"); len(got) != 0 {
		t.Fatalf("a word no name holds: %d tables to score", len(got))
	}
	// And the question is still answered from the right table.
	res := ix.plan("how many rows are in " + name)
	if res.refusal != "" || !strings.Contains(res.sql, name) {
		t.Fatalf("plan: %q %q", res.sql, res.refusal)
	}
}

// holdsMatch: a word of tb's name, or of a column's name or comment,
// matches stem.
func holdsMatch(tb *tableInfo, stem string) bool {
	match := func(ws []string) bool {
		for _, w := range ws {
			if wordMatch(stem, w) > 0 {
				return true
			}
		}
		return false
	}
	if match(tb.words) {
		return true
	}
	for _, c := range tb.cols {
		if colMatch(c, stem) {
			return true
		}
	}
	return false
}

// colMatch: a word of c's name or comment matches stem.
func colMatch(c *colInfo, stem string) bool {
	for _, ws := range [][]string{c.words, c.comment} {
		for _, w := range ws {
			if wordMatch(stem, w) > 0 {
				return true
			}
		}
	}
	return false
}
