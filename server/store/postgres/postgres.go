// Package postgres is the store.Store to scale out: PostgreSQL through
// github.com/jackc/pgx/v5 (pgxpool), shared by any number of service
// instances.
//
// Each method is one statement or one READ COMMITTED transaction:
// TakePending is a DELETE ... RETURNING with the expiry in its WHERE, so
// one taker gets the row; AddFailure an INSERT ... ON CONFLICT DO UPDATE
// ... RETURNING; TakeToken creates the bucket if it is new (ON CONFLICT DO
// NOTHING), locks it with SELECT ... FOR UPDATE, and updates it, in one
// transaction. A method that returns nil has committed.
//
// The schema is versioned in a schema_version table and migrated on Open
// in one transaction that first takes a transaction-scoped advisory lock
// (pg_advisory_xact_lock), so that instances starting together migrate
// once between them.
package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kexlab/kexlab/server/store"
	"github.com/kexlab/kexlab/server/store/internal/sqlcore"
)

// ErrSchemaTooNew is wrapped by Open's error when the database was
// migrated by a newer program than this one.
var ErrSchemaTooNew = sqlcore.ErrSchemaTooNew

// migrationLockKey is the advisory lock that serialises migrations: the
// first 8 bytes of "kexlab-store" read as an int64 (any constant the
// database's other users do not use).
const migrationLockKey = 0x6b65786c61622d73

// Store is a store.Store in a PostgreSQL database.
type Store struct {
	*sqlcore.Store
}

var _ store.Store = (*Store)(nil)

// Open connects to the database dsn names (a libpq connection string or
// URL, as pgxpool.ParseConfig reads it, pool settings such as
// pool_max_conns included), checks that it answers, and migrates its
// schema. A database migrated by a newer program fails with an error
// wrapping ErrSchemaTooNew.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	core, err := sqlcore.New(ctx, db{pool}, dialect)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	return &Store{core}, nil
}

// db is the sqlcore.DB of a Store.
type db struct{ p *pgxpool.Pool }

var _ sqlcore.DB = db{}

func (d db) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return querier{d.p}.Exec(ctx, query, args...)
}

func (d db) QueryRow(ctx context.Context, query string, args ...any) sqlcore.Row {
	return querier{d.p}.QueryRow(ctx, query, args...)
}

func (d db) Read(ctx context.Context, query string, args ...any) sqlcore.Row {
	return querier{d.p}.QueryRow(ctx, query, args...)
}

func (d db) Tx(ctx context.Context, fn func(q sqlcore.Querier) error) error {
	return pgx.BeginTxFunc(ctx, d.p, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(tx pgx.Tx) error {
		return fn(querier{tx})
	})
}

// Durable is Tx: PostgreSQL commits every transaction durably
// (synchronous_commit on, its default, which Open does not change).
func (d db) Durable(ctx context.Context, fn func(q sqlcore.Querier) error) error {
	return d.Tx(ctx, fn)
}

func (d db) Ping(ctx context.Context) error { return d.p.Ping(ctx) }

func (d db) Close() error {
	d.p.Close()
	return nil
}

// querier runs statements on the pool or in a transaction.
type querier struct {
	q interface {
		Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
		QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	}
}

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := q.q.Exec(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (q querier) QueryRow(ctx context.Context, query string, args ...any) sqlcore.Row {
	return row{q.q.QueryRow(ctx, query, args...)}
}

type row struct{ r pgx.Row }

func (r row) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return sqlcore.ErrNoRows
	}
	return err
}

var dialect = sqlcore.Dialect{
	Name:          "postgres",
	Migrations:    migrations,
	MigrationLock: fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", int64(migrationLockKey)),
	ForUpdate:     " FOR UPDATE",
	IsUnique:      func(err error) bool { return sqlState(err) == "23505" }, // unique_violation
	IsForeignKey:  func(err error) bool { return sqlState(err) == "23503" }, // foreign_key_violation
}

// sqlState is the SQLSTATE of a server error, or "".
func sqlState(err error) string {
	var e *pgconn.PgError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// migrations is the schema (the same tables as the SQLite store's, in
// PostgreSQL's types: bytea, timestamptz, double precision).
var migrations = []sqlcore.Migration{{
	Version: 1,
	Name:    "accounts, pending flows, sessions, failure counters, token buckets",
	Stmts: []string{
		`CREATE TABLE accounts (
			username TEXT PRIMARY KEY,
			scheme   TEXT NOT NULL,
			record   BYTEA NOT NULL,
			params   BYTEA NOT NULL,
			created  TIMESTAMPTZ NOT NULL,
			updated  TIMESTAMPTZ NOT NULL
		)`,
		`CREATE TABLE pending (
			handle   BYTEA PRIMARY KEY,
			kind     TEXT NOT NULL,
			username TEXT NOT NULL,
			scheme   TEXT NOT NULL,
			state    BYTEA NOT NULL,
			expires  TIMESTAMPTZ NOT NULL
		)`,
		`CREATE INDEX pending_username ON pending (username)`,
		`CREATE INDEX pending_expires ON pending (expires)`,
		`CREATE TABLE sessions (
			token_hash BYTEA PRIMARY KEY,
			username   TEXT NOT NULL REFERENCES accounts (username) ON DELETE CASCADE,
			created    TIMESTAMPTZ NOT NULL,
			expires    TIMESTAMPTZ NOT NULL
		)`,
		`CREATE INDEX sessions_username ON sessions (username)`,
		`CREATE INDEX sessions_expires ON sessions (expires)`,
		`CREATE TABLE failures (
			username     TEXT PRIMARY KEY,
			fails        BIGINT NOT NULL,
			last_failure TIMESTAMPTZ NOT NULL
		)`,
		`CREATE TABLE buckets (
			bucket  TEXT PRIMARY KEY,
			tokens  DOUBLE PRECISION NOT NULL,
			updated TIMESTAMPTZ NOT NULL
		)`,
	},
}}
