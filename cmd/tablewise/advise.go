package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/tablewise/tablewise/core/advise"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
)

func runExplain(ctx context.Context, args []string, s *streams) error {
	fs, rf := newReportFlags("explain")
	sqlFlag := fs.String("sql", "", "the statement (or give it as the argument; - reads stdin)")
	analyze := fs.Bool("analyze", false, "run the statement once, read-only and under --timeout, to report what each step actually did (rows, time)")
	timeout := fs.Duration("timeout", query.DefaultTimeout, "stop after this long, opening the database included (with --analyze the statement runs under it)")
	pos, err := rf.parse(fs, args)
	if err != nil {
		return err
	}
	sql, err := sqlText(*sqlFlag, pos, s)
	if err != nil {
		return err
	}
	if strings.TrimSpace(sql) == "" {
		return usagef("explain: give the statement to explain, e.g. tablewise explain \"SELECT * FROM orders WHERE status = 'shipped'\"")
	}
	if *timeout <= 0 {
		return usagef("explain: --timeout must be more than 0 (the statement runs under it with --analyze)")
	}
	d, opt, err := s.openWithin(ctx, rf.dbPath, *timeout)
	if err != nil {
		return err
	}
	defer d.Close()
	// The plan and its notes (which read the catalog) come within what is
	// left of the deadline too.
	ectx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	explain := d.Explain
	if *analyze {
		explain = func(ctx context.Context, sql string) (*engine.Plan, error) {
			return d.ExplainAnalyze(ctx, sql, opt.Timeout)
		}
	}
	p, err := explain(ectx, sql)
	if err != nil {
		return overdue(ctx, err, *timeout)
	}
	return rf.write(s, p)
}

func runAdvise(ctx context.Context, args []string, s *streams) error {
	fs, rf := newReportFlags("advise")
	sqlFlag := fs.String("sql", "", "the statement to find indexes for (or give it as the argument; - reads stdin)")
	workload := fs.String("workload", "", "a file of statements, each ending with ; at the end of a line")
	pos, err := rf.parse(fs, args)
	if err != nil {
		return err
	}
	var stmts []string
	switch {
	case *workload != "" && (*sqlFlag != "" || len(pos) > 0):
		return usagef("advise: give --sql or --workload, not both")
	case *workload != "":
		b, err := os.ReadFile(*workload)
		if err != nil {
			return usagef("advise: --workload %s: %v", *workload, err)
		}
		stmts = splitStatements(string(b))
		if len(stmts) == 0 {
			return usagef("advise: --workload %s holds no statement", *workload)
		}
	default:
		sql, err := sqlText(*sqlFlag, pos, s)
		if err != nil {
			return err
		}
		if strings.TrimSpace(sql) == "" {
			return usagef("advise: give --sql SQL or --workload FILE, e.g. tablewise advise --sql \"SELECT * FROM orders WHERE employee_id = 3\"")
		}
		stmts = []string{sql}
	}
	d, err := s.openDB(ctx, rf.dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	var all []*advise.Advice
	for _, q := range stmts {
		a, err := advise.Advise(ctx, d, q)
		if err != nil {
			if len(stmts) == 1 {
				return err
			}
			all = append(all, &advise.Advice{SQL: q, Suggestions: []advise.Suggestion{}, Notes: []string{"not advised: " + err.Error()}})
			continue
		}
		all = append(all, a)
	}
	if rf.format == "json" {
		if len(all) == 1 {
			return writeJSON(s, all[0])
		}
		return writeJSON(s, all)
	}
	w := &strings.Builder{}
	for i, a := range all {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if len(all) > 1 {
			fmt.Fprintf(w, "── %s\n", format.ClipRunes(format.PrintableLine(a.SQL), 100))
		}
		w.WriteString(a.Text())
	}
	_, err = fmt.Fprint(s.out, format.Printable(w.String()))
	return err
}

// splitStatements splits a workload file on semicolons that end a line;
// "--" comment lines alone are dropped.
func splitStatements(text string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if q := strings.TrimSpace(b.String()); q != "" && !onlyComments(q) {
			out = append(out, q)
		}
		b.Reset()
	}
	for _, line := range strings.Split(text, "\n") {
		b.WriteString(line)
		b.WriteByte('\n')
		if strings.HasSuffix(strings.TrimSpace(line), ";") {
			flush()
		}
	}
	flush()
	return out
}

func onlyComments(q string) bool {
	for _, l := range strings.Split(q, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "--") {
			return false
		}
	}
	return true
}
