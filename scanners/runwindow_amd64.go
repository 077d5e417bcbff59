package scanners

//go:noescape
func runWindowAVX2(p *byte, n int) (k, from int)

// haveRunWindow reports whether runWindow is the vector kernel; without
// it trackRuns keeps to its word loop.
var haveRunWindow = haveAVX2

// runWindow is runWindowGo, with the vector kernel where there is one.
func runWindow(b []byte) (k, from int) {
	if haveAVX2 && len(b) >= 32 {
		return runWindowAVX2(&b[0], len(b))
	}
	return runWindowGo(b)
}
