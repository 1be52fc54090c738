package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrPreflight: the daemon refuses to start because something it needs
// would fail later (a state directory it cannot write, a file others can
// change, a second daemon on the interface). The message names the path
// and what to do.
var ErrPreflight = errors.New("wg daemon: refusing to start")

// DefaultLockDir holds one lock file per interface (and network
// namespace): /run/kexlab-wg, the RuntimeDirectory of the systemd unit.
const DefaultLockDir = "/run/kexlab-wg"

// prepareStateDir makes dir usable for the state files: it is created
// (mode 0700, parents too) when missing; it must then be a directory
// owned by the daemon's user (the effective uid), not writable by group or
// others, and writable (a probe file is created and removed, which also
// catches a read-only file system).
func prepareStateDir(dir string) (created bool, err error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return false, fmt.Errorf("%w: state_dir %s is missing and cannot be created: %v", ErrPreflight, dir, err)
		}
		created = true
		fi, err = os.Stat(dir)
	}
	if err != nil {
		return created, fmt.Errorf("%w: state_dir: %v", ErrPreflight, err)
	}
	if !fi.IsDir() {
		return created, fmt.Errorf("%w: state_dir %s is not a directory", ErrPreflight, dir)
	}
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		return created, fmt.Errorf("%w: state_dir %s is owned by uid %d, not by the daemon's user (uid %d): chown it", ErrPreflight, dir, uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return created, fmt.Errorf("%w: state_dir %s is writable by group or others (mode %04o): chmod 0700 it", ErrPreflight, dir, fi.Mode().Perm())
	}
	probe, err := os.CreateTemp(dir, ".kexlab-wg-probe*")
	if err != nil {
		return created, fmt.Errorf("%w: state_dir %s is not writable: %v", ErrPreflight, dir, err)
	}
	name := probe.Name()
	probe.Close()
	if err := os.Remove(name); err != nil {
		return created, fmt.Errorf("%w: state_dir %s: %v", ErrPreflight, dir, err)
	}
	return created, nil
}

// checkNotWritableByOthers refuses a file (followed through symlinks) that
// a user other than the daemon's or root could change: what names the
// file in the message ("config file", "PKCS#11 module").
func checkNotWritableByOthers(what, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrPreflight, what, err)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: %s %s is writable by group or others (mode %04o): chmod go-w it", ErrPreflight, what, path, fi.Mode().Perm())
	}
	if uid, ok := owner(fi); ok && uid != 0 && uid != os.Geteuid() {
		return fmt.Errorf("%w: %s %s is owned by uid %d, neither root nor the daemon's user", ErrPreflight, what, path, uid)
	}
	return nil
}

func owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// Lock is a held lock file (flock, released when the process exits, so a
// crashed daemon leaves no stale lock).
type Lock struct {
	f    *os.File
	Path string
}

// Release unlocks and closes the lock file. The file itself stays (removing
// it would race with a daemon that just opened it).
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
		l.f.Close()
		l.f = nil
	}
}

// ErrLocked: another daemon holds the lock.
var ErrLocked = errors.New("wg daemon: already running")

// lockFile takes an exclusive, non-blocking flock on path (created 0600)
// and writes this process's pid into it. If another process holds it, the
// error names that process's pid (read from the file).
func lockFile(path, what string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%w: lock file %s: %v", ErrPreflight, path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			b := make([]byte, 32)
			n, _ := f.ReadAt(b, 0)
			pid := strings.TrimSpace(string(b[:n]))
			if _, perr := strconv.Atoi(pid); perr != nil {
				pid = "unknown"
			}
			return nil, fmt.Errorf("%w: %s is already rotated by the daemon with pid %s (lock %s)", ErrLocked, what, pid, path)
		}
		return nil, fmt.Errorf("%w: lock file %s: %v", ErrPreflight, path, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f, Path: path}, nil
}

// netnsID names this process's network namespace ("4026531840", the inode
// of /proc/self/ns/net), so that interfaces of the same name in different
// namespaces get different locks; "" where /proc does not say.
func netnsID() string {
	s, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return ""
	}
	s = strings.TrimPrefix(s, "net:[")
	return strings.TrimSuffix(s, "]")
}

// interfaceLockPath is the lock file of interface iface in this network
// namespace under dir.
func interfaceLockPath(dir, iface string) string {
	name := iface
	if id := netnsID(); id != "" {
		name += "@" + id
	}
	return filepath.Join(dir, name+".lock")
}

// preflight runs every start-up check of c and takes the locks: the
// interface's (in c.LockDir, created 0755 when missing) and the state
// directory's (a second daemon with the same state_dir on another
// interface would overwrite the state files). It returns the locks to
// release at exit and notes to log (what it created).
func preflight(c *Config, configPath string) (locks []*Lock, notes []string, err error) {
	defer func() {
		if err != nil {
			for _, l := range locks {
				l.Release()
			}
			locks = nil
		}
	}()
	if configPath != "" {
		if err := checkNotWritableByOthers("config file", configPath); err != nil {
			return nil, nil, err
		}
	}
	if c.P11 != nil {
		if err := checkNotWritableByOthers("PKCS#11 module", c.P11.Module); err != nil {
			return nil, nil, err
		}
	}
	created, err := prepareStateDir(c.StateDir)
	if err != nil {
		return nil, nil, err
	}
	if created {
		notes = append(notes, fmt.Sprintf("created state_dir %s (mode 0700)", c.StateDir))
	}
	dir := c.LockDir
	if dir == "" {
		dir = DefaultLockDir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("%w: lock_dir %s: %v", ErrPreflight, dir, err)
	}
	l, err := lockFile(interfaceLockPath(dir, c.Interface), "interface "+c.Interface)
	if err != nil {
		return nil, nil, err
	}
	locks = append(locks, l)
	l, err = lockFile(filepath.Join(c.StateDir, ".lock"), "state_dir "+c.StateDir)
	if err != nil {
		return locks, nil, err
	}
	locks = append(locks, l)
	return locks, notes, nil
}
