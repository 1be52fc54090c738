package storetest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/kexlab/kexlab/server/store"
)

func (s *suite) failures(t *testing.T) {
	st := s.open(t)
	f, err := st.GetFailures(ctx(t), "alice")
	noErr(t, "GetFailures", err)
	if f != (store.Failures{}) {
		t.Errorf("GetFailures of an unknown user = %+v, want zero", f)
	}
	for i := 1; i <= 3; i++ {
		now := t0.Add(time.Duration(i)*time.Second + 789) // sub-microsecond: truncated
		f, err := st.AddFailure(ctx(t), "alice", now)
		noErr(t, "AddFailure", err)
		if f.Count != i {
			t.Errorf("AddFailure: Count = %d, want %d", f.Count, i)
		}
		sameTime(t, "AddFailure: Last", f.Last, now)
		g, err := st.GetFailures(ctx(t), "alice")
		noErr(t, "GetFailures", err)
		if g.Count != i {
			t.Errorf("GetFailures: Count = %d, want %d", g.Count, i)
		}
		sameTime(t, "GetFailures: Last", g.Last, now)
	}
	// Last is the time given, even if earlier (clocks of instances differ).
	f, err = st.AddFailure(ctx(t), "alice", t0)
	noErr(t, "AddFailure", err)
	if f.Count != 4 {
		t.Errorf("AddFailure: Count = %d, want 4", f.Count)
	}
	sameTime(t, "AddFailure: Last", f.Last, t0)

	_, err = st.AddFailure(ctx(t), "bob", t0)
	noErr(t, "AddFailure", err)
	noErr(t, "ResetFailures", st.ResetFailures(ctx(t), "alice"))
	f, err = st.GetFailures(ctx(t), "alice")
	noErr(t, "GetFailures", err)
	if f.Count != 0 || !f.Last.IsZero() {
		t.Errorf("GetFailures after ResetFailures = %+v, want zero", f)
	}
	if f, err := st.GetFailures(ctx(t), "bob"); err != nil || f.Count != 1 {
		t.Errorf("GetFailures of another user = %+v, %v; want Count 1", f, err)
	}
	noErr(t, "ResetFailures of an unknown user", st.ResetFailures(ctx(t), "carol"))
	f, err = st.AddFailure(ctx(t), "alice", t0)
	noErr(t, "AddFailure after ResetFailures", err)
	if f.Count != 1 {
		t.Errorf("AddFailure after ResetFailures: Count = %d, want 1", f.Count)
	}
}

// sessionResetsFailures: CreateSession ends the failure count of its
// user in the same transaction; a refused CreateSession changes nothing.
func (s *suite) sessionResetsFailures(t *testing.T) {
	st := s.open(t)
	for _, u := range []string{"alice", "bob"} {
		noErr(t, "CreateAccount", st.CreateAccount(ctx(t), account(u)))
		for range 2 {
			_, err := st.AddFailure(ctx(t), u, t0)
			noErr(t, "AddFailure", err)
		}
	}
	count := func(u string) int {
		f, err := st.GetFailures(ctx(t), u)
		noErr(t, "GetFailures", err)
		return f.Count
	}
	noErr(t, "CreateSession", st.CreateSession(ctx(t), session(1, "alice", t0.Add(time.Hour))))
	if n := count("alice"); n != 0 {
		t.Errorf("failures after CreateSession = %d, want 0", n)
	}
	if n := count("bob"); n != 2 {
		t.Errorf("another user's failures after CreateSession = %d, want 2", n)
	}
	// A token hash taken: refused, and bob's counter stays.
	isErr(t, "CreateSession with a taken hash", st.CreateSession(ctx(t), session(1, "bob", t0.Add(time.Hour))), store.ErrExists)
	if n := count("bob"); n != 2 {
		t.Errorf("failures after a refused CreateSession = %d, want 2", n)
	}
	// No account: refused, and the counter (unknown users have them) stays.
	_, err := st.AddFailure(ctx(t), "ghost", t0)
	noErr(t, "AddFailure", err)
	isErr(t, "CreateSession without an account", st.CreateSession(ctx(t), session(2, "ghost", t0.Add(time.Hour))), store.ErrNotFound)
	if n := count("ghost"); n != 1 {
		t.Errorf("failures after a CreateSession without an account = %d, want 1", n)
	}
}

