package tools

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/text"
)

// Detail levels for SearchSchema.
const (
	// DetailNames returns table names and matching column names only.
	DetailNames = "names"
	// DetailSummary adds descriptions, row counts, join conditions and the
	// foreign-key neighbours of the top hits.
	DetailSummary = "summary"
	// DetailFull adds each hit's schema card.
	DetailFull = "full"
)

// Limits for SearchSchema.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 50
)

// neighbourHits is how many top hits contribute foreign-key neighbours.
const neighbourHits = 3

// SearchHit is one table that matches a schema search.
type SearchHit struct {
	Table string  `json:"table"`
	Kind  string  `json:"kind"`
	Score float64 `json:"score"`
	// Columns are the table's columns that match, best first.
	Columns     []string `json:"columns"`
	Description string   `json:"description,omitempty"`
	RowCount    int64    `json:"row_count"`
	// Joins are the join conditions of the table's foreign keys, both ways
	// (summary and full detail).
	Joins []string `json:"joins,omitempty"`
	// Card is the table's schema card (full detail).
	Card string `json:"card,omitempty"`
}

// Neighbour is a table joined by foreign key to a top hit but not itself a
// hit.
type Neighbour struct {
	Table string `json:"table"`
	Join  string `json:"join"`
}

// SearchResult is what SearchSchema returns.
type SearchResult struct {
	Query  string      `json:"query"`
	Detail string      `json:"detail"`
	Hits   []SearchHit `json:"hits"`
	// Neighbours are the foreign-key neighbours of the top hits (summary
	// and full detail).
	Neighbours []Neighbour `json:"neighbours,omitempty"`

	dl engine.Dialect // quotes names in Text
}

// SearchSchema ranks tables by how well they match query, with BM25 over
// table names, column names (split at case changes, underscores and
// spaces), comments, CHECK values and sample values. It is the
// token-efficient way into a big schema: ask for names first, then
// describe the tables that matter.
func SearchSchema(ctx context.Context, d *db.DB, q, detail string, limit int) (*SearchResult, error) {
	cat, err := d.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	return Search(d.Dialect(), cat, q, detail, limit)
}

// Search is SearchSchema over a catalog already read; dl quotes names.
func Search(dl engine.Dialect, cat *catalog.Catalog, q, detail string, limit int) (*SearchResult, error) {
	switch detail {
	case "":
		detail = DetailSummary
	case DetailNames, DetailSummary, DetailFull:
	default:
		return nil, fmt.Errorf("unknown detail %q: use names, summary or full", detail)
	}
	switch {
	case limit <= 0:
		limit = DefaultSearchLimit
	case limit > MaxSearchLimit:
		limit = MaxSearchLimit
	}
	out := &SearchResult{Query: q, Detail: detail, Hits: []SearchHit{}, dl: dl}
	terms := queryTerms(q)
	if len(terms) == 0 {
		return out, nil
	}
	ix := buildIndex(cat)
	type scored struct {
		doc   *tableDoc
		score float64
		cols  []string
	}
	var hits []scored
	for _, doc := range ix.docs {
		s := ix.score(doc, terms)
		if s <= 0 {
			continue
		}
		hits = append(hits, scored{doc, s, doc.matchingColumns(ix, terms)})
	}
	slices.SortStableFunc(hits, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(strings.ToLower(a.doc.t.Name), strings.ToLower(b.doc.t.Name)))
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	inHits := map[*catalog.Table]bool{}
	for _, h := range hits {
		inHits[h.doc.t] = true
	}
	for i, h := range hits {
		t := h.doc.t
		hit := SearchHit{Table: t.Name, Kind: t.Kind, Score: math.Round(h.score*1000) / 1000, Columns: h.cols, RowCount: t.RowCount}
		if hit.Columns == nil {
			hit.Columns = []string{}
		}
		if detail != DetailNames {
			hit.Description = Describe(dl, cat, t)
			for _, fk := range joinsOf(cat, t) {
				hit.Joins = append(hit.Joins, fk.Join(dl))
				if i >= neighbourHits {
					continue
				}
				other := fk.RefTable
				if strings.EqualFold(other, t.Name) {
					other = fk.Table
				}
				if ot := cat.Table(other); ot != nil && !inHits[ot] && !slices.ContainsFunc(out.Neighbours, func(n Neighbour) bool { return n.Table == ot.Name }) {
					out.Neighbours = append(out.Neighbours, Neighbour{Table: ot.Name, Join: fk.Join(dl)})
				}
			}
		}
		if detail == DetailFull {
			hit.Card = SchemaCard(dl, t)
		}
		out.Hits = append(out.Hits, hit)
	}
	return out, nil
}

