package db

import (
	"context"

	"github.com/tablewise/tablewise/core/internal/lite"
)

// Health is what doctor reports about one pooled connection.
type Health struct {
	ReadOnly          bool
	Defensive         bool
	TrustedSchema     bool
	AttachLimit       int
	HeapLimit         int64
	HeapLimitEnforced bool
}

// Health inspects a pooled connection's hardening.
func (d *DB) Health(ctx context.Context) (Health, error) {
	h := Health{HeapLimit: lite.HeapLimit(), HeapLimitEnforced: lite.HeapLimitEnforced()}
	err := d.Conn(ctx, func(c *lite.Conn) error {
		h.ReadOnly = c.ReadOnly()
		h.Defensive = c.DBConfigGet(lite.ConfigDefensive)
		h.TrustedSchema = c.DBConfigGet(lite.ConfigTrustedSchema)
		h.AttachLimit = c.Limit(lite.LimitAttached, -1)
		return nil
	})
	return h, err
}

// SQLiteVersion is the linked SQLite library's version.
func SQLiteVersion() string { return lite.Version() }
