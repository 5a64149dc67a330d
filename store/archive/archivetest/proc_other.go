//go:build !linux

package archivetest

import (
	"errors"
	"os"
	"os/exec"
)

// killWithParent does nothing where the kernel cannot tie a child's life to
// its parent's: a killed test binary may leave its server running.
func killWithParent(*exec.Cmd) {}

// pause is not implemented where SIGSTOP may be missing.
func pause(*os.Process, bool) error {
	return errors.New("archivetest: freezing a server needs Linux")
}
