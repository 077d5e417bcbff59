//go:build race

package main

// raceBuild reports a test binary built with -race (large corpora shrink).
const raceBuild = true
