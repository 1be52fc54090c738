package storetest

import (
	"testing"
	"time"

	"github.com/kexlab/kexlab/server/store"
)

func sameAccount(t *testing.T, got, want store.Account) {
	t.Helper()
	if got.User != want.User || got.Scheme != want.Scheme {
		t.Errorf("account = %q %q, want %q %q", got.User, got.Scheme, want.User, want.Scheme)
	}
	sameBytes(t, "Record", got.Record, want.Record)
	sameBytes(t, "Params", got.Params, want.Params)
	sameTime(t, "Created", got.Created, want.Created)
	sameTime(t, "Updated", got.Updated, want.Updated)
}

func (s *suite) accountRoundTrip(t *testing.T) {
	st := s.open(t)
	for _, user := range []string{"alice", "Zoë 李", "bob@example.org", ""} {
		a := account(user)
		noErr(t, "CreateAccount", st.CreateAccount(ctx(t), a))
		got, err := st.GetAccount(ctx(t), user)
		noErr(t, "GetAccount", err)
		sameAccount(t, got, a)
		scheme, params, err := st.GetParams(ctx(t), user)
		noErr(t, "GetParams", err)
		if scheme != a.Scheme {
			t.Errorf("GetParams: scheme %q, want %q", scheme, a.Scheme)
		}
		sameBytes(t, "GetParams params", params, a.Params)
	}
	big := account("big")
	big.Record = make([]byte, 1<<20)
	for i := range big.Record {
		big.Record[i] = byte(i * 7 >> 3)
	}
	noErr(t, "CreateAccount (1 MiB record)", st.CreateAccount(ctx(t), big))
	got, err := st.GetAccount(ctx(t), "big")
	noErr(t, "GetAccount (1 MiB record)", err)
	sameAccount(t, got, big)
}

func (s *suite) accountExists(t *testing.T) {
	st := s.open(t)
	a := account("alice")
	noErr(t, "CreateAccount", st.CreateAccount(ctx(t), a))
	b := account("alice")
	b.Scheme, b.Record = "srp-3072", []byte("other")
	isErr(t, "CreateAccount again", st.CreateAccount(ctx(t), b), store.ErrExists)
	got, err := st.GetAccount(ctx(t), "alice")
	noErr(t, "GetAccount", err)
	sameAccount(t, got, a) // the first one is untouched
}

func (s *suite) accountNotFound(t *testing.T) {
	st := s.open(t)
	noErr(t, "CreateAccount", st.CreateAccount(ctx(t), account("alice")))
	_, err := st.GetAccount(ctx(t), "bob")
	isErr(t, "GetAccount", err, store.ErrNotFound)
	_, _, err = st.GetParams(ctx(t), "bob")
	isErr(t, "GetParams", err, store.ErrNotFound)
	isErr(t, "UpdateAccount", st.UpdateAccount(ctx(t), account("bob")), store.ErrNotFound)
	isErr(t, "DeleteAccount", st.DeleteAccount(ctx(t), "bob"), store.ErrNotFound)
	_, err = st.GetAccount(ctx(t), "bob")
	isErr(t, "GetAccount after UpdateAccount of a missing account", err, store.ErrNotFound)

	noErr(t, "DeleteAccount", st.DeleteAccount(ctx(t), "alice"))
	_, err = st.GetAccount(ctx(t), "alice")
	isErr(t, "GetAccount after DeleteAccount", err, store.ErrNotFound)
	isErr(t, "DeleteAccount again", st.DeleteAccount(ctx(t), "alice"), store.ErrNotFound)
	noErr(t, "CreateAccount after DeleteAccount", st.CreateAccount(ctx(t), account("alice")))
}

func (s *suite) accountUpdate(t *testing.T) {
	st := s.open(t)
	a := account("alice")
	noErr(t, "CreateAccount", st.CreateAccount(ctx(t), a))
	b := store.Account{
		User:    "alice",
		Scheme:  "srp-3072",
		Record:  []byte{0, 1, 2, 0},
		Params:  []byte(`{"iterations":600000}`),
		Created: t0.Add(-time.Hour), // ignored: Created stays
		Updated: t0.Add(time.Hour + 1500*time.Nanosecond),
	}
	noErr(t, "UpdateAccount", st.UpdateAccount(ctx(t), b))
	got, err := st.GetAccount(ctx(t), "alice")
	noErr(t, "GetAccount", err)
	b.Created = a.Created
	sameAccount(t, got, b)
}

// accountUpdateEnds: UpdateAccount removes the account's sessions and
// pending flows (a login started under the old record must not finish),
// and no one else's.
func (s *suite) accountUpdateEnds(t *testing.T) {
	st := s.open(t)
	live := t0.Add(time.Hour)
	for i, u := range []string{"alice", "bob"} {
		noErr(t, "CreateAccount", st.CreateAccount(ctx(t), account(u)))
		noErr(t, "CreateSession", st.CreateSession(ctx(t), session(i, u, live)))
		noErr(t, "PutPending", st.PutPending(ctx(t), pending(i, u, live)))
	}
	noErr(t, "UpdateAccount", st.UpdateAccount(ctx(t), account("alice")))
	_, err := st.GetSession(ctx(t), handle(32, 0), t0)
	isErr(t, "GetSession of the updated account", err, store.ErrNotFound)
	_, err = st.TakePending(ctx(t), handle(16, 0), t0)
	isErr(t, "TakePending of the updated account", err, store.ErrNotFound)
	if _, err := st.GetSession(ctx(t), handle(32, 1), t0); err != nil {
		t.Errorf("another account's session after UpdateAccount: %v", err)
	}
	if _, err := st.TakePending(ctx(t), handle(16, 1), t0); err != nil {
		t.Errorf("another account's flow after UpdateAccount: %v", err)
	}
}

