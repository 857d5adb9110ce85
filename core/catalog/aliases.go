package catalog

import (
	"regexp"
	"strings"
	"sync"
)

// fromItem reads a table named after FROM or JOIN (or a comma in a FROM
// list) with its alias.
var fromItem = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:\bFROM|\bJOIN|,)\s+("(?:[^"]|"")+"|` + "`[^`]+`" + `|\[[^\]]+\]|[\p{L}_][\p{L}\p{N}_$]*)(?:\s*\.\s*("(?:[^"]|"")+"|[\p{L}_][\p{L}\p{N}_$]*))?(?:\s+(?:AS\s+)?("(?:[^"]|"")+"|[\p{L}_][\p{L}\p{N}_$]*))?`)
})

// notAlias are keywords that may follow a table name.
var notAlias = map[string]bool{"where": true, "join": true, "inner": true, "left": true, "right": true, "full": true, "cross": true, "natural": true,
	"on": true, "using": true, "group": true, "order": true, "limit": true, "union": true, "except": true, "intersect": true, "window": true, "having": true, "outer": true, "indexed": true, "not": true}

// Aliases maps every name a query plan may give a table of sql — its
// name, or the alias sql gives it after FROM or JOIN ("orders o") — to the
// table, with lower-cased keys. It reads the text, not a parse: an alias
// it misses is simply not mapped.
func (c *Catalog) Aliases(sql string) map[string]*Table {
	out := map[string]*Table{}
	for _, t := range c.Tables {
		out[strings.ToLower(t.Name)] = t
	}
	for _, m := range fromItem().FindAllStringSubmatch(sql, -1) {
		name := Unquote(m[1])
		if m[2] != "" { // schema.table
			name = Unquote(m[2])
		}
		t := c.Table(name)
		if t == nil || m[3] == "" || notAlias[strings.ToLower(m[3])] {
			continue
		}
		out[strings.ToLower(Unquote(m[3]))] = t
	}
	return out
}
