// Package sqlite is the embedded store.Store, the service's default: one
// SQLite database file, through modernc.org/sqlite (pure Go, no cgo).
//
// The file is created with mode 0600 and runs in WAL mode. A change to an
// account (CreateAccount, UpdateAccount, DeleteAccount) commits with
// synchronous=FULL: once the method returns nil it is on disk. The other
// writes (flows, sessions, failure counters, token buckets: several per
// login) commit with synchronous=NORMAL: in the WAL, safe when the process
// is killed, but the last ones before a power loss or kernel crash may be
// lost (SQLite's documented NORMAL-in-WAL guarantee), which costs a user a
// login at most (a lost session or flow) and an attacker a few guesses (a
// lost failure count), and saves an fsync per write.
// SQLite allows one writer at a time: a Store writes through a single
// connection whose transactions begin IMMEDIATE (they take the write lock
// before reading, so a read-modify-write such as TakeToken cannot
// interleave with another), and reads through a small pool of read-only
// connections. Between processes sharing the file, the busy timeout makes
// a writer wait for the lock rather than fail. Foreign keys are on
// (sessions belong to accounts).
//
// Times are stored as integer microseconds since 1970 UTC. The schema is
// versioned in a schema_version table and migrated on Open, in one
// transaction.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/kexlab/kexlab/server/store"
	"github.com/kexlab/kexlab/server/store/internal/sqlcore"
)

// ErrSchemaTooNew is wrapped by Open's error when the database was
// migrated by a newer program than this one.
var ErrSchemaTooNew = sqlcore.ErrSchemaTooNew

// BusyTimeout is how long, in milliseconds, a statement waits for a lock
// another process holds before it fails with SQLITE_BUSY.
const BusyTimeout = 10000

// Store is a store.Store in one SQLite database file.
type Store struct {
	*sqlcore.Store
}

var _ store.Store = (*Store)(nil)

// Open opens the database file at path, creating it (mode 0600) if it does
// not exist, and migrates its schema. A database migrated by a newer
// program fails with an error wrapping ErrSchemaTooNew. path is a file
// name, never a URI or ":memory:" (a store must be shared by its
// connections and outlive them).
func Open(path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlite: open: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	if err := create(abs); err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	c, err := connect(abs)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", abs, err)
	}
	core, err := sqlcore.New(context.Background(), c, dialect)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", abs, err)
	}
	return &Store{core}, nil
}

// create creates path with mode 0600 if it does not exist. SQLite gives
// the -wal and -shm files it creates beside it the same mode.
func create(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := f.Chmod(0o600); err != nil { // exactly 0600, whatever the umask
		f.Close()
		return err
	}
	return f.Close()
}

// dsn is modernc.org/sqlite's data source name for the file at abs with
// the connection parameters params: a file: URI, so that a '?' or '#' in
// the path is escaped instead of starting the query.
func dsn(abs, params string) string {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(abs)
	return "file:" + esc + "?" + params
}

// connect opens the writer (one connection; journal_mode=WAL,
// synchronous=NORMAL, foreign keys, IMMEDIATE transactions, checkpoints
// left to the checkpointer), the read-only pool and the checkpointer's
// connection (checkpoint.go), and checks that the writer's settings took.
func connect(abs string) (*conn, error) {
	common := fmt.Sprintf("_busy_timeout=%d&_synchronous=NORMAL&_foreign_keys=1", BusyTimeout)
	w, err := sql.Open("sqlite", dsn(abs, fmt.Sprintf("%s&_journal_mode=WAL&_txlock=immediate&_pragma=wal_autocheckpoint(%d)", common, CheckpointBacklog)))
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	if err := firstConnect(w); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", dsn(abs, common+"&_query_only=1"))
	if err != nil {
		w.Close()
		return nil, err
	}
	n := max(2, runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	ck, err := sql.Open("sqlite", dsn(abs, common))
	if err != nil {
		w.Close()
		r.Close()
		return nil, err
	}
	return &conn{w: w, r: r, ws: stmts{db: w}, rs: stmts{db: r}, ckpt: startCheckpointer(ck)}, nil
}

// firstConnect makes the writer's first connection and checks its
// settings (checkPragmas). Switching a new database to WAL needs an
// exclusive lock, and SQLite answers SQLITE_BUSY there without waiting
// for the busy timeout when another process or connection holds one (as
// when instances start together on a fresh database): that is retried,
// a few milliseconds apart, for up to BusyTimeout.
func firstConnect(w *sql.DB) error {
	deadline := time.Now().Add(BusyTimeout * time.Millisecond)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		err := checkPragmas(w)
		if err == nil || code(err)&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return err
		}
		time.Sleep(pause)
	}
}