// joinsOf lists t's foreign keys, outgoing then incoming.
func joinsOf(cat *catalog.Catalog, t *catalog.Table) []ForeignKeyInfo {
	var out []ForeignKeyInfo
	for _, fk := range t.ForeignKeys {
		out = append(out, fkInfo(cat, t.Name, fk))
	}
	for _, r := range cat.ReferencedBy(t.Name) {
		if strings.EqualFold(r.Table, t.Name) {
			continue // a self-reference is listed once, as outgoing
		}
		out = append(out, fkInfo(cat, r.Table, r.ForeignKey))
	}
	return out
}

// Text renders the hits compactly; names detail is one line per table.
func (r *SearchResult) Text() string {
	ident := r.dl.QuoteIdentIfNeeded
	var b strings.Builder
	if len(r.Hits) == 0 {
		fmt.Fprintf(&b, "no table matches %q; %s shows every table\n", r.Query, NameListTables)
		return b.String()
	}
	fmt.Fprintf(&b, "%s matching %q, best first:\n", format.Plural(int64(len(r.Hits)), "table"), r.Query)
	for _, h := range r.Hits {
		switch r.Detail {
		case DetailNames:
			b.WriteString(ident(h.Table))
			if len(h.Columns) > 0 {
				b.WriteString(" (" + joinIdents(r.dl, h.Columns) + ")")
			}
			b.WriteByte('\n')
			continue
		case DetailSummary:
			fmt.Fprintf(&b, "%s %s, %s — %s\n", h.Kind, ident(h.Table), format.RowCount(h.RowCount, false), h.Description)
		default:
			b.WriteString(h.Card + "\n")
		}
		if len(h.Columns) > 0 {
			b.WriteString("  matching columns: " + joinIdents(r.dl, h.Columns) + "\n")
		}
		for _, j := range h.Joins {
			b.WriteString("  join: " + j + "\n")
		}
	}
	if len(r.Neighbours) > 0 {
		b.WriteString("related by foreign key:\n")
		for _, n := range r.Neighbours {
			fmt.Fprintf(&b, "  %s (%s)\n", ident(n.Table), n.Join)
		}
	}
	return b.String()
}

// ---- the index ----

// Field weights: a match in a table's name counts most.
const (
	weightTable   = 3
	weightColumn  = 2
	weightComment = 1
	weightValue   = 1
	// prefixWeight discounts a term that only starts a word: "cust" in
	// "customer".
	prefixWeight = 0.6
	bm25K1       = 1.2
	bm25B        = 0.75
)

type index struct {
	docs   []*tableDoc
	df     map[string]int // documents holding each term
	avgLen float64
	vocab  []string
}

type tableDoc struct {
	t    *catalog.Table
	tf   map[string]float64 // weighted term frequency
	len  float64
	cols []colDoc
}

type colDoc struct {
	name  string
	terms map[string]float64 // term → best field weight
}

func buildIndex(cat *catalog.Catalog) *index {
	ix := &index{df: map[string]int{}}
	var total float64
	for _, t := range cat.Tables {
		doc := &tableDoc{t: t, tf: map[string]float64{}}
		add := func(text string, w float64, col *colDoc) {
			for _, term := range tokenize(text) {
				doc.tf[term] += w
				doc.len += w
				if col != nil && col.terms[term] < w {
					col.terms[term] = w
				}
			}
		}
		add(t.Name, weightTable, nil)
		add(t.Comment, weightComment, nil)
		allowed := map[string][]string{}
		for _, ch := range t.Checks {
			allowed[strings.ToLower(ch.Column)] = ch.Values
		}
		for i, c := range t.Columns {
			cd := colDoc{name: c.Name, terms: map[string]float64{}}
			add(c.Name, weightColumn, &cd)
			add(c.Comment, weightComment, &cd)
			for _, v := range allowed[strings.ToLower(c.Name)] {
				add(v, weightValue, &cd)
			}
			for _, r := range t.Sample {
				if i < len(r) {
					if s, ok := r[i].(string); ok && len(s) <= 64 {
						add(s, weightValue, &cd)
					}
				}
			}
			doc.cols = append(doc.cols, cd)
		}
		for term := range doc.tf {
			ix.df[term]++
		}
		total += doc.len
		ix.docs = append(ix.docs, doc)
	}
	if len(ix.docs) > 0 {
		ix.avgLen = total / float64(len(ix.docs))
	}
	for term := range ix.df {
		ix.vocab = append(ix.vocab, term)
	}
	slices.Sort(ix.vocab)
	return ix
}

