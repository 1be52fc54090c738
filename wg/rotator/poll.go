package rotator

import (
	"fmt"

	"github.com/kexlab/kexlab/wg"
)

// Poll reads the peer's status once and acts on it: it applies the PSK
// again if the device lost it, steps the schedule after a new handshake
// (or restarts the chain after a fallback), handles fresh mode's messages,
// counts a failure when a failure window has passed (see the package
// comment), and refreshes a timestamp PSK when the hour changes.
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
	if ps.PSKHash != r.applied {
		if err := r.restore(); err != nil {
			return err
		}
	}
	moved := ps.TxBytes != r.tx || ps.RxBytes != r.rx
	r.tx, r.rx = ps.TxBytes, ps.RxBytes
	if ps.LastHandshake.After(r.lastHS) {
		r.lastHS = ps.LastHandshake
		r.windows, r.active = 0, false
		if err := r.handshake(); err != nil {
			return err
		}
	}
	if r.st.Mode == wg.Fresh {
		r.exchange()
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

// restore handles a device whose PSK is not the one applied: it applies
// the PSK again, or falls back if it cannot recompute it (fresh mode
// after a restart).
func (r *Rotator) restore() error {
	if r.curKnown {
		return r.apply(EventRestored)
	}
	return r.fallBack("the device lost the PSK, and fresh mode cannot recompute it after a restart")
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
		return r.fallBack(r.failureReason(wasFallenBack || r.st.Mode == wg.Timestamp))
	case wasFallenBack:
		r.sinceFallback++
		if r.sinceFallback >= r.maxFailures() && !r.mismatchShown {
			r.mismatchShown = true
			r.emit(Event{Kind: EventKeyMismatch, Err: ErrKeyMismatch, Reason: r.mismatchReason()})
		}
	}
	return r.save()
}

// fallBack switches to the timestamp PSK until the next handshake; reason
// says why in the EventFallback.
func (r *Rotator) fallBack(reason string) error {
	r.st.FallenBack = true
	r.sinceFallback = 0
	r.fresh.reset()
	r.emit(Event{Kind: EventFallback, Reason: reason})
	if err := r.save(); err != nil {
		return err
	}
	return r.applyTimestamp()
}

// handshake handles a new successful handshake.
func (r *Rotator) handshake() error {
	r.mismatchShown, r.sinceFallback = false, 0
	switch {
	case r.st.FallenBack:
		// Both sides used the timestamp PSK of hour curHour: restart the
		// chain at that epoch.
		if r.st.Mode == wg.Timestamp {
			r.st.Failures, r.st.FallenBack = 0, false
			return r.save()
		}
		prev := wg.State{Version: wg.StateVersion, Mode: r.st.Mode, Epoch: r.curHour, MaxFailures: r.st.MaxFailures}
		psk, err := wg.StartChain(r.cfg.Source, r.pair, &r.st, r.curHour)
		if err != nil {
			return err
		}
		r.resyncReason = fmt.Sprintf("a handshake succeeded with the timestamp PSK of hour %d (%s); the chain restarted at epoch %d",
			r.curHour, hourTime(r.curHour), r.curHour)
		if err := r.advance(prev, psk, EventResync); err != nil {
			return err
		}
		if r.st.Mode == wg.Fresh {
			return r.offer()
		}
		return nil
	case r.st.Mode == wg.Timestamp:
		r.st.Failures = 0
		return r.save()
	case r.st.Mode == wg.Fresh:
		r.st.Failures = 0
		if err := r.save(); err != nil {
			return err
		}
		return r.offer()
	}
	prev := r.st
	var psk wg.PSK
	var err error
	if r.st.Mode == wg.HashRatchet {
		psk, err = wg.HashStep(&r.cur, &r.st)
	} else {
		psk, err = wg.Step(r.cfg.Source, r.pair, &r.st, nil)
	}
	if err != nil {
		return err
	}
	return r.advance(prev, psk, EventApplied)
}

// advance records a step from prev to r.st, whose PSK is psk: it saves
// both states, then applies psk (a failed apply is retried by Poll).
func (r *Rotator) advance(prev wg.State, psk wg.PSK, kind EventKind) error {
	r.prev = prev
	r.setCur(psk)
	if err := r.save(); err != nil {
		return err
	}
	if err := r.apply(kind); err != nil {
		r.pending = true
		return err
	}
	return nil
}
