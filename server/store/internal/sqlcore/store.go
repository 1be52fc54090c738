package sqlcore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kexlab/kexlab/server/store"
)

// Store implements store.Store on a DB. The tables it uses are the ones
// every Dialect's migrations create:
//
//	accounts (username PK, scheme, record, params, created, updated)
//	pending  (handle PK, kind, username, scheme, state, expires)
//	sessions (token_hash PK, username -> accounts ON DELETE CASCADE, created, expires)
//	failures (username PK, fails, last_failure)
//	buckets  (bucket PK, tokens, updated)
type Store struct {
	db DB
	d  Dialect

	closeOnce sync.Once
	closeErr  error
}

var _ store.Store = (*Store)(nil)

// New migrates db's schema (Migrate) and returns the store on it. On error
// db is left open: the caller closes it.
func New(ctx context.Context, db DB, d Dialect) (*Store, error) {
	if _, _, err := Migrate(ctx, db, d); err != nil {
		return nil, err
	}
	return &Store{db: db, d: d}, nil
}

// fail wraps err with the dialect's name and the operation.
func (s *Store) fail(op string, err error) error {
	return fmt.Errorf("%s: %s: %w", s.d.Name, op, err)
}

// CreateAccount implements store.Store.
func (s *Store) CreateAccount(ctx context.Context, a store.Account) error {
	const op = "create account"
	if err := checkStrings("user", a.User, "scheme", a.Scheme); err != nil {
		return s.fail(op, err)
	}
	if err := errors.Join(checkTime("created", a.Created), checkTime("updated", a.Updated)); err != nil {
		return s.fail(op, err)
	}
	err := s.db.Durable(ctx, func(q Querier) error {
		_, err := q.Exec(ctx, `INSERT INTO accounts (username, scheme, record, params, created, updated)
			VALUES ($1, $2, $3, $4, $5, $6)`,
			a.User, a.Scheme, blob(a.Record), blob(a.Params), a.Created, a.Updated)
		return err
	})
	if err != nil {
		if s.d.IsUnique(err) {
			return s.fail(op, store.ErrExists)
		}
		return s.fail(op, err)
	}
	return nil
}

// GetAccount implements store.Store.
func (s *Store) GetAccount(ctx context.Context, user string) (store.Account, error) {
	const op = "get account"
	if err := checkString("user", user); err != nil {
		return store.Account{}, s.fail(op, err)
	}
	a := store.Account{User: user}
	err := s.db.Read(ctx, `SELECT scheme, record, params, created, updated FROM accounts WHERE username = $1`,
		user).Scan(&a.Scheme, &a.Record, &a.Params, &a.Created, &a.Updated)
	if err != nil {
		if errors.Is(err, ErrNoRows) {
			return store.Account{}, s.fail(op, store.ErrNotFound)
		}
		return store.Account{}, s.fail(op, err)
	}
	a.Record, a.Params = blob(a.Record), blob(a.Params)
	a.Created, a.Updated = a.Created.UTC(), a.Updated.UTC()
	return a, nil
}

// GetParams implements store.Store. It reads the two columns only: the
// record (832 bytes for apakepq) would make a found account measurably
// slower to answer than a missing one.
func (s *Store) GetParams(ctx context.Context, user string) (string, []byte, error) {
	const op = "get params"
	if err := checkString("user", user); err != nil {
		return "", nil, s.fail(op, err)
	}
	var scheme string
	var params []byte
	err := s.db.Read(ctx, `SELECT scheme, params FROM accounts WHERE username = $1`, user).Scan(&scheme, &params)
	if errors.Is(err, ErrNoRows) {
		return "", nil, s.fail(op, store.ErrNotFound)
	}
	if err != nil {
		return "", nil, s.fail(op, err)
	}
	return scheme, blob(params), nil
}

// UpdateAccount implements store.Store.
func (s *Store) UpdateAccount(ctx context.Context, a store.Account) error {
	const op = "update account"
	if err := checkStrings("user", a.User, "scheme", a.Scheme); err != nil {
		return s.fail(op, err)
	}
	if err := checkTime("updated", a.Updated); err != nil {
		return s.fail(op, err)
	}
	err := s.db.Durable(ctx, func(q Querier) error {
		n, err := q.Exec(ctx, `UPDATE accounts SET scheme = $2, record = $3, params = $4, updated = $5
			WHERE username = $1`,
			a.User, a.Scheme, blob(a.Record), blob(a.Params), a.Updated)
		if err == nil && n == 0 {
			err = store.ErrNotFound
		}
		for _, stmt := range []string{`DELETE FROM sessions WHERE username = $1`, `DELETE FROM pending WHERE username = $1`} {
			if err == nil {
				_, err = q.Exec(ctx, stmt, a.User)
			}
		}
		return err
	})
	if err != nil {
		return s.fail(op, err)
	}
	return nil
}

