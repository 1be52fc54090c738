//go:build linux

package pgtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestFindBinaries(t *testing.T) {
	root := t.TempDir()
	mk := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	glob := filepath.Join(root, "lib", "*", "bin")
	none := func(string) (string, error) { return "", exec.ErrNotFound }

	if _, err := findBinaries(none, glob); !errors.Is(err, errMissing) {
		t.Errorf("nothing installed: %v, want errMissing", err)
	}
	// Debian's layout: the newest version (numerically) that has both.
	mk(filepath.Join(root, "lib", "9", "bin", "initdb"))
	mk(filepath.Join(root, "lib", "9", "bin", "postgres"))
	mk(filepath.Join(root, "lib", "16", "bin", "initdb"))
	mk(filepath.Join(root, "lib", "16", "bin", "postgres"))
	mk(filepath.Join(root, "lib", "17", "bin", "initdb")) // no server
	b, err := findBinaries(none, glob)
	if err != nil || b.initdb != filepath.Join(root, "lib", "16", "bin", "initdb") ||
		b.postgres != filepath.Join(root, "lib", "16", "bin", "postgres") {
		t.Errorf("Debian layout: %+v, %v; want version 16", b, err)
	}
	// initdb on PATH as a symlink into a bin/ (postgres not on PATH).
	link := filepath.Join(root, "path", "initdb")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "lib", "9", "bin", "initdb"), link); err != nil {
		t.Fatal(err)
	}
	onPath := func(name string) (string, error) {
		if name == "initdb" {
			return link, nil
		}
		return "", exec.ErrNotFound
	}
	b, err = findBinaries(onPath, glob)
	if err != nil || b.postgres != filepath.Join(root, "lib", "9", "bin", "postgres") {
		t.Errorf("initdb symlinked on PATH: %+v, %v; want version 9's postgres", b, err)
	}
}

// The helper processes of the tests below.
const helperEnv = "KEXLAB_PGTEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "cluster" {
		// Start a cluster, print the server's pid and directory, and wait
		// to be killed.
		bins, err := binaries()
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		c, err := start(bins)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(c.cmd.Process.Pid, c.dir)
		time.Sleep(time.Minute)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestMissingHelper is run by TestMissing in a helper process.
func TestMissingHelper(t *testing.T) {
	if os.Getenv(helperEnv) != "missing" {
		t.Skip("run by TestMissing")
	}
	fail(t, fmt.Errorf("%w (test)", errMissing))
}

// TestMissing: missing binaries skip a test, or fail it with
// KEXLAB_REQUIRE_POSTGRES=1.
func TestMissing(t *testing.T) {
	for _, require := range []string{"", "1"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingHelper$", "-test.v")
		cmd.Env = append(os.Environ(), helperEnv+"=missing", RequireEnv+"="+require)
		out, err := cmd.CombinedOutput()
		skipped := strings.Contains(string(out), "--- SKIP: TestMissingHelper")
		failed := strings.Contains(string(out), "--- FAIL: TestMissingHelper")
		if require == "" && (err != nil || !skipped) {
			t.Errorf("without %s: %v\n%s", RequireEnv, err, out)
		}
		if require == "1" && (err == nil || !failed || !strings.Contains(string(out), "scripts/postgres-test.sh")) {
			t.Errorf("with %s=1: %v\n%s", RequireEnv, err, out)
		}
	}
}

// TestServerDiesWithTestBinary: a test binary that is killed takes its
// server with it (the parent-death signal).
func TestServerDiesWithTestBinary(t *testing.T) {
	if _, err := binaries(); err != nil {
		fail(t, err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=cluster")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 2 {
		t.Fatalf("helper: %q, %v", line, err)
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil {
		t.Fatalf("helper: %q", line)
	}
	dir := f[1]
	defer os.RemoveAll(dir)
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("server %d not running: %v", pid, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("server %d still running 30s after its test binary was killed", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCluster: a cluster of a test's own, its databases separate and
// empty, stopped and removed at cleanup.
func TestCluster(t *testing.T) {
	var c *Cluster
	started := t.Run("start", func(t *testing.T) {
		c = Start(t)
		dsns := []string{c.NewDatabase(t), c.NewDatabase(t)}
		if dsns[0] == dsns[1] {
			t.Fatalf("two databases, one DSN: %s", dsns[0])
		}
		for i, dsn := range dsns {
			conn, err := pgx.Connect(t.Context(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(context.Background())
			var fsync string
			var tables int
			if err := conn.QueryRow(t.Context(), `SELECT current_setting('fsync'),
				(SELECT count(*) FROM pg_tables WHERE schemaname = 'public')`).Scan(&fsync, &tables); err != nil {
				t.Fatal(err)
			}
			if fsync != "on" || tables != 0 {
				t.Errorf("database %d: fsync %s, %d tables", i, fsync, tables)
			}
			if _, err := conn.Exec(t.Context(), `CREATE TABLE t (x int)`); err != nil {
				t.Fatal(err)
			}
		}
	})
	if !started || c == nil { // skipped (no PostgreSQL) or failed: nothing was cleaned up
		return
	}
	if _, err := os.Stat(c.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cluster directory after cleanup: %v", err)
	}
	select {
	case <-c.exited:
	default:
		t.Error("server running after cleanup")
	}
}
