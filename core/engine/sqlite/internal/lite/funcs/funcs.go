// Package funcs replaces, on each connection, the SQLite built-in functions
// whose single call can run for much longer than a deadline.
//
// SQLite checks for an interrupt only between two steps of its virtual
// machine, so a statement is stuck inside one slow function call until it
// returns: instr and replace on a 40 MB string with a 40 KB needle ran 41
// and 49 s; trim with a 1M-character set ran for hours; LIKE and GLOB with
// a long pattern, unhex with a long set of characters to skip, json_patch
// of two big objects and JSON functions given many paths into a big
// document behave alike. Here they are redefined (same names and argument
// counts, deterministic and innocuous like the built-ins, so views and
// generated columns keep using them with trusted_schema off):
//
//   - instr and replace search in linear time (two-way string matching);
//   - trim, ltrim and rtrim with a set of characters, LIKE, GLOB and
//     unhex with a set of characters to skip follow SQLite's own
//     algorithms (so results are the same, byte for byte) with fast paths
//     for the common cases, and poll the connection's interrupt flag, so
//     they end at the deadline like any other statement;
//   - json_patch and the JSON functions given several paths are handed to
//     SQLite's own implementation on a private in-memory connection when
//     the work they imply is bounded, and fail with SQLITE_TOOBIG when it
//     is not.
//
// A differential test compares every function with SQLite's built-in on
// thousands of inputs, and fuzz tests keep doing so.
package funcs

import "github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"

const pure = lite.FuncDeterministic | lite.FuncInnocuous

// overrides lists every replaced (name, argument count).
var overrides = []struct {
	name  string
	nArg  int
	flags int
	id    lite.FuncID
}{
	{"instr", 2, pure, instrID},
	{"replace", 3, pure, replaceID},
	{"trim", 2, pure, trimID},
	{"ltrim", 2, pure, ltrimID},
	{"rtrim", 2, pure, rtrimID},
	{"like", 2, pure, likeID},
	{"like", 3, pure, likeID},
	{"glob", 2, pure, globID},
	{"unhex", 2, pure, unhexID},
}

// Register redefines the functions on c. Call it before c runs any SQL.
func Register(c *lite.Conn) error {
	for _, o := range overrides {
		if err := c.CreateFunction(o.name, o.nArg, o.flags, o.id); err != nil {
			return err
		}
	}
	// Keep SQLite's LIKE and GLOB prefix optimisation (an index range for
	// x LIKE 'abc%'); without it, such queries scan the whole table.
	c.MarkLike("like", 2, '%', '_', 0, false)
	c.MarkLike("like", 3, '%', '_', 0, false)
	c.MarkLike("glob", 2, '*', '?', '[', true)
	for _, j := range jsonOverrides() {
		if err := c.CreateFunction(j.name, j.nArg, j.flags, j.id); err != nil {
			return err
		}
	}
	// A sort by a NOCASE column is one step of SQLite's machine.
	return c.RedefineNoCase()
}
