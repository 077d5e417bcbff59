//go:build !race

package scanners

const raceEnabled = false
