// Package pgtest starts real PostgreSQL servers for tests: a throwaway
// cluster (initdb) in a temporary directory, listening only on a unix
// socket there, with fsync on, and a fresh database per test.
//
// A package whose tests use it calls Main from TestMain, so that one
// cluster serves the whole test binary (started on first use, stopped
// when the tests end), and DSN in each test:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
//	func TestX(t *testing.T) {
//		dsn := pgtest.DSN(t) // a new, empty database
//		...
//	}
//
// Without Main, DSN starts a cluster per test. The server binaries are
// Debian's (package postgresql: /usr/lib/postgresql/<version>/bin) or any
// on PATH; scripts/postgres-test.sh (make postgres) installs them. Without
// them a test skips, or fails when KEXLAB_REQUIRE_POSTGRES=1 (as make test
// sets it).
//
// PostgreSQL refuses to run as root: as root, initdb and the server run as
// the postgres system user (or nobody), and the cluster's directory is
// handed to that user. The server gets a parent-death signal, so that a
// test binary that is killed does not leave it running.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// RequireEnv is the variable that turns missing PostgreSQL binaries into a
// failure instead of a skip.
const RequireEnv = "KEXLAB_REQUIRE_POSTGRES"

// Cluster is a running PostgreSQL server.
type Cluster struct {
	dir    string // holds data/, the socket and server.log
	cmd    *exec.Cmd
	exited chan struct{} // closed when the server has exited
	runErr error         // the server's exit status, once exited is closed
	dbs    atomic.Int64
	stop   sync.Once
}

var shared struct {
	enabled bool // Main is running the tests
	once    sync.Once
	c       *Cluster
	err     error
}

// Main runs the tests of a package that uses DSN, with one cluster for all
// of them, stops that cluster and exits.
func Main(m *testing.M) {
	shared.enabled = true
	code := m.Run()
	if shared.c != nil {
		if err := shared.c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
	os.Exit(code)
}

// DSN returns the connection string of a new, empty database on the test
// binary's cluster (Main), or on a cluster of t's own.
func DSN(t testing.TB) string {
	t.Helper()
	if !shared.enabled {
		return Start(t).NewDatabase(t)
	}
	shared.once.Do(func() {
		bins, err := binaries()
		if err != nil {
			shared.err = err
			return
		}
		shared.c, shared.err = start(bins)
	})
	if shared.err != nil {
		fail(t, shared.err)
	}
	return shared.c.NewDatabase(t)
}

// Start starts a cluster that t's cleanup stops.
func Start(t testing.TB) *Cluster {
	t.Helper()
	bins, err := binaries()
	if err != nil {
		fail(t, err)
	}
	c, err := start(bins)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Error(err)
		}
	})
	return c
}

// errMissing marks the errors of binaries not found.
var errMissing = errors.New("PostgreSQL server binaries not found")

// fail skips t if the binaries are missing (unless RequireEnv=1) and fails
// it on any other error.
func fail(t testing.TB, err error) {
	t.Helper()
	if !errors.Is(err, errMissing) {
		t.Fatal(err)
	}
	msg := err.Error() + "; run scripts/postgres-test.sh (make postgres) to install them"
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s=1: %s", RequireEnv, msg)
	}
	t.Skip(msg)
}

type bins struct{ initdb, postgres string }

// binaries finds initdb and postgres: on PATH, else in the newest
// Debian /usr/lib/postgresql/<version>/bin that has both.
func binaries() (bins, error) { return findBinaries(exec.LookPath, debianBins) }

const debianBins = "/usr/lib/postgresql/*/bin"

func findBinaries(lookPath func(string) (string, error), glob string) (bins, error) {
	if i, err := lookPath("initdb"); err == nil {
		if p, err := lookPath("postgres"); err == nil {
			return bins{i, p}, nil
		}
		// postgres beside initdb (which may be a symlink into a bin/).
		if real, err := filepath.EvalSymlinks(i); err == nil {
			if p := filepath.Join(filepath.Dir(real), "postgres"); isExec(p) {
				return bins{real, p}, nil
			}
		}
	}
	dirs, _ := filepath.Glob(glob)
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		i, p := filepath.Join(d, "initdb"), filepath.Join(d, "postgres")
		if isExec(i) && isExec(p) {
			return bins{i, p}, nil
		}
	}
	return bins{}, fmt.Errorf("%w (neither on PATH nor in %s)", errMissing, glob)
}

