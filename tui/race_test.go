//go:build race

package tui

// raceWait stretches the tests' waits in a race-detector build (a CI run
// under load once took over 120 s for the welcome example), where the
// planner that finds the welcome example builds its index of the sample
// some 40 times slower (engine.RaceSlowdown) than in a normal build.
const raceWait = 10
