// Package store is the persistence interface of the PAKE authentication
// service (package server): accounts and their PAKE records, the state of
// flows between HTTP rounds, session tokens, and the counters that throttle
// online guessing. Everything that must outlive one request lives here and
// never in a server process's memory, so any number of instances behind a
// load balancer serve the same users (design.md, "The PAKE service").
//
// Two implementations pass the one suite in server/store/storetest:
// server/store/sqlite (embedded, the default) and server/store/postgres
// (github.com/jackc/pgx, to scale out). Both create and migrate their
// schema on Open.
//
// Every method takes the current time from its caller where time matters,
// so that tests and several instances agree on one clock source per call.
// Errors are ErrNotFound, ErrExists or a wrapped driver error; a method
// that returns nil has committed its change before it returns. Account
// changes (CreateAccount, UpdateAccount, DeleteAccount) are durable across
// a power loss (SQLite: WAL with synchronous=FULL; PostgreSQL: every
// commit); on SQLite the others — flows, sessions, counters, buckets —
// reach the WAL with synchronous=NORMAL: they survive the process dying,
// and the last of them may be lost when the machine does.
//
// Conventions every implementation follows (storetest checks them):
//   - Times come back in UTC, truncated to the microsecond. A pending flow
//     or session is live at now while now < Expires; at Expires it has
//     expired.
//   - Byte fields come back byte for byte, as non-nil slices; nil and
//     empty are one value (a nil handle names the same flow as an empty
//     one).
//   - Strings (users, schemes, kinds, bucket keys) are compared exactly:
//     the server normalises names before they reach the store.
//   - Arguments no implementation can store fail with an error that is
//     neither ErrNotFound nor ErrExists: strings that are not UTF-8 or
//     contain NUL, times outside the years 1 to 9999, a TakeToken rate
//     that is not positive and finite or a burst below 1.
//   - Close may be called more than once; after it, methods fail.
package store

import (
	"context"
	"errors"
	"time"
)

// Errors of the store. Implementations wrap them; test with errors.Is.
var (
	ErrNotFound = errors.New("store: not found")
	ErrExists   = errors.New("store: already exists")
)

// Account is one user's registration.
type Account struct {
	User   string // the account name, as the server normalised it; primary key
	Scheme string // the scheme and suite the record belongs to, e.g. "srp-3072"
	Record []byte // the scheme's registration record (never a password)
	// Params is the per-account key-stretching configuration (JSON, the
	// server's business) stored with the record so that it can be raised
	// later.
	Params  []byte
	Created time.Time
	Updated time.Time
}

// Pending is the state of a flow between two HTTP rounds (a login or a
// registration started and not yet finished), stored under a random
// 128-bit handle the server issued. Take claims it exactly once.
type Pending struct {
	Handle  []byte // 16 random bytes; primary key
	Kind    string // e.g. "login", "register"
	User    string
	Scheme  string
	State   []byte // the server party's serialised state (secret: stored as given)
	Expires time.Time
}

// Session is a login session. The token itself is never stored: only its
// SHA-256 (TokenHash).
type Session struct {
	TokenHash []byte // 32 bytes; primary key
	User      string
	Created   time.Time
	Expires   time.Time
}

// Failures is the online-guessing counter of one account.
type Failures struct {
	Count int       // consecutive failures since the last success
	Last  time.Time // time of the last failure (zero if Count is 0)
}

// What PurgeExpired removes besides expired flows and sessions.
const (
	// BucketIdle: a token bucket untouched this long is dropped; a new
	// bucket is full, as is by then any bucket whose rate refills its
	// burst within BucketIdle.
	BucketIdle = time.Hour
	// FailureIdle: a failure counter is dropped this long after its last
	// failure — alike for accounts and for names without one, so that
	// the counters do not tell them apart; a locked account opens again
	// after a day without a counted failure.
	FailureIdle = 24 * time.Hour
)

