package rotator

import (
	"github.com/kexlab/kexlab/wg"
)

// Poll reads the peer's status once and acts on it: after a new handshake
// it steps the schedule (or restarts the chain after a fallback), counts a
// failure when a failure window has passed (see the package comment), and
// refreshes a timestamp PSK when the hour changes.
func (r *Rotator) Poll() error {
	if r.pending {
		if err := r.apply(EventApplied); err != nil {
			return err
		}
		r.pending = false
	}
	ps, err := r.cfg.Device.Peer(r.cfg.Peer)
	if err != nil {
		return err
	}
	moved := ps.TxBytes != r.tx || ps.RxBytes != r.rx
	r.tx, r.rx = ps.TxBytes, ps.RxBytes
	if ps.LastHandshake.After(r.lastHS) {
		r.lastHS = ps.LastHandshake
		r.windows, r.active = 0, false
		return r.handshake()
	}
	now := r.cfg.Now()
	if r.st.FallenBack || r.st.Mode == wg.Timestamp {
		if h, err := wg.Hour(now); err == nil && h != r.curHour {
			if err := r.applyTimestamp(); err != nil {
				return err
			}
		}
	}
	base := r.lastHS
	if base.IsZero() {
		base = r.since
	}
	age := now.Sub(base)
	if age < r.cfg.StaleAfter {
		r.active = false
		return nil
	}
	r.active = r.active || moved
	done := int((age - r.cfg.StaleAfter) / r.cfg.FailWindow)
	if done <= r.windows {
		return nil
	}
	r.windows = done
	if !r.active {
		return nil
	}
	r.active = false
	return r.failure()
}

func (r *Rotator) maxFailures() int {
	if r.st.MaxFailures > 0 {
		return r.st.MaxFailures
	}
	return wg.DefaultMaxFailures
}

// failure records one failed handshake window.
func (r *Rotator) failure() error {
	wasFallenBack := r.st.FallenBack
	fallback := r.st.Failed()
	r.emit(Event{Kind: EventFailure})
	switch {
	case fallback && !wasFallenBack:
		r.sinceFallback = 0
		r.emit(Event{Kind: EventFallback})
		if err := r.save(); err != nil {
			return err
		}
		return r.applyTimestamp()
	case wasFallenBack:
		r.sinceFallback++
		if r.sinceFallback >= r.maxFailures() && !r.mismatchShown {
			r.mismatchShown = true
			r.emit(Event{Kind: EventKeyMismatch, Err: ErrKeyMismatch})
		}
	}
	return r.save()
}

// handshake handles a new successful handshake.
func (r *Rotator) handshake() error {
	r.mismatchShown, r.sinceFallback = false, 0
	if r.st.Mode == wg.Timestamp {
		r.st.Failures, r.st.FallenBack = 0, false
		return r.save()
	}
	prev := r.st
	var psk wg.PSK
	var err error
	kind := EventApplied
	switch {
	case r.st.FallenBack:
		// Both sides used the timestamp PSK of hour curHour: restart the
		// chain at that epoch.
		kind = EventResync
		prev = wg.State{Version: wg.StateVersion, Mode: r.st.Mode, Epoch: r.curHour, MaxFailures: r.st.MaxFailures}
		psk, err = wg.StartChain(r.cfg.Source, r.pair, &r.st, r.curHour)
	case r.st.Mode == wg.HashRatchet:
		psk, err = wg.HashStep(&r.cur, &r.st)
	default:
		psk, err = wg.Step(r.cfg.Source, r.pair, &r.st, nil)
	}
	if err != nil {
		return err
	}
	r.prev = prev
	r.cur.Zero()
	r.cur = psk
	if err := r.save(); err != nil {
		return err
	}
	if err := r.apply(kind); err != nil {
		r.pending = true
		return err
	}
	return nil
}
