package sqlite

import (
	"context"
	"fmt"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
	"github.com/tablewise/tablewise/core/format"
)

// health is what doctor reports about one pooled connection.
type health struct {
	ReadOnly          bool
	Defensive         bool
	TrustedSchema     bool
	AttachLimit       int
	HeapLimit         int64
	HeapLimitEnforced bool
	// Files says how the files beside the database are read (none is ever
	// created or written).
	Files string
}

// health inspects a pooled connection's hardening.
func (d *Engine) health(ctx context.Context) (health, error) {
	h := health{HeapLimit: lite.HeapLimit(), HeapLimitEnforced: lite.HeapLimitEnforced()}
	err := d.withConn(ctx, func(c *conn) error {
		h.Files = c.plan.describe()
		h.ReadOnly = c.ReadOnly()
		h.Defensive = c.DBConfigGet(lite.ConfigDefensive)
		h.TrustedSchema = c.DBConfigGet(lite.ConfigTrustedSchema)
		h.AttachLimit = c.Limit(lite.LimitAttached, -1)
		return nil
	})
	return h, err
}

// Version is the linked SQLite library's version.
func Version() string { return lite.Version() }

// refusedProbes are statements doctor expects the guard to refuse: a
// write, a no-op DROP the authorizer never sees, a write hidden after a
// read, ATTACH, a pragma that would undo query_only, and VACUUM.
var refusedProbes = []string{
	"DELETE FROM sqlite_schema",
	"DROP VIEW IF EXISTS tablewise_doctor_missing",
	"SELECT 1; DELETE FROM sqlite_schema",
	"ATTACH 'doctor.db' AS x",
	"PRAGMA query_only = 0",
	"VACUUM",
}

// Info reports the library's version and a pooled connection's hardening.
func (d *Engine) Info(ctx context.Context) (*engine.Info, error) {
	h, err := d.health(ctx)
	if err != nil {
		return nil, err
	}
	check := func(label string, ok bool, problem string) engine.Check {
		return engine.Check{Label: label, OK: ok, Problem: problem}
	}
	return &engine.Info{
		Version: "SQLite " + Version() + " (modernc.org/sqlite, pure Go)",
		Checks: []engine.Check{
			check("opened read-only (mode=ro, SQLITE_OPEN_READONLY)", h.ReadOnly, "connection is writable"),
			check("defensive mode on, trusted_schema off", h.Defensive && !h.TrustedSchema, "hardening not in effect"),
			check(fmt.Sprintf("SQLite heap limit enforced (%s)", format.Bytes(h.HeapLimit)), h.HeapLimitEnforced && h.HeapLimit > 0, "memory statistics were off when SQLite started"),
			check("ATTACH disabled (limit 0)", h.AttachLimit == 0, fmt.Sprintf("attach limit is %d", h.AttachLimit)),
			check("files beside the database: "+h.Files, true, ""),
		},
		Refused: refusedProbes,
		Read:    "SELECT count(*) FROM sqlite_schema",
	}, nil
}
