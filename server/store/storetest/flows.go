package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/kexlab/kexlab/server/store"
)

func samePending(t *testing.T, got, want store.Pending) {
	t.Helper()
	if got.Kind != want.Kind || got.User != want.User || got.Scheme != want.Scheme {
		t.Errorf("pending = %q %q %q, want %q %q %q", got.Kind, got.User, got.Scheme, want.Kind, want.User, want.Scheme)
	}
	sameBytes(t, "Handle", got.Handle, want.Handle)
	// State is secret: compare it without printing it.
	if string(got.State) != string(want.State) {
		t.Errorf("State differs (%d bytes, want %d)", len(got.State), len(want.State))
	}
	sameTime(t, "Expires", got.Expires, want.Expires)
}

func (s *suite) pendingRoundTrip(t *testing.T) {
	st := s.open(t)
	exp := t0.Add(5 * time.Minute)
	p := pending(1, "alice", exp)
	noErr(t, "PutPending", st.PutPending(ctx(t), p))
	got, err := st.TakePending(ctx(t), p.Handle, exp.Add(-time.Microsecond))
	noErr(t, "TakePending", err)
	samePending(t, got, p)
	_, err = st.TakePending(ctx(t), p.Handle, t0)
	isErr(t, "TakePending again", err, store.ErrNotFound)

	// Empty state, empty handle; nil and empty handles are one handle.
	q := store.Pending{Handle: []byte{}, Kind: "register", User: "bob", Scheme: "opaque-p256", Expires: exp}
	noErr(t, "PutPending (empty handle, nil state)", st.PutPending(ctx(t), q))
	got, err = st.TakePending(ctx(t), nil, t0)
	noErr(t, "TakePending (nil handle)", err)
	q.State = []byte{}
	samePending(t, got, q)
	sameBytes(t, "State", got.State, []byte{})
}

func (s *suite) pendingExists(t *testing.T) {
	st := s.open(t)
	p := pending(1, "alice", t0.Add(time.Minute))
	noErr(t, "PutPending", st.PutPending(ctx(t), p))
	q := pending(1, "mallory", t0.Add(time.Hour))
	isErr(t, "PutPending again", st.PutPending(ctx(t), q), store.ErrExists)
	got, err := st.TakePending(ctx(t), p.Handle, t0)
	noErr(t, "TakePending", err)
	samePending(t, got, p)
	// Taken, the handle is free again.
	noErr(t, "PutPending after TakePending", st.PutPending(ctx(t), q))
}

func (s *suite) pendingUnknown(t *testing.T) {
	st := s.open(t)
	p := pending(1, "alice", t0.Add(time.Minute))
	noErr(t, "PutPending", st.PutPending(ctx(t), p))
	for _, h := range [][]byte{handle(16, 2), p.Handle[:15], append(p.Handle[:16:16], 0), nil} {
		_, err := st.TakePending(ctx(t), h, t0)
		isErr(t, "TakePending of an unknown handle", err, store.ErrNotFound)
	}
	if _, err := st.TakePending(ctx(t), p.Handle, t0); err != nil {
		t.Errorf("TakePending after misses: %v", err)
	}
}

func (s *suite) pendingExpired(t *testing.T) {
	st := s.open(t)
	exp := t0.Add(time.Minute)
	p := pending(1, "alice", exp)
	noErr(t, "PutPending", st.PutPending(ctx(t), p))
	for _, now := range []time.Time{exp, exp.Add(time.Microsecond), exp.Add(time.Hour)} {
		_, err := st.TakePending(ctx(t), p.Handle, now)
		isErr(t, "TakePending at or after Expires", err, store.ErrNotFound)
	}
	n, err := st.PurgeExpired(ctx(t), exp)
	noErr(t, "PurgeExpired", err)
	if n != 1 {
		t.Errorf("PurgeExpired = %d, want 1 (the expired flow is purged, not taken)", n)
	}
}

func (s *suite) pendingRace(t *testing.T) {
	st := s.open(t)
	const n = 16
	for round := range 3 {
		p := pending(round, "alice", t0.Add(time.Minute))
		noErr(t, "PutPending", st.PutPending(ctx(t), p))
		type result struct {
			p   store.Pending
			err error
		}
		res := race(n, func(int) result {
			got, err := st.TakePending(ctx(t), p.Handle, t0)
			return result{got, err}
		})
		wins := 0
		for _, r := range res {
			switch {
			case r.err == nil:
				wins++
				samePending(t, r.p, p)
			case !errors.Is(r.err, store.ErrNotFound):
				t.Errorf("TakePending in a race: %v", r.err)
			}
		}
		if wins != 1 {
			t.Errorf("round %d: %d of %d concurrent TakePending won, want exactly 1", round, wins, n)
		}
	}
}

