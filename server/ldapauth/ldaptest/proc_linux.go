package ldaptest

import (
	"os/exec"
	"syscall"
)

// killWithParent has the kernel kill cmd when the test binary dies, so that
// a test killed by a timeout or Ctrl-C leaves no slapd behind.
func killWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