func (s *suite) addFailureRace(t *testing.T) {
	st := s.open(t)
	const n = 32
	counts := race(n, func(i int) int {
		f, err := st.AddFailure(ctx(t), "alice", t0.Add(time.Duration(i)*time.Second))
		if err != nil {
			t.Errorf("AddFailure: %v", err)
			return -1
		}
		return f.Count
	})
	slices.Sort(counts)
	for i, c := range counts {
		if c != i+1 {
			t.Fatalf("the counts %d concurrent AddFailure returned = %v, want 1..%d each once", n, counts, n)
		}
	}
	f, err := st.GetFailures(ctx(t), "alice")
	noErr(t, "GetFailures", err)
	if f.Count != n {
		t.Errorf("GetFailures after %d concurrent AddFailure: Count = %d", n, f.Count)
	}
}

// startAttempt: allow sees the counter as it is (zero, with a zero Last,
// for a new name); a refusal returns allow's error and changes nothing;
// an allowed attempt counts.
func (s *suite) startAttempt(t *testing.T) {
	st := s.open(t)
	errNo := errors.New("refused")
	var seen []store.Failures
	allowBelow := func(n int) func(store.Failures) error {
		return func(f store.Failures) error {
			seen = append(seen, f)
			if f.Count >= n {
				return errNo
			}
			return nil
		}
	}
	_, err := st.StartAttempt(ctx(t), "alice", t0, allowBelow(0))
	isErr(t, "StartAttempt refused", err, errNo)
	if f, err := st.GetFailures(ctx(t), "alice"); err != nil || f != (store.Failures{}) {
		t.Errorf("GetFailures after a refused first attempt = %+v, %v; want zero", f, err)
	}
	for i := 1; i <= 2; i++ {
		now := t0.Add(time.Duration(i) * time.Second)
		f, err := st.StartAttempt(ctx(t), "alice", now, allowBelow(2))
		noErr(t, "StartAttempt", err)
		if f.Count != i {
			t.Errorf("StartAttempt: Count = %d, want %d", f.Count, i)
		}
		sameTime(t, "StartAttempt: Last", f.Last, now)
	}
	_, err = st.StartAttempt(ctx(t), "alice", t0.Add(time.Hour), allowBelow(2))
	isErr(t, "StartAttempt at the limit", err, errNo)
	f, err := st.GetFailures(ctx(t), "alice")
	noErr(t, "GetFailures", err)
	if f.Count != 2 {
		t.Errorf("GetFailures after a refused attempt: Count = %d, want 2", f.Count)
	}
	sameTime(t, "GetFailures after a refused attempt: Last", f.Last, t0.Add(2*time.Second))
	want := []int{0, 0, 1, 2}
	if len(seen) != len(want) || !seen[0].Last.IsZero() || !seen[1].Last.IsZero() {
		t.Fatalf("allow saw %+v", seen)
	}
	for i, w := range want {
		if seen[i].Count != w {
			t.Errorf("allow call %d saw Count %d, want %d", i, seen[i].Count, w)
		}
	}
}

// startAttemptRace: of n concurrent attempts allowed while the counter is
// below limit, exactly limit count — for a new name and for one with a
// counter already.
func (s *suite) startAttemptRace(t *testing.T) {
	st := s.open(t)
	const n, limit = 32, 5
	errNo := errors.New("refused")
	_, err := st.AddFailure(ctx(t), "bob", t0)
	noErr(t, "AddFailure", err)
	for user, before := range map[string]int{"alice": 0, "bob": 1} {
		oks := race(n, func(i int) bool {
			_, err := st.StartAttempt(ctx(t), user, t0.Add(time.Duration(i)*time.Second), func(f store.Failures) error {
				if f.Count >= limit {
					return errNo
				}
				return nil
			})
			if err != nil && !errors.Is(err, errNo) {
				t.Errorf("StartAttempt: %v", err)
			}
			return err == nil
		})
		if got := len(slices.DeleteFunc(oks, func(ok bool) bool { return !ok })); got != limit-before {
			t.Errorf("%s: %d of %d concurrent attempts allowed, want %d", user, got, n, limit-before)
		}
		if f, err := st.GetFailures(ctx(t), user); err != nil || f.Count != limit {
			t.Errorf("%s: GetFailures = %+v, %v; want Count %d", user, f, err, limit)
		}
	}
}