// expansion is a vocabulary term a query term stands for, with a weight.
type expansion struct {
	term string
	w    float64
}

// expand maps a query term to the vocabulary: itself, and words it starts
// (for terms of three letters or more).
func (ix *index) expand(q string) []expansion {
	var out []expansion
	if ix.df[q] > 0 {
		out = append(out, expansion{q, 1})
	}
	if len([]rune(q)) >= 3 {
		i, _ := slices.BinarySearch(ix.vocab, q)
		for ; i < len(ix.vocab) && strings.HasPrefix(ix.vocab[i], q); i++ {
			if ix.vocab[i] != q {
				out = append(out, expansion{ix.vocab[i], prefixWeight})
			}
		}
	}
	return out
}

func (ix *index) idf(term string) float64 {
	n, df := float64(len(ix.docs)), float64(ix.df[term])
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// score is the BM25 score of doc; each query term counts through its best
// expansion.
func (ix *index) score(doc *tableDoc, terms []string) float64 {
	var s float64
	for _, q := range terms {
		best := 0.0
		for _, e := range ix.expand(q) {
			tf := doc.tf[e.term]
			if tf == 0 {
				continue
			}
			norm := tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*doc.len/ix.avgLen))
			best = max(best, e.w*ix.idf(e.term)*norm)
		}
		s += best
	}
	return s
}

// matchingColumns lists the columns that hold a query term, best first.
func (doc *tableDoc) matchingColumns(ix *index, terms []string) []string {
	type cs struct {
		name  string
		score float64
		pos   int
	}
	var found []cs
	for i, c := range doc.cols {
		var s float64
		for _, q := range terms {
			best := 0.0
			for _, e := range ix.expand(q) {
				if w := c.terms[e.term]; w > 0 {
					best = max(best, w*e.w*ix.idf(e.term))
				}
			}
			s += best
		}
		if s > 0 {
			found = append(found, cs{c.name, s, i})
		}
	}
	slices.SortStableFunc(found, func(a, b cs) int {
		return cmp.Or(cmp.Compare(b.score, a.score), a.pos-b.pos)
	})
	// Keep the columns that match clearly: more than half as well as the
	// best one (a name match beats a mere mention in a comment).
	var out []string
	for _, f := range found {
		if f.score > found[0].score/2 {
			out = append(out, f.name)
		}
	}
	return out
}

// stopwords are dropped from queries: they say nothing about a schema.
var stopwords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "in": true, "on": true, "at": true, "by": true, "for": true,
	"to": true, "and": true, "or": true, "with": true, "per": true, "from": true, "is": true, "are": true,
	"was": true, "were": true, "be": true, "what": true, "which": true, "who": true, "whom": true, "how": true,
	"many": true, "much": true, "me": true, "show": true, "list": true, "give": true, "get": true, "find": true,
	"all": true, "each": true, "every": true, "do": true, "doe": true, "did": true, "has": true, "have": true,
	"that": true, "this": true, "there": true, "their": true, "its": true, "it": true, "than": true,
	"top": true, "most": true, "number": true, "count": true, "table": true, "column": true, "where": true,
}

func queryTerms(q string) []string {
	var out []string
	for _, t := range tokenize(q) {
		if !stopwords[t] && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// tokenize splits text into stemmed words the way the offline planner
// does (text.Words, text.Stem): at every character that is not a letter
// or digit, at lower-to-upper case changes (orderDate), before the last
// capital of an acronym (HTTPServer) and between letters and digits.
func tokenize(s string) []string {
	return text.Stems(text.Words(s))
}
