package db

// Rereads is how many times the catalog or the names were read from the
// engine.
func (d *DB) Rereads() int64 { return d.rereads.Load() }

// SchemaVersion is the schema version the cached catalog was read at.
func (d *DB) SchemaVersion() string {
	if c := d.catalog.Load(); c != nil {
		return c.version
	}
	return ""
}