// startAttemptIdle: a counter idle for store.FailureIdle counts from zero
// again at the next StartAttempt, purge or not (a lock-out ends).
func (s *suite) startAttemptIdle(t *testing.T) {
	st := s.open(t)
	for range 3 {
		_, err := st.AddFailure(ctx(t), "dave", t0)
		noErr(t, "AddFailure", err)
	}
	var seen store.Failures
	later := t0.Add(store.FailureIdle + time.Second)
	f, err := st.StartAttempt(ctx(t), "dave", later, func(f store.Failures) error { seen = f; return nil })
	noErr(t, "StartAttempt", err)
	if seen.Count != 0 || f.Count != 1 {
		t.Errorf("a day idle: allow saw %+v, the count is now %d; want 0 and 1", seen, f.Count)
	}
	recent := t0.Add(store.FailureIdle / 2)
	_, err = st.AddFailure(ctx(t), "erin", t0)
	noErr(t, "AddFailure", err)
	_, err = st.StartAttempt(ctx(t), "erin", recent, func(f store.Failures) error { seen = f; return nil })
	noErr(t, "StartAttempt", err)
	if seen.Count != 1 {
		t.Errorf("half a day idle: allow saw %+v, want Count 1", seen)
	}
}

// startAttemptVsReset: StartAttempt while other goroutines reset the same
// counter (a successful login elsewhere) never fails: the counter it
// locks may vanish between statements, which the PostgreSQL store once
// answered with "no rows" (a 500) about once in 300 logins under load.
func (s *suite) startAttemptVsReset(t *testing.T) {
	st := s.open(t)
	const rounds = 200
	done := make(chan struct{})
	resets := make(chan error, 1)
	go func() {
		defer close(resets)
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := st.ResetFailures(ctx(t), "carol"); err != nil {
				resets <- err
				return
			}
		}
	}()
	race(4, func(int) bool {
		for i := range rounds {
			if _, err := st.StartAttempt(ctx(t), "carol", t0.Add(time.Duration(i)*time.Millisecond), func(store.Failures) error { return nil }); err != nil {
				t.Errorf("StartAttempt with resets beside it: %v", err)
				return false
			}
		}
		return true
	})
	close(done)
	if err := <-resets; err != nil {
		t.Errorf("ResetFailures: %v", err)
	}
}

// take calls TakeToken and fails t unless it returns ok and wait.
func take(t *testing.T, st store.Store, key string, now time.Time, rate float64, burst int, ok bool, wait time.Duration) {
	t.Helper()
	gotOK, gotWait, err := st.TakeToken(ctx(t), key, now, rate, burst)
	if err != nil {
		t.Fatalf("TakeToken(%s, +%v): %v", key, now.Sub(t0), err)
	}
	if gotOK != ok || gotWait != wait {
		t.Errorf("TakeToken(%s, +%v, rate %v, burst %d) = %v, %v; want %v, %v",
			key, now.Sub(t0), rate, burst, gotOK, gotWait, ok, wait)
	}
}

func (s *suite) takeTokenBurst(t *testing.T) {
	st := s.open(t)
	const k = "addr:127.0.0.1"
	for range 3 { // a new bucket is full
		take(t, st, k, t0, 1, 3, true, 0)
	}
	take(t, st, k, t0, 1, 3, false, time.Second)
	take(t, st, k, t0.Add(250*time.Millisecond), 1, 3, false, 750*time.Millisecond)
	take(t, st, k, t0.Add(time.Second-time.Microsecond), 1, 3, false, time.Microsecond)
	take(t, st, k, t0.Add(time.Second), 1, 3, true, 0)
	take(t, st, k, t0.Add(time.Second), 1, 3, false, time.Second)
	// 2.5 s later: 2.5 tokens; two taken, half a token left.
	take(t, st, k, t0.Add(3500*time.Millisecond), 1, 3, true, 0)
	take(t, st, k, t0.Add(3500*time.Millisecond), 1, 3, true, 0)
	take(t, st, k, t0.Add(3500*time.Millisecond), 1, 3, false, 500*time.Millisecond)
}

func (s *suite) takeTokenRefillCap(t *testing.T) {
	st := s.open(t)
	const k = "register"
	for range 4 {
		take(t, st, k, t0, 2, 4, true, 0)
	}
	take(t, st, k, t0, 2, 4, false, 500*time.Millisecond)
	later := t0.Add(24 * time.Hour) // refills 172800 tokens: capped at 4
	for range 4 {
		take(t, st, k, later, 2, 4, true, 0)
	}
	take(t, st, k, later, 2, 4, false, 500*time.Millisecond)
}