// DeleteAccount implements store.Store. The account's sessions go with it
// through the foreign key (ON DELETE CASCADE), which also removes a session
// that a login finishing at the same moment commits.
func (s *Store) DeleteAccount(ctx context.Context, user string) error {
	const op = "delete account"
	if err := checkString("user", user); err != nil {
		return s.fail(op, err)
	}
	err := s.db.Durable(ctx, func(q Querier) error {
		n, err := q.Exec(ctx, `DELETE FROM accounts WHERE username = $1`, user)
		if err != nil {
			return err
		}
		if n == 0 {
			return store.ErrNotFound
		}
		if _, err := q.Exec(ctx, `DELETE FROM pending WHERE username = $1`, user); err != nil {
			return err
		}
		_, err = q.Exec(ctx, `DELETE FROM failures WHERE username = $1`, user)
		return err
	})
	if err != nil {
		return s.fail(op, err)
	}
	return nil
}

// PutPending implements store.Store.
func (s *Store) PutPending(ctx context.Context, p store.Pending) error {
	const op = "put pending"
	if err := checkStrings("kind", p.Kind, "user", p.User, "scheme", p.Scheme); err != nil {
		return s.fail(op, err)
	}
	if err := checkTime("expires", p.Expires); err != nil {
		return s.fail(op, err)
	}
	_, err := s.db.Exec(ctx, `INSERT INTO pending (handle, kind, username, scheme, state, expires)
		VALUES ($1, $2, $3, $4, $5, $6)`,
		blob(p.Handle), p.Kind, p.User, p.Scheme, blob(p.State), p.Expires)
	if err != nil {
		if s.d.IsUnique(err) {
			return s.fail(op, store.ErrExists)
		}
		return s.fail(op, err)
	}
	return nil
}

// TakePending implements store.Store: one DELETE ... RETURNING, so that of
// concurrent takers exactly one gets the row.
func (s *Store) TakePending(ctx context.Context, handle []byte, now time.Time) (store.Pending, error) {
	const op = "take pending"
	if err := checkTime("now", now); err != nil {
		return store.Pending{}, s.fail(op, err)
	}
	p := store.Pending{Handle: append([]byte{}, handle...)}
	err := s.db.QueryRow(ctx, `DELETE FROM pending WHERE handle = $1 AND expires > $2
		RETURNING kind, username, scheme, state, expires`,
		blob(handle), now).Scan(&p.Kind, &p.User, &p.Scheme, &p.State, &p.Expires)
	if err != nil {
		if errors.Is(err, ErrNoRows) {
			return store.Pending{}, s.fail(op, store.ErrNotFound)
		}
		return store.Pending{}, s.fail(op, err)
	}
	p.State = blob(p.State)
	p.Expires = p.Expires.UTC()
	return p, nil
}

// PurgeExpired implements store.Store.
func (s *Store) PurgeExpired(ctx context.Context, now time.Time) (int, error) {
	const op = "purge expired"
	if err := checkTime("now", now); err != nil {
		return 0, s.fail(op, err)
	}
	// Each delete on its own (autocommit): they need not be atomic, and
	// one transaction over all four would lock pending and then sessions,
	// the opposite order of DeleteAccount (sessions by its cascade, then
	// pending) — a deadlock on PostgreSQL — and hold SQLite's one writer
	// for the whole purge.
	var total int64
	for _, d := range []struct {
		stmt   string
		before time.Time
	}{
		{`DELETE FROM pending WHERE expires <= $1`, now},
		{`DELETE FROM sessions WHERE expires <= $1`, now},
		{`DELETE FROM buckets WHERE updated <= $1`, now.Add(-store.BucketIdle)},
		{`DELETE FROM failures WHERE last_failure <= $1`, now.Add(-store.FailureIdle)},
	} {
		n, err := s.db.Exec(ctx, d.stmt, d.before)
		if err != nil {
			return int(total), s.fail(op, err)
		}
		total += n
	}
	return int(total), nil
}

