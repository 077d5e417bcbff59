package testcluster

import (
	"os/exec"
	"syscall"
)

// DieWithParent makes the process of cmd receive SIGKILL when the test
// process dies, so a test killed by its timeout leaves no server behind.
func DieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
