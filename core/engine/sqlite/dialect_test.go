package sqlite_test

import (
	"testing"

	"github.com/tablewise/tablewise/core/engine/sqlite"
)

func TestQuoteIdent(t *testing.T) {
	for in, want := range map[string]string{"plain": "plain", "Order Details": `"Order Details"`, "order": `"order"`, `we"ird`: `"we""ird"`, "Match": `"Match"`, "x1": "x1", "1x": `"1x"`} {
		if got := (sqlite.Dialect{}).QuoteIdentIfNeeded(in); got != want {
			t.Errorf("QuoteIdentIfNeeded(%q) = %s, want %s", in, got, want)
		}
	}
	if got := (sqlite.Dialect{}).QuoteIdent("plain"); got != `"plain"` {
		t.Errorf("QuoteIdent(plain) = %s", got)
	}
}