// checkPragmas reads back the settings the writer's DSN asked for: a
// filesystem that cannot do WAL, say, leaves the journal mode as it was.
func checkPragmas(db *sql.DB) error {
	for _, p := range []struct{ name, want string }{
		{"journal_mode", "wal"},
		{"synchronous", "1"}, // NORMAL; Durable switches to FULL
		{"foreign_keys", "1"},
		{"busy_timeout", fmt.Sprint(BusyTimeout)},
		{"wal_autocheckpoint", fmt.Sprint(CheckpointBacklog)},
	} {
		var got string
		if err := db.QueryRow("PRAGMA " + p.name).Scan(&got); err != nil {
			return fmt.Errorf("read pragma %s: %w", p.name, err)
		}
		if !strings.EqualFold(got, p.want) {
			return fmt.Errorf("pragma %s is %q, want %q", p.name, got, p.want)
		}
	}
	return nil
}

var dialect = sqlcore.Dialect{
	Name:       "sqlite",
	Migrations: migrations,
	IsUnique: func(err error) bool {
		c := code(err)
		return c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY || c == sqlite3.SQLITE_CONSTRAINT_UNIQUE
	},
	IsForeignKey: func(err error) bool { return code(err) == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY },
}

// code is the extended result code of a SQLite error, or 0.
func code(err error) int {
	var e *msqlite.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return 0
}

// migrations is the schema. Times are INTEGER microseconds since 1970 UTC;
// tables are STRICT (SQLite checks the column types) and WITHOUT ROWID
// (their keys are text or blobs).
var migrations = []sqlcore.Migration{{
	Version: 1,
	Name:    "accounts, pending flows, sessions, failure counters, token buckets",
	Stmts: []string{
		`CREATE TABLE accounts (
			username TEXT NOT NULL PRIMARY KEY,
			scheme   TEXT NOT NULL,
			record   BLOB NOT NULL,
			params   BLOB NOT NULL,
			created  INTEGER NOT NULL,
			updated  INTEGER NOT NULL
		) STRICT, WITHOUT ROWID`,
		`CREATE TABLE pending (
			handle   BLOB NOT NULL PRIMARY KEY,
			kind     TEXT NOT NULL,
			username TEXT NOT NULL,
			scheme   TEXT NOT NULL,
			state    BLOB NOT NULL,
			expires  INTEGER NOT NULL
		) STRICT, WITHOUT ROWID`,
		`CREATE INDEX pending_username ON pending (username)`,
		`CREATE INDEX pending_expires ON pending (expires)`,
		`CREATE TABLE sessions (
			token_hash BLOB NOT NULL PRIMARY KEY,
			username   TEXT NOT NULL REFERENCES accounts (username) ON DELETE CASCADE,
			created    INTEGER NOT NULL,
			expires    INTEGER NOT NULL
		) STRICT, WITHOUT ROWID`,
		`CREATE INDEX sessions_username ON sessions (username)`,
		`CREATE INDEX sessions_expires ON sessions (expires)`,
		`CREATE TABLE failures (
			username     TEXT NOT NULL PRIMARY KEY,
			fails        INTEGER NOT NULL,
			last_failure INTEGER NOT NULL
		) STRICT, WITHOUT ROWID`,
		`CREATE TABLE buckets (
			bucket  TEXT NOT NULL PRIMARY KEY,
			tokens  REAL NOT NULL,
			updated INTEGER NOT NULL
		) STRICT, WITHOUT ROWID`,
	},
}}
