// Package sqlcore is the one implementation of store.Store over SQL that
// server/store/sqlite and server/store/postgres share: the statements, the
// argument checks, the token-bucket arithmetic and the migration runner.
//
// A back end supplies a DB (how to run one statement, a read, a write
// transaction) and a Dialect (its schema, the few clauses that differ, and
// how its constraint errors look). The statements use $1, $2, ...
// placeholders, which PostgreSQL and SQLite both bind by number, and pass
// times as time.Time: a back end whose columns hold something else (SQLite:
// integer microseconds) converts arguments and scan destinations.
package sqlcore

import (
	"context"
	"errors"
)

// ErrNoRows is what a back end's Row.Scan returns when the query found no
// row (the back end maps its own sql.ErrNoRows or pgx.ErrNoRows to it).
var ErrNoRows = errors.New("sqlcore: no rows")

// Row is the result of a query of at most one row. Scan runs or finishes the
// query; for a statement that writes, the change is committed (outside a
// transaction) once Scan has returned nil or ErrNoRows.
type Row interface {
	Scan(dest ...any) error
}

// Querier runs statements: on a DB, each one atomically on its own
// (autocommit) and committed durably before it returns; in a transaction,
// as part of it.
type Querier interface {
	// Exec runs a statement and returns how many rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// QueryRow runs a statement that returns at most one row and may
	// write (INSERT/DELETE ... RETURNING).
	QueryRow(ctx context.Context, query string, args ...any) Row
}

// DB is a back end's connection pool.
type DB interface {
	Querier
	// Read runs a read-only query of at most one row. It may use other
	// connections than the writes do (SQLite: a pool of read-only ones).
	Read(ctx context.Context, query string, args ...any) Row
	// Tx runs fn in one write transaction and commits it if fn returns
	// nil; otherwise it rolls back and returns fn's error. SQLite begins
	// it IMMEDIATE (the write lock first, so read-modify-write cannot
	// interleave); PostgreSQL runs it READ COMMITTED and relies on
	// SELECT ... FOR UPDATE (Dialect.ForUpdate).
	Tx(ctx context.Context, fn func(q Querier) error) error
	// Durable is Tx for the changes that must survive a power loss once
	// acknowledged: accounts (a registration, a password change, a
	// deletion). SQLite syncs its commit to disk (synchronous=FULL),
	// where the other writes — flows, sessions, counters, buckets — only
	// reach the WAL (synchronous=NORMAL: durable when the process dies,
	// not always when the machine does). PostgreSQL commits every
	// transaction durably: there it is Tx.
	Durable(ctx context.Context, fn func(q Querier) error) error
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// Close releases the pool.
	Close() error
}

// Dialect is what differs between the back ends beyond the DB.
type Dialect struct {
	// Name prefixes every error ("sqlite", "postgres").
	Name string
	// Migrations are the schema's migrations, Version 1, 2, ... in order.
	Migrations []Migration
	// MigrationLock, if not empty, is the first statement of the migration
	// transaction: it serialises migrations of instances starting together
	// (PostgreSQL: pg_advisory_xact_lock). SQLite's IMMEDIATE transaction
	// already does.
	MigrationLock string
	// ForUpdate is appended to a SELECT in a transaction that will update
	// the row it reads (" FOR UPDATE"), or empty where the transaction
	// already holds the write lock (SQLite).
	ForUpdate string
	// IsUnique reports whether err is a primary-key or unique violation.
	IsUnique func(error) bool
	// IsForeignKey reports whether err is a foreign-key violation.
	IsForeignKey func(error) bool
}