// Store is what the service keeps. All methods are safe for concurrent use
// by any number of goroutines and processes sharing the database.
type Store interface {
	// CreateAccount adds a. It fails with ErrExists if a.User is taken.
	CreateAccount(ctx context.Context, a Account) error
	// GetAccount returns the account of user, or ErrNotFound.
	GetAccount(ctx context.Context, user string) (Account, error)
	// GetParams returns the scheme and KDF parameters of user's account
	// (the first login round's answer needs no more), or ErrNotFound.
	GetParams(ctx context.Context, user string) (scheme string, params []byte, err error)
	// UpdateAccount replaces the scheme, record, params and Updated of an
	// existing account (password change, re-registration) and, in the same
	// transaction, removes the account's sessions and pending flows: what
	// the old record started ends with it. It fails with ErrNotFound if
	// there is no such account.
	UpdateAccount(ctx context.Context, a Account) error
	// DeleteAccount removes user's account, sessions, pending flows and
	// failure counter, or fails with ErrNotFound.
	DeleteAccount(ctx context.Context, user string) error

	// PutPending stores p; a handle already present fails with ErrExists.
	PutPending(ctx context.Context, p Pending) error
	// TakePending atomically removes and returns the pending flow of
	// handle if it has not expired at now. Of any number of concurrent
	// calls for one handle, at most one succeeds; the others, and calls for
	// an unknown or expired handle, fail with ErrNotFound.
	TakePending(ctx context.Context, handle []byte, now time.Time) (Pending, error)
	// PurgeExpired removes (not atomically: each kind on its own) pending
	// flows and sessions that expired before
	// now (Expires <= now: expired at now), token buckets last updated
	// BucketIdle or longer before now, and failure counters whose last
	// failure is FailureIdle or longer before now, and returns how many
	// rows it removed.
	PurgeExpired(ctx context.Context, now time.Time) (int, error)

	// CreateSession stores s and, in the same transaction, resets
	// s.User's failure counter (a session is what a successful login
	// makes). A token hash already present fails with ErrExists, and a
	// user without an account (deleted meanwhile) with ErrNotFound: a
	// session never outlives its account. A failed call changes nothing.
	CreateSession(ctx context.Context, s Session) error
	// GetSession returns the session of tokenHash if it has not expired
	// at now, or ErrNotFound.
	GetSession(ctx context.Context, tokenHash []byte, now time.Time) (Session, error)
	// DeleteSession removes one session (logout), or fails with
	// ErrNotFound.
	DeleteSession(ctx context.Context, tokenHash []byte) error
	// DeleteSessions removes every session of user (password change,
	// revocation) and returns how many there were (expired ones not yet
	// purged included).
	DeleteSessions(ctx context.Context, user string) (int, error)

	// GetFailures returns user's counter (zero if none; unknown users
	// have counters too, so that they throttle alike).
	GetFailures(ctx context.Context, user string) (Failures, error)
	// AddFailure atomically increments user's counter, sets Last to now,
	// and returns the new counter.
	AddFailure(ctx context.Context, user string, now time.Time) (Failures, error)
	// StartAttempt is AddFailure behind a check: in one transaction it
	// reads user's counter and calls allow with it; if allow returns an
	// error, nothing changes and StartAttempt returns that error; otherwise
	// it increments the counter (Last = now) and returns the new one.
	// Concurrent calls for one user are serialised, so that every allow
	// sees every attempt counted before it (no burst of concurrent starts
	// gets past a limit). allow must be quick and must not call the store.
	StartAttempt(ctx context.Context, user string, now time.Time, allow func(Failures) error) (Failures, error)
	// ResetFailures sets user's counter to zero.
	ResetFailures(ctx context.Context, user string) error

	// TakeToken takes one token from the bucket key (e.g. "addr:127.0.0.1"
	// or "register"), which refills at rate tokens per second up to burst.
	// It returns whether a token was taken and, if not, how long until one
	// is available (in whole microseconds: the least wait after which a
	// call with the same rate gets a token). The bucket's state is updated
	// atomically. A new bucket is full; rate and burst are the caller's
	// on each call (a smaller burst caps what the bucket holds), and a now
	// before the bucket's last update refills nothing.
	TakeToken(ctx context.Context, key string, now time.Time, rate float64, burst int) (ok bool, wait time.Duration, err error)

	// Ping reports whether the database answers (readiness).
	Ping(ctx context.Context) error
	// Close releases the database.
	Close() error
}
