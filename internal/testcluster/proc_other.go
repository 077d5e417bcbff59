//go:build !linux

package testcluster

import "os/exec"

// DieWithParent does nothing outside Linux: a test killed by its timeout
// may leave its servers running there.
func DieWithParent(*exec.Cmd) {}
