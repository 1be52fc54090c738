//go:build !linux

package pgtest

import (
	"errors"
	"os"
	"syscall"
)

// runAs runs initdb and the server as this process's user; as root, which
// PostgreSQL refuses, only Linux is supported.
func runAs(dir string) (*syscall.SysProcAttr, error) {
	if os.Geteuid() == 0 {
		return nil, errors.New("running as root: pgtest switches to an unprivileged user on Linux only")
	}
	return nil, nil
}

// withParentDeath returns attr: only Linux has a parent-death signal.
func withParentDeath(attr *syscall.SysProcAttr) *syscall.SysProcAttr { return attr }
