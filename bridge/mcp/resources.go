package mcp

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
	textpkg "github.com/tablewise/tablewise/core/text"
	"github.com/tablewise/tablewise/core/tools"
)

// Resource URIs.
const (
	uriSchema          = "tablewise://schema"
	uriTableTemplate   = "tablewise://table/{name}"
	uriSampleQuestions = "tablewise://sample-questions"
	// With several databases, each also has its own schema and tables.
	uriDBSchemaTemplate = "tablewise://{database}/schema"
	uriDBTableTemplate  = "tablewise://{database}/table/{name}"
)

func (s *Server) addResources() {
	plain := func(uri, name, title, desc string, read server.ResourceHandlerFunc) {
		s.mcp.AddResource(mcpgo.NewResource(uri, name, mcpgo.WithResourceTitle(title), mcpgo.WithResourceDescription(desc), mcpgo.WithMIMEType("text/plain")), read)
	}
	template := func(uri, name, title, desc string, read server.ResourceTemplateHandlerFunc) {
		s.mcp.AddResourceTemplate(mcpgo.NewResourceTemplate(uri, name, mcpgo.WithTemplateTitle(title), mcpgo.WithTemplateDescription(desc), mcpgo.WithTemplateMIMEType("text/plain")), read)
	}
	plain(uriSchema, "schema", "Database schema",
		"Every table and view as a compact card: columns with types and keys, row counts, allowed and example values, column comments.", s.readSchema)
	template(uriTableTemplate, "table", "One table", "One table's or view's card, with the tables that reference it.", s.readTable)
	plain(uriSampleQuestions, "sample-questions", "Sample questions",
		"Questions this database can answer, derived from its schema, each with SQL that runs.", s.readSampleQuestions)
	if s.dbs.multi() {
		template(uriDBSchemaTemplate, "database-schema", "One database's schema", "The schema of one database, by label.", s.readDBSchema)
		template(uriDBTableTemplate, "database-table", "One table of one database", "One table's card in the database with the given label.", s.readTable)
	}
}

// textContents is a text/plain resource; its text, which names tables and
// columns and quotes values, is made safe to show (format.Printable).
func textContents(uri, text string) []mcpgo.ResourceContents {
	return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: format.Printable(text)}}
}

// schemaText is the whole schema: one database's cards, or every
// database's under a heading.
func (s *Server) schemaText(ctx context.Context) (string, error) {
	var b strings.Builder
	for _, d := range s.dbs.list {
		cat, err := d.Catalog(ctx)
		if err != nil {
			return "", err
		}
		if s.dbs.multi() {
			fmt.Fprintf(&b, "# database %s\n", d.Label())
		}
		b.WriteString(schemaCards(ctx, d, cat))
	}
	return b.String(), nil
}

// maxSchemaResourceBytes bounds one database's schema resource: past it,
// the tables are summarised (list_tables pages them, table resources
// give one card each).
const maxSchemaResourceBytes = 20_000

// schemaCards is d's schema as cards, or a summary of its tables when the
// cards pass maxSchemaResourceBytes.
func schemaCards(ctx context.Context, d *db.DB, cat *catalog.Catalog) string {
	cards := tools.SchemaText(d.Dialect(), cat)
	if len(cards) <= maxSchemaResourceBytes {
		return cards
	}
	sum, err := tools.SummarizeTables(ctx, d, maxSchemaResourceBytes-300)
	if err != nil {
		return cards[:maxSchemaResourceBytes]
	}
	return fmt.Sprintf("The schema's cards take %s, more than one resource should: here is a summary. "+
		"tablewise://table/{name} is one table's card; the list_tables tool pages every table (pattern, limit, offset).\n", format.Bytes(int64(len(cards)))) + sum
}

func (s *Server) readSchema(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
	text, err := s.schemaText(ctx)
	if err != nil {
		return nil, err
	}
	return textContents(req.Params.URI, text), nil
}

func (s *Server) readDBSchema(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
	d, err := s.dbs.Lookup(templateArg(req, "database"))
	if err != nil {
		return nil, err
	}
	cat, err := d.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	return textContents(req.Params.URI, schemaCards(ctx, d, cat)), nil
}