func (s *suite) accountNilAndEmpty(t *testing.T) {
	st := s.open(t)
	a := account("alice")
	a.Record, a.Params = nil, []byte{}
	noErr(t, "CreateAccount", st.CreateAccount(ctx(t), a))
	got, err := st.GetAccount(ctx(t), "alice")
	noErr(t, "GetAccount", err)
	sameBytes(t, "nil Record", got.Record, []byte{})
	sameBytes(t, "empty Params", got.Params, []byte{})

	a.Record, a.Params = []byte{}, nil
	noErr(t, "UpdateAccount", st.UpdateAccount(ctx(t), a))
	got, err = st.GetAccount(ctx(t), "alice")
	noErr(t, "GetAccount", err)
	sameBytes(t, "empty Record", got.Record, []byte{})
	sameBytes(t, "nil Params", got.Params, []byte{})
}

func (s *suite) accountNamesExact(t *testing.T) {
	st := s.open(t)
	names := []string{"alice", "Alice", "alice ", " alice", "ALICE"}
	for i, n := range names {
		a := account(n)
		a.Scheme = names[i] + "-scheme"
		noErr(t, "CreateAccount "+n, st.CreateAccount(ctx(t), a))
	}
	for _, n := range names {
		got, err := st.GetAccount(ctx(t), n)
		noErr(t, "GetAccount "+n, err)
		if got.User != n || got.Scheme != n+"-scheme" {
			t.Errorf("GetAccount(%q) = %q %q", n, got.User, got.Scheme)
		}
	}
	_, err := st.GetAccount(ctx(t), "alic")
	isErr(t, "GetAccount of a prefix", err, store.ErrNotFound)
}

func (s *suite) deleteAccountCascades(t *testing.T) {
	st := s.open(t)
	for _, u := range []string{"alice", "bob"} {
		noErr(t, "CreateAccount", st.CreateAccount(ctx(t), account(u)))
	}
	live := t0.Add(time.Hour)
	for i, u := range []string{"alice", "alice", "bob"} {
		noErr(t, "CreateSession", st.CreateSession(ctx(t), session(i, u, live)))
		noErr(t, "PutPending", st.PutPending(ctx(t), pending(i, u, live)))
		_, err := st.AddFailure(ctx(t), u, t0)
		noErr(t, "AddFailure", err)
	}
	// A user without an account (a registration under way): see the end.
	noErr(t, "PutPending", st.PutPending(ctx(t), pending(9, "carol", live)))
	_, err := st.AddFailure(ctx(t), "carol", t0)
	noErr(t, "AddFailure", err)

	noErr(t, "DeleteAccount", st.DeleteAccount(ctx(t), "alice"))
	for i := range 2 {
		_, err := st.GetSession(ctx(t), handle(32, i), t0)
		isErr(t, "GetSession of a deleted account", err, store.ErrNotFound)
		_, err = st.TakePending(ctx(t), handle(16, i), t0)
		isErr(t, "TakePending of a deleted account", err, store.ErrNotFound)
	}
	f, err := st.GetFailures(ctx(t), "alice")
	noErr(t, "GetFailures", err)
	if f.Count != 0 || !f.Last.IsZero() {
		t.Errorf("failures of a deleted account = %+v, want zero", f)
	}

	// Bob's are untouched.
	if _, err := st.GetSession(ctx(t), handle(32, 2), t0); err != nil {
		t.Errorf("GetSession of another user: %v", err)
	}
	if p, err := st.TakePending(ctx(t), handle(16, 2), t0); err != nil || p.User != "bob" {
		t.Errorf("TakePending of another user = %q, %v", p.User, err)
	}
	if f, err := st.GetFailures(ctx(t), "bob"); err != nil || f.Count != 1 {
		t.Errorf("GetFailures of another user = %+v, %v", f, err)
	}
	if _, err := st.GetAccount(ctx(t), "bob"); err != nil {
		t.Errorf("GetAccount of another user: %v", err)
	}

	// Carol has no account: DeleteAccount fails and removes nothing.
	isErr(t, "DeleteAccount without an account", st.DeleteAccount(ctx(t), "carol"), store.ErrNotFound)
	if _, err := st.TakePending(ctx(t), handle(16, 9), t0); err != nil {
		t.Errorf("TakePending after a failed DeleteAccount: %v", err)
	}
	if f, err := st.GetFailures(ctx(t), "carol"); err != nil || f.Count != 1 {
		t.Errorf("GetFailures after a failed DeleteAccount = %+v, %v", f, err)
	}
}
