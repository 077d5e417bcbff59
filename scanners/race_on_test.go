//go:build race

package scanners

const raceEnabled = true
