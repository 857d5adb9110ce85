package postgres_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// benignVolatile are the server's VOLATILE functions that the guard lets
// a statement call, each reviewed: VOLATILE is how a function says it may
// act beyond returning a value, and the ones that do (a write, a file, a
// lock, another session, state left in the session) are denied by name.
var benignVolatile = map[string]string{
	"clock_timestamp": "time", "timeofday": "time", "random": "random numbers", "gen_random_uuid": "random numbers",
	"pg_sleep": "waits, within the statement's deadline", "pg_sleep_for": "waits, within the deadline", "pg_sleep_until": "waits, within the deadline",
	"currval": "reads the session's sequence values (DISCARD ALL clears them)", "lastval": "reads the session's sequence values",
	"pg_sequence_last_value": "reads a sequence", "current_query": "reads the session's own statement",
	"currtid2": "reads a row's location", "txid_status": "reads a transaction's status", "pg_xact_status": "reads a transaction's status",
	"pg_xact_commit_timestamp": "reads a commit time", "pg_xact_commit_timestamp_origin": "reads a commit time",
	"pg_last_committed_xact": "reads a commit time", "pg_prepared_xact": "lists prepared transactions",
	"pg_database_size": "sizes", "pg_indexes_size": "sizes", "pg_relation_size": "sizes", "pg_table_size": "sizes",
	"pg_tablespace_size": "sizes", "pg_total_relation_size": "sizes",
	"pg_partition_ancestors": "reads the catalog", "pg_partition_tree": "reads the catalog",
	"pg_collation_actual_version": "reads the C library's collation version", "pg_database_collation_actual_version": "reads the C library's collation version",
	"pg_blocking_pids": "monitoring", "pg_safe_snapshot_blocking_pids": "monitoring", "pg_isolation_test_session_is_blocked": "monitoring",
	"pg_lock_status": "monitoring", "pg_notification_queue_usage": "monitoring", "pg_get_multixact_members": "monitoring",
	"pg_get_backend_memory_contexts": "monitoring", "pg_get_shmem_allocations": "monitoring", "pg_jit_available": "monitoring",
	"pg_show_replication_origin_status": "monitoring", "pg_stat_get_recovery_prefetch": "monitoring", "pg_stat_have_stats": "monitoring",
	"pg_stat_clear_snapshot": "drops the transaction's own statistics snapshot", "pg_stat_force_next_flush": "flushes the session's own statistics as it would at idle",
	"pg_is_in_recovery": "monitoring", "pg_is_wal_replay_paused": "monitoring", "pg_current_wal_lsn": "monitoring",
	"pg_current_wal_flush_lsn": "monitoring", "pg_current_wal_insert_lsn": "monitoring", "pg_last_wal_receive_lsn": "monitoring",
	"pg_last_wal_replay_lsn": "monitoring", "pg_last_xact_replay_timestamp": "monitoring",
	"bernoulli": "a TABLESAMPLE method", "system": "a TABLESAMPLE method",
	// Callable only by the server (an argument of type internal or
	// trigger, or an extension script), never from a statement.
	"amvalidate": "internal", "bthandler": "internal", "brinhandler": "internal", "ginhandler": "internal", "gisthandler": "internal",
	"hashhandler": "internal", "spghandler": "internal", "heap_tableam_handler": "internal", "dsnowball_init": "internal",
	"dsnowball_lexize": "internal", "plpgsql_call_handler": "internal", "plpgsql_inline_handler": "internal", "plpgsql_validator": "internal",
	"pg_extension_config_dump": "internal", "suppress_redundant_updates_trigger": "internal", "tsvector_update_trigger": "internal",
	"tsvector_update_trigger_column": "internal", "unique_key_recheck": "internal",
}

// TestVolatileFunctionsReviewed: every VOLATILE function the server ships
// is either denied or reviewed as benign above. A server version that
// adds one fails here until someone reads what it does: the deny-list
// missed gin_clean_pending_list and brin_summarize_new_values, which
// write an index's pages from a read-only transaction, until this test
// listed them.
func TestVolatileFunctionsReviewed(t *testing.T) {
	url := servers.PostgresSample(t)
	a := admin(t, url)
	rows, err := a.Query(context.Background(), `SELECT DISTINCT lower(proname) FROM pg_catalog.pg_proc
		WHERE provolatile = 'v' AND prokind = 'f' AND oid < 16384 ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	var unreviewed []string
	n := 0
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		n++
		// RI_FKey_* are foreign keys' trigger functions (internal);
		// pg_stat_get_xact_* read the transaction's own statistics.
		if !postgres.Denied(name) && benignVolatile[name] == "" && !strings.HasPrefix(name, "ri_fkey_") && !strings.HasPrefix(name, "pg_stat_get_xact_") {
			unreviewed = append(unreviewed, name)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d VOLATILE functions listed: the query is wrong", n)
	}
	sort.Strings(unreviewed)
	if len(unreviewed) > 0 {
		t.Errorf("VOLATILE functions neither denied nor reviewed (read what each does; deny it in guard.go or add it to benignVolatile): %s", strings.Join(unreviewed, " "))
	}
	for name := range benignVolatile {
		if postgres.Denied(name) {
			t.Errorf("%s is both denied and listed as benign", name)
		}
	}
}
