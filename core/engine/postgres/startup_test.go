package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// A server that does not know a startup parameter refuses the connection
// naming it; RefusedSetting recognises that refusal for that name only, so
// that connect leaves jit out on servers without it and nothing else.
func TestRefusedStartupSetting(t *testing.T) {
	cfg, err := pgconn.ParseConfig(servers.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["tablewise_no_such"] = "off"
	c, err := pgconn.ConnectConfig(context.Background(), cfg)
	if err == nil {
		c.Close(context.Background())
		t.Fatal("the server took an unknown startup parameter")
	}
	if !postgres.RefusedSetting(err, "tablewise_no_such") {
		t.Errorf("refusedSetting(%v, tablewise_no_such) = false, want true", err)
	}
	if postgres.RefusedSetting(err, "jit") {
		t.Errorf("refusedSetting(%v, jit) = true, want false", err)
	}
}
