package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/kexlab/kexlab/server/store/internal/sqlcore"
)

// conn is the sqlcore.DB of a Store.
type conn struct {
	w *sql.DB // one connection: every write; transactions BEGIN IMMEDIATE
	r *sql.DB // read-only connections, for Read
}

var _ sqlcore.DB = (*conn)(nil)

func (c *conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return querier{c.w}.Exec(ctx, query, args...)
}

func (c *conn) QueryRow(ctx context.Context, query string, args ...any) sqlcore.Row {
	return querier{c.w}.QueryRow(ctx, query, args...)
}

func (c *conn) Read(ctx context.Context, query string, args ...any) sqlcore.Row {
	return querier{c.r}.QueryRow(ctx, query, args...)
}

func (c *conn) Tx(ctx context.Context, fn func(q sqlcore.Querier) error) error {
	tx, err := c.w.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock=immediate)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(querier{tx}); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func (c *conn) Ping(ctx context.Context) error {
	return errors.Join(c.w.PingContext(ctx), c.r.PingContext(ctx))
}

func (c *conn) Close() error {
	return errors.Join(c.r.Close(), c.w.Close())
}

// querier runs statements on a pool or in a transaction.
type querier struct {
	q interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	}
}

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.q.ExecContext(ctx, query, toDB(args)...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (q querier) QueryRow(ctx context.Context, query string, args ...any) sqlcore.Row {
	return row{ctx: ctx, q: q, query: query, args: args}
}

// row runs its query when scanned.
type row struct {
	ctx   context.Context
	q     querier
	query string
	args  []any
}

// Scan runs the query, scans its first row and steps the statement to its
// end before closing it: outside a transaction SQLite commits a writing
// statement (DELETE ... RETURNING) there, and an error committing it
// would otherwise go unseen (database/sql's Row.Scan closes the statement
// after the first row).
func (r row) Scan(dest ...any) error {
	rows, err := r.q.q.QueryContext(r.ctx, r.query, toDB(r.args)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sqlcore.ErrNoRows
	}
	if err := rows.Scan(fromDB(dest)...); err != nil {
		return err
	}
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// toDB converts the time.Time arguments to the integer microseconds the
// columns hold.
func toDB(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if t, ok := a.(time.Time); ok {
			a = t.UnixMicro()
		}
		out[i] = a
	}
	return out
}

// fromDB wraps the *time.Time destinations to read integer microseconds.
func fromDB(dest []any) []any {
	out := make([]any, len(dest))
	for i, d := range dest {
		if t, ok := d.(*time.Time); ok {
			d = microTime{t}
		}
		out[i] = d
	}
	return out
}

// microTime scans integer microseconds since 1970 into a UTC time.Time.
type microTime struct{ t *time.Time }

func (m microTime) Scan(src any) error {
	us, ok := src.(int64)
	if !ok {
		return fmt.Errorf("time column holds %T, want integer microseconds", src)
	}
	*m.t = time.UnixMicro(us).UTC()
	return nil
}