// CreateSession implements store.Store.
func (s *Store) CreateSession(ctx context.Context, ss store.Session) error {
	const op = "create session"
	if err := checkString("user", ss.User); err != nil {
		return s.fail(op, err)
	}
	if err := errors.Join(checkTime("created", ss.Created), checkTime("expires", ss.Expires)); err != nil {
		return s.fail(op, err)
	}
	// One transaction: the session and the end of the failure count it
	// proves (a session is what a successful login makes).
	err := s.db.Tx(ctx, func(q Querier) error {
		if _, err := q.Exec(ctx, `INSERT INTO sessions (token_hash, username, created, expires) VALUES ($1, $2, $3, $4)`,
			blob(ss.TokenHash), ss.User, ss.Created, ss.Expires); err != nil {
			return err
		}
		_, err := q.Exec(ctx, `DELETE FROM failures WHERE username = $1`, ss.User)
		return err
	})
	switch {
	case err == nil:
		return nil
	case s.d.IsUnique(err):
		return s.fail(op, store.ErrExists)
	case s.d.IsForeignKey(err):
		return s.fail(op, fmt.Errorf("no account for the session's user: %w", store.ErrNotFound))
	}
	return s.fail(op, err)
}

// GetSession implements store.Store.
func (s *Store) GetSession(ctx context.Context, tokenHash []byte, now time.Time) (store.Session, error) {
	const op = "get session"
	if err := checkTime("now", now); err != nil {
		return store.Session{}, s.fail(op, err)
	}
	ss := store.Session{TokenHash: append([]byte{}, tokenHash...)}
	err := s.db.Read(ctx, `SELECT username, created, expires FROM sessions WHERE token_hash = $1 AND expires > $2`,
		blob(tokenHash), now).Scan(&ss.User, &ss.Created, &ss.Expires)
	if err != nil {
		if errors.Is(err, ErrNoRows) {
			return store.Session{}, s.fail(op, store.ErrNotFound)
		}
		return store.Session{}, s.fail(op, err)
	}
	ss.Created, ss.Expires = ss.Created.UTC(), ss.Expires.UTC()
	return ss, nil
}

// DeleteSession implements store.Store.
func (s *Store) DeleteSession(ctx context.Context, tokenHash []byte) error {
	const op = "delete session"
	n, err := s.db.Exec(ctx, `DELETE FROM sessions WHERE token_hash = $1`, blob(tokenHash))
	if err != nil {
		return s.fail(op, err)
	}
	if n == 0 {
		return s.fail(op, store.ErrNotFound)
	}
	return nil
}

// DeleteSessions implements store.Store.
func (s *Store) DeleteSessions(ctx context.Context, user string) (int, error) {
	const op = "delete sessions"
	if err := checkString("user", user); err != nil {
		return 0, s.fail(op, err)
	}
	n, err := s.db.Exec(ctx, `DELETE FROM sessions WHERE username = $1`, user)
	if err != nil {
		return 0, s.fail(op, err)
	}
	return int(n), nil
}

// GetFailures implements store.Store.
func (s *Store) GetFailures(ctx context.Context, user string) (store.Failures, error) {
	const op = "get failures"
	if err := checkString("user", user); err != nil {
		return store.Failures{}, s.fail(op, err)
	}
	f, err := scanFailures(s.db.Read(ctx, `SELECT fails, last_failure FROM failures WHERE username = $1`, user))
	if errors.Is(err, ErrNoRows) {
		return store.Failures{}, nil
	}
	if err != nil {
		return store.Failures{}, s.fail(op, err)
	}
	return f, nil
}

// addFailure increments user's counter: one INSERT ... ON CONFLICT DO
// UPDATE ... RETURNING, so that concurrent increments all count.
const addFailure = `INSERT INTO failures (username, fails, last_failure) VALUES ($1, 1, $2)
	ON CONFLICT (username) DO UPDATE SET fails = failures.fails + 1, last_failure = excluded.last_failure
	RETURNING fails, last_failure`

// AddFailure implements store.Store (addFailure, on its own).
func (s *Store) AddFailure(ctx context.Context, user string, now time.Time) (store.Failures, error) {
	const op = "add failure"
	if err := errors.Join(checkString("user", user), checkTime("now", now)); err != nil {
		return store.Failures{}, s.fail(op, err)
	}
	f, err := scanFailures(s.db.QueryRow(ctx, addFailure, user, now))
	if err != nil {
		return store.Failures{}, s.fail(op, err)
	}
	return f, nil
}

// lockFailures reads user's counter, creating it at zero if it is new, and
// locks its row until the transaction ends: one upsert, which always
// returns a row. (An INSERT ... DO NOTHING followed by SELECT ... FOR
// UPDATE left a window in which a successful login on another instance
// deleted the counter — ResetFailures — and the SELECT found no row: a
// 500 under load through a balancer, about 1 login in 300.)
//
// A counter whose last failure is older than store.FailureIdle ($3, the
// cutoff) starts again from zero here, as the purge would have deleted it:
// an account's lock-out ends after a day whether or not an instance purges.
const lockFailures = `INSERT INTO failures (username, fails, last_failure) VALUES ($1, 0, $2)
	ON CONFLICT (username) DO UPDATE SET fails = CASE WHEN failures.last_failure < $3 THEN 0 ELSE failures.fails END
	RETURNING fails, last_failure`

