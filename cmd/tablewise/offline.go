package main

import (
	"github.com/tablewise/tablewise/core/db"
)

// offlineAsker is the built-in planner, used when no model is configured.
func offlineAsker(d *db.DB) (asker, string, func(), error) {
	return nil, "", nil, usagef("%s", noModelHelp)
}