// version is the major version in a /usr/lib/postgresql/<version>/bin path.
func version(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// start creates a cluster in a new temporary directory and starts its
// server. The directory is os.MkdirTemp's, not a test's TempDir: the
// server's user must be able to reach it, and the socket path must stay
// short (a unix socket path has at most 107 bytes).
func start(b bins) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "kexlab-pg-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	c := &Cluster{dir: dir, exited: make(chan struct{})}
	if err := c.start(b); err != nil {
		c.Stop()
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	return c, nil
}

func (c *Cluster) start(b bins) error {
	attr, err := runAs(c.dir)
	if err != nil {
		return err
	}
	data := filepath.Join(c.dir, "data")
	// --no-sync: initdb need not flush the new cluster (it is thrown
	// away); the server itself runs with fsync on.
	initdb := exec.Command(b.initdb, "-D", data, "-U", "postgres", "--auth=trust",
		"-E", "UTF8", "--no-locale", "--no-sync")
	initdb.SysProcAttr = attr
	initdb.Dir = c.dir
	initdb.Env = env()
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	logf, err := os.Create(filepath.Join(c.dir, "server.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	c.cmd = exec.Command(b.postgres, "-D", data, "-k", c.dir,
		"-c", "listen_addresses=", "-c", "fsync=on", "-c", "synchronous_commit=on")
	c.cmd.SysProcAttr = withParentDeath(attr)
	c.cmd.Dir = c.dir
	c.cmd.Env = env()
	c.cmd.Stdout, c.cmd.Stderr = logf, logf
	if err := c.run(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	return c.waitReady(30 * time.Second)
}

// env is the environment of initdb and the server: no PG* variables of
// the caller's.
func env() []string {
	var e []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			e = append(e, kv)
		}
	}
	return append(e, "LC_ALL=C")
}

// run starts the server from a goroutine locked to its OS thread, which
// waits for the server to exit: the parent-death signal is sent when the
// thread that started the process ends, and Go ends threads only when a
// locked goroutine returns, so this one outlives the server.
func (c *Cluster) run() error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := c.cmd.Start(); err != nil {
			started <- err
			c.runErr = err
			close(c.exited)
			return
		}
		started <- nil
		c.runErr = c.cmd.Wait()
		close(c.exited)
	}()
	return <-started
}

// waitReady polls until the server accepts a connection.
func (c *Cluster) waitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgx.Connect(ctx, c.dsn("postgres"))
		cancel()
		if err == nil {
			return conn.Close(context.Background())
		}
		select {
		case <-c.exited:
			return fmt.Errorf("postgres exited: %v\n%s", c.runErr, c.log())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres not ready after %v: %v\n%s", limit, err, c.log())
		}
	}
}

// log is the tail of the server's log.
func (c *Cluster) log() string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

func (c *Cluster) dsn(db string) string {
	return fmt.Sprintf("host=%s user=postgres dbname=%s sslmode=disable", c.dir, db)
}

// NewDatabase creates an empty database, dropped when t ends, and returns
// its connection string.
func (c *Cluster) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("test_%d", c.dbs.Add(1))
	if err := c.admin(t.Context(), "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		// WITH (FORCE) ends connections a test left open.
		if err := c.admin(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop database: %v", err)
		}
	})
	return c.dsn(name)
}

// admin runs one statement on the postgres database.
func (c *Cluster) admin(ctx context.Context, stmt string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.dsn("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, stmt)
	return err
}

// Stop stops the server (a fast shutdown: SIGINT) and removes the
// cluster's directory. Stopping again does nothing.
func (c *Cluster) Stop() error {
	var err error
	c.stop.Do(func() {
		if c.cmd != nil && c.cmd.Process != nil {
			select {
			case <-c.exited:
			default:
				c.cmd.Process.Signal(os.Interrupt)
				select {
				case <-c.exited:
				case <-time.After(30 * time.Second):
					c.cmd.Process.Kill()
					<-c.exited
					err = errors.New("postgres did not stop within 30s: killed")
				}
			}
		}
		err = errors.Join(err, os.RemoveAll(c.dir))
		if err != nil {
			err = fmt.Errorf("pgtest: stop: %w", err)
		}
	})
	return err
}
