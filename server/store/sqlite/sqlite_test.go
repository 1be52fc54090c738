package sqlite

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kexlab/kexlab/server/store"
	"github.com/kexlab/kexlab/server/store/internal/sqlcore"
	"github.com/kexlab/kexlab/server/store/storetest"
)

func fresh(t *testing.T) func() (store.Store, error) {
	path := filepath.Join(t.TempDir(), "kexlab.db")
	return func() (store.Store, error) { return Open(path) }
}

func open(t *testing.T) store.Store {
	t.Helper()
	st, err := fresh(t)()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestStore(t *testing.T) {
	storetest.Run(t, open, storetest.Reopen(fresh))
}

func TestFileMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kexlab.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.AddFailure(t.Context(), "alice", time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("%s: mode %v, want 0600", filepath.Base(f), m)
		}
	}
}

// TestPathCharacters: a path is a file name, even where it reads as a URI
// or SQLite's in-memory name.
func TestPathCharacters(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a?mode=ro#x.db", "100%25.db", ":memory:", "file:x.db"} {
		path := filepath.Join(dir, name)
		st, err := Open(path)
		if err != nil {
			t.Fatalf("Open(%q): %v", name, err)
		}
		if _, err := st.AddFailure(t.Context(), "alice", time.Now()); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		st.Close()
		if _, err := os.Stat(path); err != nil {
			t.Errorf("Open(%q) did not create that file: %v", name, err)
		}
	}
	if _, err := Open(""); err == nil {
		t.Error("Open(\"\") succeeded")
	}
}

func TestOpenNotADatabase(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, []byte(strings.Repeat("not a database ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{junk, dir, filepath.Join(dir, "missing", "x.db")} {
		if st, err := Open(p); err == nil {
			st.Close()
			t.Errorf("Open(%s) succeeded", p)
		}
	}
}

func TestSchemaTooNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kexlab.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	v := len(migrations) + 1
	if _, err := db.Exec(`INSERT INTO schema_version (version, name, applied) VALUES (?, 'from the future', '')`, v); err != nil {
		t.Fatal(err)
	}
	db.Close()
	st, err = Open(path)
	if err == nil {
		st.Close()
		t.Fatal("Open of a newer schema succeeded")
	}
	if !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), fmt.Sprint("version ", v)) {
		t.Errorf("Open of a newer schema: %v", err)
	}
}

// TestMigrationsRecorded: a fresh database is at the newest version, with
// one schema_version row per migration.
func TestMigrationsRecorded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kexlab.db")
	for range 2 {
		st, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, v int
	if err := db.QueryRow(`SELECT COUNT(*), MAX(version) FROM schema_version`).Scan(&n, &v); err != nil {
		t.Fatal(err)
	}
	if n != len(migrations) || v != len(migrations) {
		t.Errorf("schema_version: %d rows, version %d; want %d, %d", n, v, len(migrations), len(migrations))
	}
}

// The helper process of TestOtherProcess: it opens the database named by
// KEXLAB_SQLITE_HELPER, checks that the parent's committed account is
// there, and races the parent for failures and tokens.
const helperEnv = "KEXLAB_SQLITE_HELPER"

