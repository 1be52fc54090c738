// Package storetest is the one test suite of store.Store that every
// implementation passes (server/store/sqlite, server/store/postgres).
//
// An implementation's test calls Run with a function that opens a store on
// a fresh, empty database; with the Reopen option it also runs the tests
// that open one database more than once (durability across Close and
// Open, several instances sharing a database, instances migrating a fresh
// database at the same moment):
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, open, storetest.Reopen(fresh))
//	}
//
// The suite checks the contract of store.Store as its documentation states
// it, the conventions in the package documentation of store included
// (times in UTC to the microsecond, expiry at Expires, nil and empty byte
// slices alike, exact names, invalid arguments, Close), and that a session
// needs an account.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kexlab/kexlab/server/store"
)

// Option configures Run.
type Option func(*config)

type config struct {
	fresh func(t *testing.T) func() (store.Store, error)
}

// Reopen enables the tests that open one database more than once. fresh
// creates a new, empty database (removed when t ends) and returns a
// function that opens a store on it; each call opens it again, and several
// stores it opened may be open at once. Run closes the stores it gets.
func Reopen(fresh func(t *testing.T) (open func() (store.Store, error))) Option {
	return func(c *config) { c.fresh = fresh }
}

type suite struct {
	open func(t *testing.T) store.Store
	config
}

// Run runs the suite. open returns a store on a fresh, empty database
// each time it is called (failing t if it cannot); Run closes it when the
// subtest that opened it ends.
func Run(t *testing.T, open func(t *testing.T) store.Store, opts ...Option) {
	s := suite{open: func(t *testing.T) store.Store {
		t.Helper()
		st := open(t)
		t.Cleanup(func() { st.Close() })
		return st
	}}
	for _, o := range opts {
		o(&s.config)
	}
	for _, tc := range []struct {
		name string
		fn   func(*testing.T)
	}{
		{"AccountRoundTrip", s.accountRoundTrip},
		{"AccountExists", s.accountExists},
		{"AccountNotFound", s.accountNotFound},
		{"AccountUpdate", s.accountUpdate},
		{"AccountUpdateEnds", s.accountUpdateEnds},
		{"AccountNilAndEmpty", s.accountNilAndEmpty},
		{"AccountNamesExact", s.accountNamesExact},
		{"DeleteAccountCascades", s.deleteAccountCascades},
		{"PendingRoundTrip", s.pendingRoundTrip},
		{"PendingExists", s.pendingExists},
		{"PendingUnknown", s.pendingUnknown},
		{"PendingExpired", s.pendingExpired},
		{"PendingRace", s.pendingRace},
		{"PendingRaceMany", s.pendingRaceMany},
		{"PurgeExpired", s.purgeExpired},
		{"PurgeIdle", s.purgeIdle},
		{"SessionRoundTrip", s.sessionRoundTrip},
		{"SessionExists", s.sessionExists},
		{"SessionNeedsAccount", s.sessionNeedsAccount},
		{"SessionExpires", s.sessionExpires},
		{"DeleteSession", s.deleteSession},
		{"DeleteSessions", s.deleteSessions},
		{"Failures", s.failures},
		{"SessionResetsFailures", s.sessionResetsFailures},
		{"StartAttempt", s.startAttempt},
		{"StartAttemptRace", s.startAttemptRace},
		{"StartAttemptVsReset", s.startAttemptVsReset},
		{"StartAttemptIdle", s.startAttemptIdle},
		{"AddFailureRace", s.addFailureRace},
		{"TakeTokenBurst", s.takeTokenBurst},
		{"TakeTokenRefillCap", s.takeTokenRefillCap},
		{"TakeTokenWait", s.takeTokenWait},
		{"TakeTokenKeys", s.takeTokenKeys},
		{"TakeTokenBurstChange", s.takeTokenBurstChange},
		{"TakeTokenClockBack", s.takeTokenClockBack},
		{"TakeTokenInvalid", s.takeTokenInvalid},
		{"TakeTokenRace", s.takeTokenRace},
		{"Times", s.times},
		{"InvalidArguments", s.invalidArguments},
		{"CanceledContext", s.canceledContext},
		{"PingClose", s.pingClose},
		{"Durable", s.durable},
		{"TwoInstances", s.twoInstances},
		{"ConcurrentOpen", s.concurrentOpen},
	} {
		t.Run(tc.name, tc.fn)
	}
}

// reopen returns an opener of a fresh database, or skips t without the
// Reopen option.
func (s *suite) reopen(t *testing.T) func() store.Store {
	t.Helper()
	if s.fresh == nil {
		t.Skip("no storetest.Reopen hook: the implementation's test cannot open one database twice")
	}
	open := s.fresh(t)
	return func() store.Store {
		t.Helper()
		st, err := open()
		if err != nil {
			t.Fatalf("open again: %v", err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
}

// t0 is the suite's "now": nanoseconds and a zone that is not UTC, to
// check that both are handled.
var t0 = time.Date(2031, 5, 6, 7, 8, 9, 123456789, time.FixedZone("UTC+2", 2*60*60))

// us is t as the store returns it: UTC, truncated to the microsecond.
func us(t time.Time) time.Time { return t.Truncate(time.Microsecond).UTC() }

// sameTime fails t unless got is want as the store returns it, in UTC.
func sameTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if !got.Equal(us(want)) || got.Location() != time.UTC {
		t.Errorf("%s = %v, want %v (UTC, microseconds)", what, got, us(want))
	}
}

// isErr fails t unless errors.Is(err, target).
func isErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: err = %v, want %v", what, err, target)
	}
}

// noErr fails t now if err is not nil.
func noErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// plainErr fails t unless err is an error that is neither ErrNotFound nor
// ErrExists.
func plainErr(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil || errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrExists) {
		t.Errorf("%s: err = %v, want an error other than ErrNotFound and ErrExists", what, err)
	}
}

func sameBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Errorf("%s = %x, want %x", what, got, want)
	}
	if got == nil {
		t.Errorf("%s is nil, want a non-nil slice", what)
	}
}

// allBytes is 0x00..0xff twice: every byte value, NUL included.
func allBytes() []byte {
	b := make([]byte, 512)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// handle is a 16-byte flow handle or 32-byte token hash made from i.
func handle(n, i int) []byte {
	h := bytes.Repeat([]byte{0xa5}, n)
	copy(h, fmt.Sprintf("%08x", i))
	return h
}

func account(user string) store.Account {
	return store.Account{
		User:    user,
		Scheme:  "spake2plus-p256",
		Record:  append(allBytes(), user...),
		Params:  []byte(`{"m":65536,"t":3}`),
		Created: t0,
		Updated: t0.Add(time.Second),
	}
}

func pending(i int, user string, expires time.Time) store.Pending {
	return store.Pending{
		Handle:  handle(16, i),
		Kind:    "login",
		User:    user,
		Scheme:  "opaque-p256",
		State:   append(allBytes(), byte(i)),
		Expires: expires,
	}
}

func session(i int, user string, expires time.Time) store.Session {
	return store.Session{TokenHash: handle(32, i), User: user, Created: t0, Expires: expires}
}

// race runs f(i) for i < n in n goroutines released together and returns
// their results.
func race[T any](n int, f func(i int) T) []T {
	out := make([]T, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = f(i)
		}()
	}
	close(start)
	wg.Wait()
	return out
}

func ctx(t *testing.T) context.Context { return t.Context() }
