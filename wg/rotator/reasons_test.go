package rotator

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kexlab/kexlab/wg"
)

func (s *side) last(k EventKind) *Event {
	for i := len(s.events) - 1; i >= 0; i-- {
		if s.events[i].Kind == k {
			return &s.events[i]
		}
	}
	return nil
}

// A state file in another mode than the configured one is refused with
// both modes named; ResetState restarts the chain in the configured mode
// (both sides), and the next handshake resynchronises them.
func TestModeMismatch(t *testing.T) {
	key := randKey(t)
	_, a, b := newSides(t, wg.HashRatchet, key, key)
	rotate(t, a, b, 2)
	for _, s := range []*side{a, b} {
		before := s.r.State()
		s.r.Close()
		s.cfg.Mode = wg.HardwareRatchet
		_, err := New(s.cfg)
		var mm *ModeMismatchError
		if !errors.As(err, &mm) || !errors.Is(err, ErrModeMismatch) || mm.State != wg.HashRatchet || mm.Config != wg.HardwareRatchet {
			t.Fatalf("New with another mode: %v", err)
		}
		for _, want := range []string{"hash-ratchet", "hardware-ratchet", "-reset-state", s.cfg.StatePath} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
		}
		s.cfg.ResetState = true
		s.events = nil
		s.start(t)
		e := s.last(EventReset)
		if e == nil || !strings.Contains(e.Reason, "hash-ratchet") || !strings.Contains(e.Reason, fmt.Sprintf("epoch %d index %d", before.Epoch, before.Index)) {
			t.Fatalf("no reset event naming the discarded state: %v", s.events)
		}
		if st := s.r.State(); st.Mode != wg.HardwareRatchet || !st.FallenBack {
			t.Fatalf("state after reset: %+v", st)
		}
	}
	rotate(t, a, b, 2)
	if e := a.last(EventResync); e == nil || !strings.Contains(e.Reason, "timestamp PSK of hour") {
		t.Fatalf("resync without its reason: %v", a.events)
	}
	if st := a.r.State(); st.Mode != wg.HardwareRatchet || st.FallenBack || st.Index < 2 {
		t.Fatalf("chain after reset: %+v", st)
	}
}

// Peers whose clocks are an hour apart: both fall back to timestamp PSKs
// of different hours, and the key-mismatch event says to compare the
// clocks, naming the hour and the local time, instead of only blaming
// the keys.
func TestClockSkewHour(t *testing.T) {
	key := randKey(t)
	c, a, b := newSides(t, wg.HardwareRatchet, key, key)
	b.r.Close()
	b.cfg.Now = func() time.Time { return c.now().Add(time.Hour) }
	b.start(t)
	if a.pskHash(t) == b.pskHash(t) {
		t.Fatal("skewed clocks gave the same timestamp PSK")
	}
	fail(t, c, a, b, 6)
	for _, s := range []*side{a, b} {
		e := s.last(EventKeyMismatch)
		if e == nil {
			t.Fatalf("no key mismatch: %v", s.events)
		}
		for _, want := range []string{"clock", "timestamp PSK of hour", "kexlab wg key -kcv"} {
			if !strings.Contains(e.String(), want) {
				t.Errorf("%q lacks %q", e, want)
			}
		}
		// The hour named is the one of the local clock named beside it.
		m := regexp.MustCompile(`hour (\d+) \(([^;]+); local clock ([^)]+)\)`).FindStringSubmatch(e.Reason)
		if m == nil {
			t.Fatalf("%q names no hour and local clock", e.Reason)
		}
		local, err := time.Parse(time.RFC3339, m[3])
		h, _ := wg.Hour(local)
		if err != nil || m[1] != strconv.FormatUint(h, 10) || m[2] != hourTime(h) {
			t.Errorf("%q: hour %s does not match the local clock %s (%v)", e.Reason, m[1], m[3], err)
		}
	}
}

// A clock skew of minutes in the timestamp mode: b's clock passes the hour
// boundary first, b applies the next hour's PSK, handshakes fail and b's
// fallback names the boundary and a likely clock skew; a, whose hour did
// not change, says nothing of clocks.
func TestClockSkewBoundary(t *testing.T) {
	key := randKey(t)
	c, a, b := newSides(t, wg.Timestamp, key, key)
	rotate(t, a, b, 1)
	// b's clock: one minute past the next hour boundary. a stays in this
	// hour for the test unless it runs within 3 minutes of the boundary.
	now := time.Now()
	if time.Until(now.Truncate(time.Hour).Add(time.Hour)) < 3*time.Minute {
		t.Skip("too close to an hour boundary for a's clock to stay in this hour")
	}
	skew := now.Truncate(time.Hour).Add(time.Hour + time.Minute).Sub(now)
	b.cfg.Now = func() time.Time { return c.now().Add(skew) }
	b.r.cfg.Now = b.cfg.Now
	b.poll(t)
	if a.pskHash(t) == b.pskHash(t) {
		t.Fatal("b did not move to the next hour's PSK")
	}
	fail(t, c, a, b, 3)
	e := b.last(EventFallback)
	if e == nil || !strings.Contains(e.Reason, "clock skew") || !strings.Contains(e.Reason, "failed handshake window") {
		t.Fatalf("b's fallback without the clock-skew hint: %v", b.events)
	}
	if e := a.last(EventFallback); e == nil || strings.Contains(e.Reason, "clock") {
		t.Fatalf("a's fallback: %v", a.events)
	}
}