func TestMain(m *testing.M) {
	if path := os.Getenv(helperEnv); path != "" {
		if err := helper(path); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const otherRounds = 200

func helper(path string) error {
	st, err := Open(path)
	if err != nil {
		return err
	}
	defer st.Close()
	ctx := context.Background()
	a, err := st.GetAccount(ctx, "alice")
	if err != nil {
		return fmt.Errorf("the parent's account: %w", err)
	}
	if a.Scheme != "parent" {
		return fmt.Errorf("the parent's account has scheme %q", a.Scheme)
	}
	// Ready; wait for the parent's go, so that the two really contend.
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return fmt.Errorf("waiting for go: %w", err)
	}
	tokens, flows, err := contend(ctx, st, func(i int) int { return i })
	if err != nil {
		return err
	}
	fmt.Println(tokens, flows)
	return nil
}

// contend runs the rounds of TestOtherProcess on st: an AddFailure, a
// TakeToken of a bucket that does not refill, and a TakePending of the
// flow flow(i). It returns how many tokens and flows it took.
func contend(ctx context.Context, st store.Store, flow func(i int) int) (tokens, flows int, err error) {
	for i := range otherRounds {
		if _, err := st.AddFailure(ctx, "alice", time.Now()); err != nil {
			return 0, 0, err
		}
		ok, _, err := st.TakeToken(ctx, "register", time.Unix(0, 0), 1e-9, otherRounds)
		if err != nil {
			return 0, 0, err
		}
		if ok {
			tokens++
		}
		_, err = st.TakePending(ctx, []byte(strconv.Itoa(flow(i))), time.Unix(0, 0))
		switch {
		case err == nil:
			flows++
		case !errors.Is(err, store.ErrNotFound):
			return 0, 0, err
		}
	}
	return tokens, flows, nil
}

// TestOtherProcess: a second process opening the same file sees what the
// first committed, and the two serialise their read-modify-writes on the
// file's lock (AddFailure, TakeToken, TakePending all count exactly).
func TestOtherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kexlab.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := t.Context()
	a := store.Account{User: "alice", Scheme: "parent", Record: []byte{1}, Created: time.Now(), Updated: time.Now()}
	if err := st.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	for i := range otherRounds {
		p := store.Pending{Handle: []byte(strconv.Itoa(i)), Kind: "login", User: "alice", Expires: time.Unix(3600, 0)}
		if err := st.PutPending(ctx, p); err != nil {
			t.Fatal(err)
		}
	}

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	out := bufio.NewReader(stdout)
	if line, err := out.ReadString('\n'); err != nil || line != "ready\n" {
		cmd.Wait()
		t.Fatalf("helper process: %q, %v\n%s", line, err, stderr.String())
	}
	if _, err := io.WriteString(stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
	tokens, flows, err := contend(ctx, st, func(i int) int { return otherRounds - 1 - i })
	if err != nil {
		t.Error(err)
	}
	var theirTokens, theirFlows int
	if _, err := fmt.Fscan(out, &theirTokens, &theirFlows); err != nil {
		t.Errorf("helper output: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper process: %v\n%s", err, stderr.String())
	}
	f, err := st.GetFailures(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if f.Count != 2*otherRounds {
		t.Errorf("failures after %d AddFailure in each of two processes: %d", otherRounds, f.Count)
	}
	// Each process tried to take otherRounds tokens of a bucket of
	// otherRounds that does not refill, and every pending flow: between
	// them they took the whole bucket and every flow exactly once.
	t.Logf("this process took %d tokens and %d flows, the other %d and %d", tokens, flows, theirTokens, theirFlows)
	if tokens+theirTokens != otherRounds || flows+theirFlows != otherRounds {
		t.Errorf("two processes took %d tokens and %d flows, want %d of each",
			tokens+theirTokens, flows+theirFlows, otherRounds)
	}
}

// TestSynchronous: account changes commit with synchronous=FULL, every
// other write with NORMAL, and the writer is back to NORMAL after a
// durable transaction, also one that failed.
func TestSynchronous(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kexlab.db")
	if err := create(path); err != nil {
		t.Fatal(err)
	}
	c, err := connect(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	level := func(q interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}) int {
		var n int
		if err := q.QueryRowContext(t.Context(), "PRAGMA synchronous").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := level(c.w); n != 1 {
		t.Fatalf("writer synchronous = %d, want 1 (NORMAL)", n)
	}
	for _, fail := range []bool{false, true} {
		inside := -1
		err := c.Durable(t.Context(), func(q sqlcore.Querier) error {
			inside = level(q.(querier).q.(*sql.Tx))
			if fail {
				return errors.New("rolled back")
			}
			return nil
		})
		if (err != nil) != fail {
			t.Fatal(err)
		}
		if inside != 2 {
			t.Errorf("in a durable transaction synchronous = %d, want 2 (FULL)", inside)
		}
		if n := level(c.w); n != 1 {
			t.Errorf("after a durable transaction (failed %v) synchronous = %d, want 1", fail, n)
		}
	}
}
