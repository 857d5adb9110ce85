//go:build race

package engine

// RaceSlowdown is how many times slower a race-detector build runs an
// in-process engine (SQLite's virtual machine is Go code, instrumented:
// measured 40× on the sample's views). Time bounds that are a safety
// behind budgets of work scale by it, so a race build finds what a normal
// build finds; deadlines the user sets do not.
const RaceSlowdown = 40