// templateArg is a variable of the URI template a request matched,
// percent-decoded.
func templateArg(req mcpgo.ReadResourceRequest, name string) string {
	var v string
	switch x := req.Params.Arguments[name].(type) {
	case string:
		v = x
	case []string:
		if len(x) > 0 {
			v = x[0]
		}
	}
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

// readTable serves tablewise://table/{name} (the table in whichever
// database has it) and tablewise://{database}/table/{name}.
func (s *Server) readTable(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
	name := templateArg(req, "name")
	label := templateArg(req, "database")
	var candidates []*db.DB
	if label != "" || !s.dbs.multi() {
		d, err := s.dbs.Lookup(label)
		if err != nil {
			return nil, err
		}
		candidates = []*db.DB{d}
	} else {
		candidates = s.dbs.list
	}
	var found []string
	var text string
	var notFound error
	for _, d := range candidates {
		cat, err := d.Catalog(ctx)
		if err != nil {
			return nil, err
		}
		t := cat.Table(name)
		if t == nil {
			_, notFound = tools.DescribeTable(ctx, d, name) // for its nearest names
			continue
		}
		found = append(found, d.Label())
		text = tableCard(d.Dialect(), cat, t)
	}
	switch {
	case len(found) == 0:
		return nil, notFound
	case len(found) > 1:
		return nil, fmt.Errorf("table %s is in several databases (%s): read tablewise://DATABASE/table/%s", name, strings.Join(found, ", "), url.PathEscape(name))
	}
	return textContents(req.Params.URI, text), nil
}

// tableCard is a table's schema card followed by the joins that lead to it.
func tableCard(dl engine.Dialect, cat *catalog.Catalog, t *catalog.Table) string {
	var b strings.Builder
	b.WriteString(tools.SchemaCard(dl, t))
	b.WriteByte('\n')
	for _, r := range cat.ReferencedBy(t.Name) {
		fk := tools.ForeignKeyInfo{Table: r.Table, Columns: r.Columns, RefTable: t.Name, RefColumns: r.RefColumns}
		if len(fk.RefColumns) == 0 {
			fk.RefColumns = t.PrimaryKey
		}
		b.WriteString("  ← " + fk.Join(dl) + "\n")
	}
	if b.Len() > maxSchemaResourceBytes {
		// A table of thousands of columns, or referenced by thousands.
		return format.ClipBytes(b.String(), maxSchemaResourceBytes-200) +
			fmt.Sprintf("\n(clipped at %s of %s: the describe_table tool shows the columns a pattern picks, columns=*date*)\n",
				format.Bytes(maxSchemaResourceBytes-200), format.Bytes(int64(b.Len())))
	}
	return b.String()
}

// ---- sample questions ----

// sampleQuestion is a question the schema suggests, with SQL that answers
// it (checked to run).
type sampleQuestion struct {
	Question string
	SQL      string
}

// maxSampleQuestions bounds the list.
const maxSampleQuestions = 8

// sampleQuestionTimeout bounds checking that one question's SQL runs (a
// second of a normal build's work); the checks of the whole list stop
// after sampleQuestionChecks of them, however many questions the schema
// suggests: a resource read has no call deadline around it.
var sampleQuestionTimeout = time.Second * engine.RaceSlowdown

const sampleQuestionChecks = 5

func (s *Server) readSampleQuestions(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
	var b strings.Builder
	for _, d := range s.dbs.list {
		qs, err := s.sampleQuestions(ctx, d)
		if err != nil {
			return nil, err
		}
		if s.dbs.multi() {
			fmt.Fprintf(&b, "# database %s\n", d.Label())
		}
		for _, q := range qs {
			fmt.Fprintf(&b, "- %s\n  SQL: %s\n", q.Question, q.SQL)
		}
	}
	return textContents(req.Params.URI, b.String()), nil
}

// sampleQuestions derives questions from d's schema once and caches them.
func (s *Server) sampleQuestions(ctx context.Context, d *db.DB) ([]sampleQuestion, error) {
	s.mu.Lock()
	qs, ok := s.sample[d]
	s.mu.Unlock()
	if ok {
		return qs, nil
	}
	cat, err := d.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	checks, cancel := context.WithTimeout(ctx, sampleQuestionChecks*sampleQuestionTimeout)
	defer cancel()
	for _, q := range deriveQuestions(d.Dialect(), cat) {
		if checks.Err() != nil {
			break
		}
		// Keep only questions whose SQL runs, quickly.
		if _, err := query.Collect(checks, d, q.SQL, query.Options{MaxRows: 1, Timeout: sampleQuestionTimeout}); err != nil {
			continue
		}
		qs = append(qs, q)
		if len(qs) == maxSampleQuestions {
			break
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err // the caller gave up: the list is not whole, and not kept
	}
	s.mu.Lock()
	s.sample[d] = qs
	s.mu.Unlock()
	return qs, nil
}

var (
	nameCol    = regexp.MustCompile(`(?i)^(name|title|full_?name|company|company_?name|label)$|name$`)
	exactName  = regexp.MustCompile(`(?i)^(name|title|full_?name)$`)
	amountCol  = regexp.MustCompile(`(?i)(amount|total|revenue|sales|cost|freight|salary|balance|quantity|qty)`)
	numeric    = regexp.MustCompile(`^-?[0-9.]+$`)
	dateColTyp = regexp.MustCompile(`(?i)(date|time)`)
	isoDate    = regexp.MustCompile(`^\d{4}-\d{2}`)
)

// deriveQuestions proposes questions from the schema's shape: counts per
// category (a CHECK … IN column or a status-like one), the referenced rows
// with the most referencing rows, counts per month of a date column, and
// sums of an amount per category. Bigger tables come first, and each round
// over the tables prefers the kind of question asked least so far, so the
// list stays varied.
func deriveQuestions(dl engine.Dialect, cat *catalog.Catalog) []sampleQuestion {
	tables := slices.Clone(cat.Tables)
	slices.SortStableFunc(tables, func(a, b *catalog.Table) int {
		switch {
		case a.RowCount > b.RowCount:
			return -1
		case a.RowCount < b.RowCount:
			return 1
		}
		return 0
	})
	type cand struct {
		kind int
		q    sampleQuestion
	}
	const (
		kindCount = iota
		kindTop
		kindMonthly
		kindSum
		kinds
	)
	q := dl.QuoteIdentIfNeeded
	var per [][]cand
	for _, t := range tables {
		if t.Kind != "table" || t.RowCount == 0 {
			continue
		}
		noun := textpkg.Plural(human(t.Name))
		var cs []cand
		if c := categoryColumn(t); c != "" {
			cs = append(cs, cand{kindCount, sampleQuestion{
				fmt.Sprintf("How many %s are there for each %s?", noun, human(c)),
				fmt.Sprintf("SELECT %s, count(*) AS n FROM %s GROUP BY %s ORDER BY n DESC", q(c), q(t.Name), q(c))}})
		}
		if ref, col, refCol, label := topReference(cat, t); ref != nil {
			cs = append(cs, cand{kindTop, sampleQuestion{
				fmt.Sprintf("Which 10 %s have the most %s?", textpkg.Plural(human(ref.Name)), noun),
				fmt.Sprintf("SELECT r.%s, count(*) AS n FROM %s AS t JOIN %s AS r ON t.%s = r.%s GROUP BY r.%s ORDER BY n DESC LIMIT 10",
					q(label), q(t.Name), q(ref.Name), q(col), q(refCol), q(refCol))}})
		}
		if c := dateColumn(t); c != "" {
			cs = append(cs, cand{kindMonthly, sampleQuestion{
				fmt.Sprintf("How many %s were there per month (by %s)?", noun, human(c)),
				fmt.Sprintf("SELECT %s AS month, count(*) AS n FROM %s GROUP BY month ORDER BY month", dl.DateBucket(q(c), engine.Month), q(t.Name))}})
		}
		if a, c := amountColumn(t), categoryColumn(t); a != "" && c != "" {
			cs = append(cs, cand{kindSum, sampleQuestion{
				fmt.Sprintf("What is the sum of %s over %s for each %s?", human(a), noun, human(c)),
				fmt.Sprintf("SELECT %s, round(sum(%s), 2) AS total FROM %s GROUP BY %s ORDER BY total DESC", q(c), q(a), q(t.Name), q(c))}})
		}
		if len(cs) > 0 {
			per = append(per, cs)
		}
	}
	var out []sampleQuestion
	var used [kinds]int
	for left := true; left; {
		left = false
		for i, cs := range per {
			if len(cs) == 0 {
				continue
			}
			best := 0
			for j, c := range cs {
				if used[c.kind] < used[cs[best].kind] {
					best = j
				}
			}
			used[cs[best].kind]++
			out = append(out, cs[best].q)
			per[i] = append(cs[:best:best], cs[best+1:]...)
			left = left || len(per[i]) > 0
		}
	}
	return out
}

// topReference picks the foreign key of t whose referenced table has the
// best label column (name or title before first_name…).
func topReference(cat *catalog.Catalog, t *catalog.Table) (ref *catalog.Table, col, refCol, label string) {
	bestRank := 3
	for _, fk := range t.ForeignKeys {
		r := cat.Table(fk.RefTable)
		if r == nil || r == t || len(fk.Columns) != 1 {
			continue
		}
		rc := ""
		if len(fk.RefColumns) == 1 {
			rc = fk.RefColumns[0]
		} else if len(r.PrimaryKey) == 1 {
			rc = r.PrimaryKey[0]
		}
		l, rank := labelColumn(r)
		if rc == "" || l == "" || rank >= bestRank {
			continue
		}
		ref, col, refCol, label, bestRank = r, fk.Columns[0], rc, l, rank
	}
	return ref, col, refCol, label
}

// human turns a name into words: order_items → order items.
func human(name string) string { return strings.ReplaceAll(name, "_", " ") }

// categoryColumn picks a column with a CHECK … IN list or a short
// categorical-looking text value, or "".
func categoryColumn(t *catalog.Table) string {
	allowed := tools.AllowedValues(t)
next:
	for _, c := range tools.CategoryColumns(t) {
		// A 0/1 flag reads badly as "for each discontinued".
		for _, v := range allowed[c] {
			if numeric.MatchString(v) {
				continue next
			}
		}
		return c
	}
	return ""
}

// labelColumn picks the column that names a row and ranks it: 0 for
// name or title, 1 for another …name column, or "" when there is none.
func labelColumn(t *catalog.Table) (string, int) {
	best, rank := "", 3
	for _, c := range t.Columns {
		if c.PK > 0 || !nameCol.MatchString(c.Name) {
			continue
		}
		r := 1
		if exactName.MatchString(c.Name) {
			r = 0
		}
		if r < rank {
			best, rank = c.Name, r
		}
	}
	return best, rank
}

// dateColumn picks a column declared as a date or time whose sampled
// values are ISO text (YYYY-MM…), or "".
func dateColumn(t *catalog.Table) string {
	for i, c := range t.Columns {
		if !dateColTyp.MatchString(c.Type) && !strings.HasSuffix(strings.ToLower(c.Name), "_date") {
			continue
		}
		ok := len(t.Sample) > 0
		for _, r := range t.Sample {
			if i < len(r) {
				if s, isStr := r[i].(string); !isStr || !isoDate.MatchString(s) {
					ok = ok && r[i] == nil
				}
			}
		}
		if ok {
			return c.Name
		}
	}
	return ""
}

// amountColumn picks a REAL or NUMERIC column that looks like an amount.
func amountColumn(t *catalog.Table) string {
	for _, c := range t.Columns {
		ty := strings.ToUpper(c.Type)
		if (strings.Contains(ty, "REAL") || strings.Contains(ty, "NUM") || strings.Contains(ty, "DEC") || strings.Contains(ty, "FLOA") || strings.Contains(ty, "DOUB")) && amountCol.MatchString(c.Name) {
			return c.Name
		}
	}
	return ""
}
