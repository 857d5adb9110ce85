package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestXPathIsRefused: libxml2 evaluates an XPath expression (and libxslt a
// stylesheet) without ever letting the server check for a cancel or a
// statement_timeout, and an expression with nested predicates over
// following:: is cubic in the document's size: under a 2 s deadline such
// a statement went on running on the server for some 20 s after
// tablewise gave up (neither a cancel nor pg_terminate_backend stops
// it). Every way to evaluate XPath is refused by name, also in a view;
// reading and writing XML (xmlparse, xmlserialize) is not.
func TestXPathIsRefused(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	const cubic = `count(//a[count(following::a[count(following::a) > 0]) > 0])`
	doc := `('<r>' || repeat('<a/>', 1400) || '</r>')::xml`
	exec(t, a, `CREATE VIEW xpath_view AS SELECT xpath('`+cubic+`', `+doc+`) AS xpath_marker`)
	exec(t, a, `CREATE VIEW xmltable_view AS SELECT n AS xpath_marker FROM XMLTABLE('//a' PASSING (`+doc+`) COLUMNS n int PATH '1')`)
	statements := map[string]string{
		`SELECT xpath('` + cubic + `', ` + doc + `) AS xpath_marker`:                                        "xpath",
		`SELECT xpath_exists('//a', ` + doc + `) AS xpath_marker`:                                           "xpath_exists",
		`SELECT XMLEXISTS('//a' PASSING (` + doc + `)) AS xpath_marker`:                                     "xmlexists",
		`SELECT count(*) AS xpath_marker FROM XMLTABLE('//a' PASSING (` + doc + `) COLUMNS n int PATH '1')`: "xmltable",
		`SELECT * FROM xpath_view`: "xpath",
	}
	if _, err := a.Exec(context.Background(), "CREATE EXTENSION IF NOT EXISTS xml2"); err != nil {
		t.Logf("xml2 left out: %v", err)
	} else {
		statements[`SELECT xpath_number(`+doc+`::text, '`+cubic+`') AS xpath_marker`] = "xpath_number"
		statements[`SELECT xslt_process('<r/>', '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"/>') AS xpath_marker`] = "xslt_process"
	}
	e := open(t, url)
	for sql, want := range statements {
		began := time.Now()
		_, err := query.Collect(context.Background(), e, sql, query.Options{MaxRows: 5, Timeout: 2 * time.Second})
		var rej *guard.Rejection
		if !errors.As(err, &rej) || !strings.Contains(rej.What+" "+rej.Reason, want) || rej.Hint == "" {
			t.Errorf("%s: %v after %v, want a refusal naming %s with a hint", sql, err, time.Since(began).Round(time.Millisecond), want)
		}
		if n := running(t, a, "xpath_marker"); n > 0 {
			t.Errorf("%s: %d statement(s) still running on the server", sql, n)
			for range 120 {
				if running(t, a, "xpath_marker") == 0 {
					break
				}
				time.Sleep(500 * time.Millisecond)
			}
		}
	}
	// Reading XML is not evaluating XPath.
	res, err := query.Collect(context.Background(), e, `SELECT xmlserialize(document xmlparse(document '<r><a/></r>') AS text)`, query.Options{MaxRows: 5})
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != "<r><a/></r>" {
		t.Errorf("xmlserialize(xmlparse(…)): %v, %v; want <r><a/></r>", err, res)
	}
}
