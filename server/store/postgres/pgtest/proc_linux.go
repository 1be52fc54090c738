package pgtest

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// runAs returns the process attributes that run initdb and the server as
// an unprivileged user when this process is root (PostgreSQL refuses
// root): the postgres system user, or nobody, which gets dir. Otherwise
// they run as this process's user.
func runAs(dir string) (*syscall.SysProcAttr, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	var (
		u   *user.User
		err error
	)
	for _, name := range []string{"postgres", "nobody"} {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("running as root and no postgres or nobody user to run the server as: %w", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("user %s has uid %q, gid %q", u.Username, u.Uid, u.Gid)
	}
	if err := os.Chown(dir, int(uid), int(gid)); err != nil {
		return nil, err
	}
	return &syscall.SysProcAttr{
		Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)},
	}, nil
}

// withParentDeath adds to attr a SIGINT (a fast shutdown) for the server
// when the test binary dies.
func withParentDeath(attr *syscall.SysProcAttr) *syscall.SysProcAttr {
	a := syscall.SysProcAttr{}
	if attr != nil {
		a = *attr
	}
	a.Pdeathsig = syscall.SIGINT
	return &a
}
