//go:build !linux

package scanners

import "unsafe"

// prefault does nothing outside Linux (see prefault_linux.go).
func prefault(p unsafe.Pointer, n int) bool { return false }