func (s *suite) pendingRaceMany(t *testing.T) {
	st := s.open(t)
	const handles, per = 8, 4
	for i := range handles {
		noErr(t, "PutPending", st.PutPending(ctx(t), pending(i, "alice", t0.Add(time.Minute))))
	}
	res := race(handles*per, func(i int) error {
		_, err := st.TakePending(ctx(t), handle(16, i%handles), t0)
		return err
	})
	wins := make([]int, handles)
	for i, err := range res {
		switch {
		case err == nil:
			wins[i%handles]++
		case !errors.Is(err, store.ErrNotFound):
			t.Errorf("TakePending in a race: %v", err)
		}
	}
	for h, w := range wins {
		if w != 1 {
			t.Errorf("handle %d taken %d times, want 1", h, w)
		}
	}
}

func (s *suite) purgeExpired(t *testing.T) {
	st := s.open(t)
	noErr(t, "CreateAccount", st.CreateAccount(ctx(t), account("alice")))
	now := t0.Add(time.Hour)
	for i, exp := range []time.Time{now.Add(-time.Hour), now, now.Add(time.Microsecond), now.Add(time.Hour)} {
		noErr(t, "PutPending", st.PutPending(ctx(t), pending(i, "alice", exp)))
		noErr(t, "CreateSession", st.CreateSession(ctx(t), session(i, "alice", exp)))
	}
	n, err := st.PurgeExpired(ctx(t), now)
	noErr(t, "PurgeExpired", err)
	if n != 4 {
		t.Errorf("PurgeExpired = %d, want 4 (2 flows and 2 sessions expired at now)", n)
	}
	n, err = st.PurgeExpired(ctx(t), now)
	noErr(t, "PurgeExpired again", err)
	if n != 0 {
		t.Errorf("PurgeExpired again = %d, want 0", n)
	}
	for i := 2; i < 4; i++ {
		if _, err := st.GetSession(ctx(t), handle(32, i), now); err != nil {
			t.Errorf("GetSession of a live session after PurgeExpired: %v", err)
		}
		if _, err := st.TakePending(ctx(t), handle(16, i), now); err != nil {
			t.Errorf("TakePending of a live flow after PurgeExpired: %v", err)
		}
	}
	for i := range 2 {
		isErr(t, "DeleteSession of a purged session", st.DeleteSession(ctx(t), handle(32, i)), store.ErrNotFound)
	}
	n, err = st.PurgeExpired(ctx(t), now.Add(2*time.Hour))
	noErr(t, "PurgeExpired later", err)
	if n != 2 {
		t.Errorf("PurgeExpired later = %d, want 2 (the sessions left)", n)
	}
}

// purgeIdle: PurgeExpired also drops buckets idle for BucketIdle and
// failure counters idle for FailureIdle, of accounts and of names without
// one alike, and nothing younger (the boundaries to the microsecond).
func (s *suite) purgeIdle(t *testing.T) {
	st := s.open(t)
	now := t0.Add(48 * time.Hour)
	// Two one-token buckets, emptied; a purged one comes back full.
	for key, at := range map[string]time.Time{"old": now.Add(-store.BucketIdle), "young": now.Add(-store.BucketIdle + time.Microsecond)} {
		if ok, _, err := st.TakeToken(ctx(t), key, at, 1e-9, 1); err != nil || !ok {
			t.Fatalf("TakeToken %s = %v, %v", key, ok, err)
		}
	}
	noErr(t, "CreateAccount", st.CreateAccount(ctx(t), account("alice")))
	for user, at := range map[string]time.Time{"alice": t0, "ghost": now.Add(-store.FailureIdle),
		"ghost2": now.Add(-store.FailureIdle + time.Microsecond)} {
		_, err := st.AddFailure(ctx(t), user, at)
		noErr(t, "AddFailure", err)
	}
	n, err := st.PurgeExpired(ctx(t), now)
	noErr(t, "PurgeExpired", err)
	if n != 3 {
		t.Errorf("PurgeExpired = %d, want 3 (the old bucket, alice's and ghost's counters)", n)
	}
	for key, want := range map[string]bool{"old": true, "young": false} {
		if ok, _, err := st.TakeToken(ctx(t), key, now, 1e-9, 1); err != nil || ok != want {
			t.Errorf("TakeToken %s after PurgeExpired = %v, %v; want %v", key, ok, err, want)
		}
	}
	for user, want := range map[string]int{"alice": 0, "ghost": 0, "ghost2": 1} {
		if f, err := st.GetFailures(ctx(t), user); err != nil || f.Count != want {
			t.Errorf("GetFailures %s after PurgeExpired = %+v, %v; want Count %d", user, f, err, want)
		}
	}
}

func sameSession(t *testing.T, got, want store.Session) {
	t.Helper()
	if got.User != want.User {
		t.Errorf("session User = %q, want %q", got.User, want.User)
	}
	sameBytes(t, "TokenHash", got.TokenHash, want.TokenHash)
	sameTime(t, "Created", got.Created, want.Created)
	sameTime(t, "Expires", got.Expires, want.Expires)
}

