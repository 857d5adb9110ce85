//go:build !race

package engine

// RaceSlowdown is 1 outside race-detector builds (see race.go).
const RaceSlowdown = 1
