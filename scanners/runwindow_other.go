//go:build !amd64

package scanners

const haveRunWindow = false

func runWindow(b []byte) (k, from int) { return runWindowGo(b) }
