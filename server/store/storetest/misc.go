package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kexlab/kexlab/server/store"
)

func (s *suite) times(t *testing.T) {
	st := s.open(t)
	for i, tm := range []time.Time{
		t0,
		time.Date(1969, 12, 31, 23, 59, 59, 999999999, time.UTC), // before 1970: negative microseconds
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),                 // time.Time{}
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2024, 3, 31, 2, 30, 0, 1000, time.FixedZone("", -(9*3600+30*60))),
		time.Now(), // with a monotonic reading
	} {
		user := fmt.Sprint("user", i)
		a := account(user)
		a.Created, a.Updated = tm, tm
		noErr(t, "CreateAccount", st.CreateAccount(ctx(t), a))
		got, err := st.GetAccount(ctx(t), user)
		noErr(t, "GetAccount", err)
		sameTime(t, "Created", got.Created, tm)
		sameTime(t, "Updated", got.Updated, tm)
	}
	a := account("zero")
	a.Created = time.Time{}
	noErr(t, "CreateAccount", st.CreateAccount(ctx(t), a))
	got, err := st.GetAccount(ctx(t), "zero")
	noErr(t, "GetAccount", err)
	if !got.Created.IsZero() {
		t.Errorf("zero Created came back as %v", got.Created)
	}

	for _, bad := range []time.Time{
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(0, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(-4000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Unix(1<<62, 0),
	} {
		a := account("bad")
		a.Created = bad
		plainErr(t, "CreateAccount with Created "+bad.String(), st.CreateAccount(ctx(t), a))
		_, err := st.TakePending(ctx(t), handle(16, 1), bad)
		plainErr(t, "TakePending at "+bad.String(), err)
		_, _, err = st.TakeToken(ctx(t), "k", bad, 1, 1)
		plainErr(t, "TakeToken at "+bad.String(), err)
		_, err = st.AddFailure(ctx(t), "alice", bad)
		plainErr(t, "AddFailure at "+bad.String(), err)
	}
	_, err = st.GetAccount(ctx(t), "bad")
	isErr(t, "GetAccount of a refused account", err, store.ErrNotFound)
}

// invalidArguments: strings no back end can hold fail with an error that
// is neither ErrNotFound nor ErrExists, and leave nothing behind.
func (s *suite) invalidArguments(t *testing.T) {
	st := s.open(t)
	noErr(t, "CreateAccount", st.CreateAccount(ctx(t), account("alice")))
	for _, bad := range []string{"a\x00b", "\xff\xfe", "ok\xc3"} {
		q := fmt.Sprintf("%q", bad)
		a := account(bad)
		plainErr(t, "CreateAccount "+q, st.CreateAccount(ctx(t), a))
		a = account("alice")
		a.Scheme = bad
		plainErr(t, "UpdateAccount with scheme "+q, st.UpdateAccount(ctx(t), a))
		_, err := st.GetAccount(ctx(t), bad)
		plainErr(t, "GetAccount "+q, err)
		plainErr(t, "DeleteAccount "+q, st.DeleteAccount(ctx(t), bad))
		plainErr(t, "PutPending user "+q, st.PutPending(ctx(t), pending(1, bad, t0.Add(time.Hour))))
		p := pending(2, "alice", t0.Add(time.Hour))
		p.Kind = bad
		plainErr(t, "PutPending kind "+q, st.PutPending(ctx(t), p))
		plainErr(t, "CreateSession "+q, st.CreateSession(ctx(t), session(1, bad, t0.Add(time.Hour))))
		_, err = st.DeleteSessions(ctx(t), bad)
		plainErr(t, "DeleteSessions "+q, err)
		_, err = st.GetFailures(ctx(t), bad)
		plainErr(t, "GetFailures "+q, err)
		_, err = st.AddFailure(ctx(t), bad, t0)
		plainErr(t, "AddFailure "+q, err)
		plainErr(t, "ResetFailures "+q, st.ResetFailures(ctx(t), bad))
		_, _, err = st.TakeToken(ctx(t), bad, t0, 1, 1)
		plainErr(t, "TakeToken "+q, err)
	}
	got, err := st.GetAccount(ctx(t), "alice")
	noErr(t, "GetAccount", err)
	sameAccount(t, got, account("alice"))
	n, err := st.PurgeExpired(ctx(t), t0.Add(2*time.Hour))
	noErr(t, "PurgeExpired", err)
	if n != 0 {
		t.Errorf("refused flows and sessions were stored: PurgeExpired = %d", n)
	}
}

func (s *suite) canceledContext(t *testing.T) {
	st := s.open(t)
	noErr(t, "CreateAccount", st.CreateAccount(ctx(t), account("alice")))
	c, cancel := context.WithCancel(ctx(t))
	cancel()
	_, err := st.GetAccount(c, "alice")
	plainErr(t, "GetAccount with a canceled context", err)
	_, _, err = st.TakeToken(c, "k", t0, 1, 1)
	plainErr(t, "TakeToken with a canceled context", err)
	_, err = st.AddFailure(c, "alice", t0)
	plainErr(t, "AddFailure with a canceled context", err)
	if f, err := st.GetFailures(ctx(t), "alice"); err != nil || f.Count != 0 {
		t.Errorf("GetFailures after a canceled AddFailure = %+v, %v; want zero", f, err)
	}
}

func (s *suite) pingClose(t *testing.T) {
	st := s.open(t)
	noErr(t, "Ping", st.Ping(ctx(t)))
	noErr(t, "Close", st.Close())
	st.Close() // again: no panic
	plainErr(t, "Ping after Close", st.Ping(ctx(t)))
	_, err := st.GetAccount(ctx(t), "alice")
	plainErr(t, "GetAccount after Close", err)
	plainErr(t, "CreateAccount after Close", st.CreateAccount(ctx(t), account("alice")))
	_, err = st.TakePending(ctx(t), handle(16, 1), t0)
	plainErr(t, "TakePending after Close", err)
	_, _, err = st.TakeToken(ctx(t), "k", t0, 1, 1)
	plainErr(t, "TakeToken after Close", err)
}

// durable: what a store returned nil for is there after Close and Open.
func (s *suite) durable(t *testing.T) {
	open := s.reopen(t)
	st := open()
	a := account("alice")
	noErr(t, "CreateAccount", st.CreateAccount(ctx(t), a))
	ss := session(1, "alice", t0.Add(time.Hour))
	noErr(t, "CreateSession", st.CreateSession(ctx(t), ss))
	p := pending(1, "alice", t0.Add(time.Hour))
	noErr(t, "PutPending", st.PutPending(ctx(t), p))
	noErr(t, "PutPending", st.PutPending(ctx(t), pending(2, "alice", t0.Add(time.Hour))))
	_, err := st.TakePending(ctx(t), handle(16, 2), t0)
	noErr(t, "TakePending", err)
	for range 2 {
		_, err := st.AddFailure(ctx(t), "alice", t0)
		noErr(t, "AddFailure", err)
	}
	take(t, st, "register", t0, 1, 1, true, 0)
	noErr(t, "Close", st.Close())

	st = open()
	got, err := st.GetAccount(ctx(t), "alice")
	noErr(t, "GetAccount after reopening", err)
	sameAccount(t, got, a)
	gs, err := st.GetSession(ctx(t), ss.TokenHash, t0)
	noErr(t, "GetSession after reopening", err)
	sameSession(t, gs, ss)
	gp, err := st.TakePending(ctx(t), p.Handle, t0)
	noErr(t, "TakePending after reopening", err)
	samePending(t, gp, p)
	_, err = st.TakePending(ctx(t), handle(16, 2), t0)
	isErr(t, "TakePending of a flow taken before reopening", err, store.ErrNotFound)
	f, err := st.GetFailures(ctx(t), "alice")
	noErr(t, "GetFailures after reopening", err)
	if f.Count != 2 {
		t.Errorf("GetFailures after reopening: Count = %d, want 2", f.Count)
	}
	take(t, st, "register", t0, 1, 1, false, time.Second)
	noErr(t, "Close", st.Close())

	st = open() // and a third time: the migrations are not run again
	_, err = st.TakePending(ctx(t), p.Handle, t0)
	isErr(t, "TakePending of a flow taken before reopening", err, store.ErrNotFound)
	noErr(t, "Ping", st.Ping(ctx(t)))
}

// twoInstances: two stores on one database (two server instances) see
// each other's writes at once and share the atomic operations.
func (s *suite) twoInstances(t *testing.T) {
	open := s.reopen(t)
	sts := []store.Store{open(), open()}
	a := account("alice")
	noErr(t, "CreateAccount", sts[0].CreateAccount(ctx(t), a))
	got, err := sts[1].GetAccount(ctx(t), "alice")
	noErr(t, "GetAccount on the other instance", err)
	sameAccount(t, got, a)
	isErr(t, "CreateAccount on the other instance", sts[1].CreateAccount(ctx(t), a), store.ErrExists)
	ss := session(1, "alice", t0.Add(time.Hour))
	noErr(t, "CreateSession", sts[1].CreateSession(ctx(t), ss))
	noErr(t, "DeleteSession on the other instance", sts[0].DeleteSession(ctx(t), ss.TokenHash))

	const n = 16
	p := pending(1, "alice", t0.Add(time.Hour))
	noErr(t, "PutPending", sts[0].PutPending(ctx(t), p))
	res := race(n, func(i int) error {
		_, err := sts[i%2].TakePending(ctx(t), p.Handle, t0)
		return err
	})
	wins := 0
	for _, err := range res {
		if err == nil {
			wins++
		} else if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("TakePending: %v", err)
		}
	}
	if wins != 1 {
		t.Errorf("%d concurrent TakePending on two instances won %d times, want 1", n, wins)
	}

	race(n, func(i int) error {
		_, err := sts[i%2].AddFailure(ctx(t), "alice", t0)
		if err != nil {
			t.Errorf("AddFailure: %v", err)
		}
		return err
	})
	for _, st := range sts {
		if f, err := st.GetFailures(ctx(t), "alice"); err != nil || f.Count != n {
			t.Errorf("GetFailures after %d AddFailure on two instances = %+v, %v", n, f, err)
		}
	}

	oks := race(n, func(i int) bool {
		ok, _, err := sts[i%2].TakeToken(ctx(t), "register", t0, 1, 3)
		if err != nil {
			t.Errorf("TakeToken: %v", err)
		}
		return ok
	})
	taken := 0
	for _, ok := range oks {
		if ok {
			taken++
		}
	}
	if taken != 3 {
		t.Errorf("%d concurrent TakeToken on two instances took %d tokens, want the burst 3", n, taken)
	}
}

// concurrentOpen: instances that start together on a fresh database
// migrate it once between them.
func (s *suite) concurrentOpen(t *testing.T) {
	if s.fresh == nil {
		t.Skip("no storetest.Reopen hook")
	}
	open := s.fresh(t)
	const n = 4
	type result struct {
		st  store.Store
		err error
	}
	res := race(n, func(int) result {
		st, err := open()
		return result{st, err}
	})
	for _, r := range res {
		if r.err != nil {
			t.Errorf("concurrent open: %v", r.err)
			continue
		}
		t.Cleanup(func() { r.st.Close() })
	}
	if t.Failed() {
		return
	}
	noErr(t, "CreateAccount", res[0].st.CreateAccount(ctx(t), account("alice")))
	for i, r := range res {
		if _, err := r.st.GetAccount(ctx(t), "alice"); err != nil {
			t.Errorf("instance %d: GetAccount: %v", i, err)
		}
	}
}
