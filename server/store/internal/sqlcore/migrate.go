package sqlcore

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Migration is one numbered step of a schema.
type Migration struct {
	Version int      // 1, 2, ...: the schema version after this step
	Name    string   // a few words, recorded in schema_version
	Stmts   []string // run in order, in the migration transaction
}

// ErrSchemaTooNew means the database was migrated by a newer program than
// this one: this program does not know its schema and refuses to use it.
var ErrSchemaTooNew = errors.New("database schema is newer than this program knows")

// schemaVersionTable records the migrations applied, one row each; the
// schema's version is the largest. Its text is valid in both dialects.
const schemaVersionTable = `CREATE TABLE IF NOT EXISTS schema_version (
	version INTEGER PRIMARY KEY,
	name    TEXT NOT NULL,
	applied TEXT NOT NULL
)`

// checkMigrations reports whether ms is numbered 1, 2, ... without gaps.
func checkMigrations(ms []Migration) error {
	for i, m := range ms {
		if m.Version != i+1 {
			return fmt.Errorf("migration %d (%q) has version %d, want %d", i, m.Name, m.Version, i+1)
		}
		if len(m.Stmts) == 0 {
			return fmt.Errorf("migration %d (%q) has no statements", m.Version, m.Name)
		}
	}
	return nil
}

// Migrate brings the schema of db up to the newest of d.Migrations, in one
// write transaction (so that a failed step leaves the database as it was),
// and returns the versions before and after. A database newer than
// d.Migrations fails with ErrSchemaTooNew and is left alone.
func Migrate(ctx context.Context, db DB, d Dialect) (from, to int, err error) {
	if err := checkMigrations(d.Migrations); err != nil {
		return 0, 0, fmt.Errorf("migrate: %w", err)
	}
	err = db.Tx(ctx, func(q Querier) error {
		if d.MigrationLock != "" {
			if _, err := q.Exec(ctx, d.MigrationLock); err != nil {
				return fmt.Errorf("lock: %w", err)
			}
		}
		if _, err := q.Exec(ctx, schemaVersionTable); err != nil {
			return fmt.Errorf("create schema_version: %w", err)
		}
		var cur int64
		if err := q.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&cur); err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		from, to = int(cur), int(cur)
		if cur > int64(len(d.Migrations)) {
			return fmt.Errorf("%w: the database is at version %d, this program knows versions up to %d",
				ErrSchemaTooNew, cur, len(d.Migrations))
		}
		if cur < 0 {
			return fmt.Errorf("schema_version holds version %d", cur)
		}
		for _, m := range d.Migrations[cur:] {
			for i, stmt := range m.Stmts {
				if _, err := q.Exec(ctx, stmt); err != nil {
					return fmt.Errorf("migration %d (%s), statement %d: %w", m.Version, m.Name, i+1, err)
				}
			}
			if _, err := q.Exec(ctx, `INSERT INTO schema_version (version, name, applied) VALUES ($1, $2, $3)`,
				int64(m.Version), m.Name, time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
				return fmt.Errorf("record migration %d: %w", m.Version, err)
			}
			to = m.Version
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("migrate: %w", err)
	}
	return from, to, nil
}