func (s *suite) sessionRoundTrip(t *testing.T) {
	st := s.open(t)
	noErr(t, "CreateAccount", st.CreateAccount(ctx(t), account("alice")))
	ss := session(1, "alice", t0.Add(24*time.Hour+1234*time.Nanosecond))
	noErr(t, "CreateSession", st.CreateSession(ctx(t), ss))
	for range 2 { // reading does not consume
		got, err := st.GetSession(ctx(t), ss.TokenHash, t0)
		noErr(t, "GetSession", err)
		sameSession(t, got, ss)
	}
	_, err := st.GetSession(ctx(t), handle(32, 2), t0)
	isErr(t, "GetSession of an unknown token", err, store.ErrNotFound)
	_, err = st.GetSession(ctx(t), ss.TokenHash[:31], t0)
	isErr(t, "GetSession of a prefix", err, store.ErrNotFound)
}

func (s *suite) sessionExists(t *testing.T) {
	st := s.open(t)
	for _, u := range []string{"alice", "bob"} {
		noErr(t, "CreateAccount", st.CreateAccount(ctx(t), account(u)))
	}
	ss := session(1, "alice", t0.Add(time.Hour))
	noErr(t, "CreateSession", st.CreateSession(ctx(t), ss))
	isErr(t, "CreateSession again", st.CreateSession(ctx(t), session(1, "bob", t0.Add(2*time.Hour))), store.ErrExists)
	got, err := st.GetSession(ctx(t), ss.TokenHash, t0)
	noErr(t, "GetSession", err)
	sameSession(t, got, ss)
}

func (s *suite) sessionNeedsAccount(t *testing.T) {
	st := s.open(t)
	isErr(t, "CreateSession without an account", st.CreateSession(ctx(t), session(1, "ghost", t0.Add(time.Hour))), store.ErrNotFound)
	_, err := st.GetSession(ctx(t), handle(32, 1), t0)
	isErr(t, "GetSession after a refused CreateSession", err, store.ErrNotFound)
}

func (s *suite) sessionExpires(t *testing.T) {
	st := s.open(t)
	noErr(t, "CreateAccount", st.CreateAccount(ctx(t), account("alice")))
	exp := t0.Add(time.Hour)
	ss := session(1, "alice", exp)
	noErr(t, "CreateSession", st.CreateSession(ctx(t), ss))
	if _, err := st.GetSession(ctx(t), ss.TokenHash, exp.Add(-time.Microsecond)); err != nil {
		t.Errorf("GetSession just before Expires: %v", err)
	}
	for _, now := range []time.Time{exp, exp.Add(time.Microsecond), exp.Add(time.Hour)} {
		_, err := st.GetSession(ctx(t), ss.TokenHash, now)
		isErr(t, "GetSession at or after Expires", err, store.ErrNotFound)
	}
	// Expired is not deleted: logout of an expired session still removes it.
	noErr(t, "DeleteSession of an expired session", st.DeleteSession(ctx(t), ss.TokenHash))
}

func (s *suite) deleteSession(t *testing.T) {
	st := s.open(t)
	noErr(t, "CreateAccount", st.CreateAccount(ctx(t), account("alice")))
	for i := range 2 {
		noErr(t, "CreateSession", st.CreateSession(ctx(t), session(i, "alice", t0.Add(time.Hour))))
	}
	noErr(t, "DeleteSession", st.DeleteSession(ctx(t), handle(32, 0)))
	_, err := st.GetSession(ctx(t), handle(32, 0), t0)
	isErr(t, "GetSession after DeleteSession", err, store.ErrNotFound)
	isErr(t, "DeleteSession again", st.DeleteSession(ctx(t), handle(32, 0)), store.ErrNotFound)
	isErr(t, "DeleteSession of an unknown token", st.DeleteSession(ctx(t), handle(32, 7)), store.ErrNotFound)
	if _, err := st.GetSession(ctx(t), handle(32, 1), t0); err != nil {
		t.Errorf("GetSession of the other session: %v", err)
	}
}

func (s *suite) deleteSessions(t *testing.T) {
	st := s.open(t)
	for _, u := range []string{"alice", "bob"} {
		noErr(t, "CreateAccount", st.CreateAccount(ctx(t), account(u)))
	}
	users := []string{"alice", "bob", "alice", "alice"}
	for i, u := range users {
		exp := t0.Add(time.Hour)
		if i == 3 {
			exp = t0.Add(-time.Hour) // expired, not yet purged: counted
		}
		noErr(t, "CreateSession", st.CreateSession(ctx(t), session(i, u, exp)))
	}
	n, err := st.DeleteSessions(ctx(t), "alice")
	noErr(t, "DeleteSessions", err)
	if n != 3 {
		t.Errorf("DeleteSessions = %d, want 3", n)
	}
	for i, u := range users {
		_, err := st.GetSession(ctx(t), handle(32, i), t0.Add(-2*time.Hour))
		if u == "alice" {
			isErr(t, "GetSession after DeleteSessions", err, store.ErrNotFound)
		} else if err != nil {
			t.Errorf("GetSession of another user after DeleteSessions: %v", err)
		}
	}
	for _, u := range []string{"alice", "nobody"} {
		n, err = st.DeleteSessions(ctx(t), u)
		noErr(t, "DeleteSessions", err)
		if n != 0 {
			t.Errorf("DeleteSessions(%q) = %d, want 0", u, n)
		}
	}
	if _, err := st.GetAccount(ctx(t), "alice"); err != nil {
		t.Errorf("GetAccount after DeleteSessions: %v", err)
	}
}
