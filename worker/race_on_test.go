//go:build race

package worker

// raceBuild reports a test binary built with -race.
const raceBuild = true
