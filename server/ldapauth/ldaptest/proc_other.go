//go:build !linux

package ldaptest

import "os/exec"

// killWithParent does nothing where the kernel cannot tie a child's life to
// its parent's: a killed test binary may leave its slapd running.
func killWithParent(*exec.Cmd) {}
