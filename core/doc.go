// Package core is the shared pipeline behind every front door of tablewise:
// read-only database access (db, behind the engine seam), the vocabulary of
// refusal (guard), streaming queries (query), export formats (export),
// answer bundles (answer), model providers (llm), the question agent
// (agent), the offline planner (offline), and:
//
//   - ask: the one answer service front doors call — agent or planner chosen
//     from the configuration, conversations kept in a Store.
//   - verify: checks a statement's result before it becomes an answer —
//     text literals against the column's values, suspicious results,
//     joins that repeat rows — through core/query and the engine's
//     Dialect, so every engine is checked the same way.
//
// The engine seam: front doors and core packages hold a *db.DB, which
// db.Open makes from a DSN with the engine it names (a path or file: URI
// is SQLite; data files — .csv, .tsv, .json, .jsonl, .parquet — are
// loaded by core/engine/sqlite/files into an in-memory SQLite database
// that is then opened read-only like a file). An engine (core/engine.Engine, one package per engine under
// core/engine) vets and runs one statement at a time into a query.Sink
// under a deadline and caps, reads the catalog (core/catalog, plain data),
// explains, and says what doctor checks; its Dialect writes the SQL that
// differs between engines (quoting, date buckets, LIKE, LIMIT). Engines
// raise the shared typed errors (guard.Rejection, guard.SQLError,
// query.LimitError, engine sentinels) that core/fault explains.
//
// The layering rule, enforced by TestDependencyRule and TestEngineImports:
//
//	cmd → tui, bridge/* → core/*, charts
//	charts may import core; core imports nothing from tui, bridge or charts;
//	bridges never import tui or each other; nothing imports cmd;
//	front doors (cmd, tui, bridge) never import core/agent or core/offline:
//	they ask through core/ask;
//	only core/db imports an engine package; only core/engine/sqlite
//	imports SQLite's C API (its internal/lite, modernc.org/sqlite/lib).
//
// Core packages return plain data and errors; they never write to a
// terminal.
package core