// takeTokenWait checks waits at rates whose periods are not exact in
// binary: the wait is at most one period, coming back after it gets a
// token, and a microsecond earlier does not.
func (s *suite) takeTokenWait(t *testing.T) {
	st := s.open(t)
	for _, rate := range []float64{3, 0.3, 7.0 / 3, 1000, 1e6 / 7} {
		k := fmt.Sprintf("rate:%v", rate)
		period := time.Duration(math.Ceil(1e6/rate)) * time.Microsecond
		now := t0
		take(t, st, k, now, rate, 1, true, 0)
		for range 3 {
			ok, wait, err := st.TakeToken(ctx(t), k, now, rate, 1)
			noErr(t, "TakeToken", err)
			if ok || wait <= 0 || wait > period {
				t.Fatalf("rate %v: TakeToken = %v, %v; want false and a wait in (0, %v]", rate, ok, wait, period)
			}
			if ok, _, err := st.TakeToken(ctx(t), k, now.Add(wait-time.Microsecond), rate, 1); err != nil || ok {
				t.Errorf("rate %v: TakeToken a microsecond before the wait = %v, %v; want false", rate, ok, err)
			}
			now = now.Add(wait)
			take(t, st, k, now, rate, 1, true, 0)
		}
	}
}

func (s *suite) takeTokenKeys(t *testing.T) {
	st := s.open(t)
	take(t, st, "addr:10.0.0.1", t0, 1, 1, true, 0)
	take(t, st, "addr:10.0.0.1", t0, 1, 1, false, time.Second)
	take(t, st, "addr:10.0.0.2", t0, 1, 1, true, 0)
	take(t, st, "ADDR:10.0.0.1", t0, 1, 1, true, 0)
	take(t, st, "addr:10.0.0.1 ", t0, 1, 1, true, 0)
}

// takeTokenBurstChange: the bucket takes rate and burst from each call; a
// smaller burst caps what a bucket holds.
func (s *suite) takeTokenBurstChange(t *testing.T) {
	st := s.open(t)
	const k = "register"
	take(t, st, k, t0, 1, 10, true, 0) // 9 left
	take(t, st, k, t0, 1, 2, true, 0)  // capped at 2, 1 left
	take(t, st, k, t0, 1, 2, true, 0)
	take(t, st, k, t0, 1, 2, false, time.Second)
	take(t, st, k, t0, 4, 2, false, 250*time.Millisecond)
}

// takeTokenClockBack: a now before the bucket's last update (another
// instance's clock ahead) refills nothing and does not undo the refill.
func (s *suite) takeTokenClockBack(t *testing.T) {
	st := s.open(t)
	const k = "addr:::1"
	take(t, st, k, t0, 1, 1, true, 0)
	take(t, st, k, t0.Add(-10*time.Second), 1, 1, false, time.Second)
	take(t, st, k, t0.Add(500*time.Millisecond), 1, 1, false, 500*time.Millisecond)
	take(t, st, k, t0.Add(-time.Hour), 1, 1, false, 500*time.Millisecond)
	take(t, st, k, t0.Add(time.Second), 1, 1, true, 0)
}

func (s *suite) takeTokenInvalid(t *testing.T) {
	st := s.open(t)
	for _, p := range []struct {
		rate  float64
		burst int
	}{
		{0, 1}, {-1, 1}, {math.NaN(), 1}, {math.Inf(1), 1}, {math.Inf(-1), 1},
		{1, 0}, {1, -1}, {1, math.MinInt},
	} {
		ok, _, err := st.TakeToken(ctx(t), "k", t0, p.rate, p.burst)
		plainErr(t, fmt.Sprintf("TakeToken with rate %v burst %d", p.rate, p.burst), err)
		if ok {
			t.Errorf("TakeToken with rate %v burst %d took a token", p.rate, p.burst)
		}
	}
	// A burst beyond any real one, and rates beyond any real one, work.
	take(t, st, "huge", t0, 1e300, math.MaxInt, true, 0)
	take(t, st, "tiny", t0, 1e-300, 1, true, 0)
	ok, wait, err := st.TakeToken(ctx(t), "tiny", t0, 1e-300, 1)
	noErr(t, "TakeToken at a tiny rate", err)
	if ok || wait <= 0 {
		t.Errorf("TakeToken at a tiny rate = %v, %v; want false and a positive wait", ok, wait)
	}
}

func (s *suite) takeTokenRace(t *testing.T) {
	st := s.open(t)
	const n, burst = 24, 5
	type result struct {
		ok   bool
		wait time.Duration
	}
	res := race(n, func(int) result {
		ok, wait, err := st.TakeToken(ctx(t), "register", t0, 0.1, burst)
		if err != nil {
			t.Errorf("TakeToken: %v", err)
		}
		return result{ok, wait}
	})
	taken := 0
	for _, r := range res {
		if r.ok {
			taken++
		} else if r.wait != 10*time.Second {
			t.Errorf("TakeToken refused with wait %v, want 10s", r.wait)
		}
	}
	if taken != burst {
		t.Errorf("%d concurrent TakeToken took %d tokens, want the burst %d", n, taken, burst)
	}
}