// StartAttempt implements store.Store: in one write transaction, read the
// counter locked (lockFailures), ask allow, and increment it (addFailure).
// A refusal rolls everything back.
func (s *Store) StartAttempt(ctx context.Context, user string, now time.Time, allow func(store.Failures) error) (store.Failures, error) {
	const op = "start attempt"
	if err := errors.Join(checkString("user", user), checkTime("now", now)); err != nil {
		return store.Failures{}, s.fail(op, err)
	}
	var (
		f       store.Failures
		refusal error
	)
	err := s.db.Tx(ctx, func(q Querier) error {
		cur, err := scanFailures(q.QueryRow(ctx, lockFailures, user, now, now.Add(-store.FailureIdle)))
		if err != nil {
			return err
		}
		if cur.Count == 0 {
			cur.Last = time.Time{} // the row made above: no failure yet
		}
		if refusal = allow(cur); refusal != nil {
			return refusal
		}
		f, err = scanFailures(q.QueryRow(ctx, addFailure, user, now))
		return err
	})
	if refusal != nil {
		return store.Failures{}, refusal
	}
	if err != nil {
		return store.Failures{}, s.fail(op, err)
	}
	return f, nil
}

// scanFailures reads a (fails, last_failure) row.
func scanFailures(r Row) (store.Failures, error) {
	var (
		n    int64
		last time.Time
	)
	if err := r.Scan(&n, &last); err != nil {
		return store.Failures{}, err
	}
	return store.Failures{Count: int(n), Last: last.UTC()}, nil
}

// ResetFailures implements store.Store: a counter at zero is no row.
func (s *Store) ResetFailures(ctx context.Context, user string) error {
	const op = "reset failures"
	if err := checkString("user", user); err != nil {
		return s.fail(op, err)
	}
	if _, err := s.db.Exec(ctx, `DELETE FROM failures WHERE username = $1`, user); err != nil {
		return s.fail(op, err)
	}
	return nil
}

// TakeToken implements store.Store: in one write transaction, read the
// bucket (locked; created full first if it is new), refill and take
// (take), and write it back. rate must be positive and finite and burst at least 1.
func (s *Store) TakeToken(ctx context.Context, key string, now time.Time, rate float64, burst int) (bool, time.Duration, error) {
	const op = "take token"
	if err := checkString("key", key); err != nil {
		return false, 0, s.fail(op, err)
	}
	if err := errors.Join(checkTime("now", now), checkBucket(rate, burst)); err != nil {
		return false, 0, s.fail(op, err)
	}
	nowUS := now.UnixMicro()
	var (
		ok   bool
		wait time.Duration
	)
	err := s.db.Tx(ctx, func(q Querier) error {
		var (
			b       bucket
			updated time.Time
		)
		read := func() error {
			return q.QueryRow(ctx, `SELECT tokens, updated FROM buckets WHERE bucket = $1`+s.d.ForUpdate,
				key).Scan(&b.tokens, &updated)
		}
		// A known bucket (the usual case) takes two statements. A new one is
		// created full first, and read again locked: of two transactions
		// creating one bucket, the second waits for the first's row.
		err := read()
		if errors.Is(err, ErrNoRows) {
			if _, err := q.Exec(ctx, `INSERT INTO buckets (bucket, tokens, updated) VALUES ($1, $2, $3)
				ON CONFLICT (bucket) DO NOTHING`, key, float64(burst), time.UnixMicro(nowUS)); err != nil {
				return err
			}
			err = read()
		}
		if err != nil {
			return err
		}
		b.updated = updated.UnixMicro()
		b, ok, wait = take(b, nowUS, rate, burst)
		_, err = q.Exec(ctx, `UPDATE buckets SET tokens = $2, updated = $3 WHERE bucket = $1`,
			key, b.tokens, time.UnixMicro(b.updated))
		return err
	})
	if err != nil {
		return false, 0, s.fail(op, err)
	}
	return ok, wait, nil
}

// Ping implements store.Store.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.Ping(ctx); err != nil {
		return s.fail("ping", err)
	}
	return nil
}

// Close implements store.Store. Closing again returns the first Close's
// result; any other method on a closed store fails (it does not panic).
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if err := s.db.Close(); err != nil {
			s.closeErr = s.fail("close", err)
		}
	})
	return s.closeErr
}
