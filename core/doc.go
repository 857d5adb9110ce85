// Package core is the shared pipeline behind every front door of tablewise:
// read-only database access (db), the SQL guard (guard), streaming queries
// (query), export formats (export), answer bundles (answer) and, as they
// land, model providers (llm), the question agent (agent) and the offline
// planner (offline).
//
// The layering rule, enforced by TestDependencyRule:
//
//	cmd → tui, bridge/* → core/*, charts
//	charts may import core; core imports nothing from tui, bridge or charts;
//	bridges never import tui or each other; nothing imports cmd.
//
// Core packages return plain data and errors; they never write to a
// terminal.
package core
