//go:build !race

package tui

// raceWait is 1 outside race-detector builds (see race_test.go).
const raceWait = 1
