package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kexlab/kexlab/server/store/internal/sqlcore"
)

// conn is the sqlcore.DB of a Store.
type conn struct {
	w *sql.DB // one connection: every write; transactions BEGIN IMMEDIATE
	r *sql.DB // read-only connections, for Read
	// ws and rs are w's and r's prepared statements by query text: SQLite
	// would otherwise parse and plan every statement on every call, which
	// cost the service a tenth of a login's CPU time.
	ws, rs stmts
	ckpt   *checkpointer
}

var _ sqlcore.DB = (*conn)(nil)

// stmts caches prepared statements of one pool. A database/sql Stmt
// prepares itself again on another connection of the pool when needed.
type stmts struct {
	db *sql.DB
	m  sync.Map // query → *sql.Stmt
}

func (s *stmts) get(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := s.m.Load(query); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if prev, loaded := s.m.LoadOrStore(query, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

func (s *stmts) close() {
	s.m.Range(func(_, st any) bool { st.(*sql.Stmt).Close(); return true })
}

// cached runs the statements of one pool through its cache.
type cached struct{ s *stmts }

// txCached runs a write transaction's statements through the writer's
// cache where they are in it. It cannot prepare a new one (that would wait
// for the writer's one connection, which the transaction holds): it runs
// those as they are and lists them in missed, for Tx to prepare after the
// commit.
type txCached struct {
	s      *stmts
	tx     *sql.Tx
	missed *[]string
}

func (c txCached) stmt(ctx context.Context, query string) *sql.Stmt {
	if st, ok := c.s.m.Load(query); ok {
		return c.tx.StmtContext(ctx, st.(*sql.Stmt))
	}
	*c.missed = append(*c.missed, query)
	return nil
}

func (c txCached) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := c.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return c.tx.ExecContext(ctx, query, args...)
}

func (c txCached) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := c.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return c.tx.QueryContext(ctx, query, args...)
}

func (c cached) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := c.s.get(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (c cached) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := c.s.get(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (c *conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return querier{cached{s: &c.ws}}.Exec(ctx, query, args...)
}

func (c *conn) QueryRow(ctx context.Context, query string, args ...any) sqlcore.Row {
	return querier{cached{s: &c.ws}}.QueryRow(ctx, query, args...)
}

func (c *conn) Read(ctx context.Context, query string, args ...any) sqlcore.Row {
	return querier{cached{s: &c.rs}}.QueryRow(ctx, query, args...)
}

func (c *conn) Tx(ctx context.Context, fn func(q sqlcore.Querier) error) error {
	tx, err := c.w.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock=immediate)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	var missed []string
	if err := fn(querier{txCached{s: &c.ws, tx: tx, missed: &missed}}); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	for _, q := range missed {
		c.ws.get(ctx, q) // for the next time; an error here is the next run's
	}
	return nil
}

// Durable runs fn as Tx does, with synchronous=FULL for its commit: it
// holds the writer's one connection for the three steps (the pragma, the
// transaction, the pragma back), so no other write runs in between.
func (c *conn) Durable(ctx context.Context, fn func(q sqlcore.Querier) error) error {
	pc, err := c.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer pc.Close()
	if _, err := pc.ExecContext(ctx, "PRAGMA synchronous = FULL"); err != nil {
		return fmt.Errorf("synchronous: %w", err)
	}
	// Back to NORMAL even if ctx ends; if that fails, the connection
	// stays FULL, which is slower, never less durable.
	defer pc.ExecContext(context.WithoutCancel(ctx), "PRAGMA synchronous = NORMAL")
	tx, err := pc.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock=immediate)
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
	c.rs.close()
	c.ws.close()
	return errors.Join(c.ckpt.close(), c.r.Close(), c.w.Close())
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
