package archivetest

import (
	"os"
	"os/exec"
	"syscall"
)

// killWithParent has the kernel kill cmd when the test binary dies, so that
// a test killed by a timeout or Ctrl-C leaves no server behind.
func killWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// pause stops (SIGSTOP) or resumes (SIGCONT) p.
func pause(p *os.Process, stop bool) error {
	if stop {
		return p.Signal(syscall.SIGSTOP)
	}
	return p.Signal(syscall.SIGCONT)
}
