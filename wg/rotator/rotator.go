// Package rotator is the monitor of the WireGuard PSK rotator (issue 7): a
// Rotator watches one peer's last-handshake time on a WireGuard device
// (package wg/wgdev) and, after every successful handshake, applies the
// next pre-shared key of its schedule (package wg), persisting its
// position atomically.
//
// # Protocol
//
// Both peers run a Rotator with the same mode and a key source holding the
// same key. Each side acts on what it observes locally; only fresh mode
// exchanges messages (step 2b).
//
//  1. Start. A Rotator without a state file starts fallen back: it applies
//     the timestamp PSK of the current hour (wg.TimestampPSK), which both
//     sides compute alike.
//  2. Rotation. When LastHandshake advances, the handshake used the PSK
//     both sides had applied. The Rotator then computes the next PSK
//     (wg.Step for the hardware ratchet, wg.HashStep for the hash ratchet;
//     the timestamp mode has nothing to step), saves the state, and applies
//     the PSK with an update-only peer set. WireGuard uses a PSK only when
//     a new handshake starts, so the established session is not disturbed.
//     2b. Fresh mode. The two rotators agree on fresh material through the
//     tunnel (package wg, fresh.go) over a wgdev.Channel: after a
//     handshake the initiator (wg.Initiator: the smaller public key) sends
//     an Offer for step i+1, and repeats it every RetryInterval until the
//     Answer arrives. The responder answers an Offer for the step after
//     its position, steps (wg.Step with the fresh secret), saves, applies,
//     and keeps its Answer to send again if the same Offer comes again
//     (the Answer was lost); the initiator steps when the Answer arrives.
//     Messages for any other position are refused (ErrDesync events). If
//     the exchange cannot finish, the sides hold different PSKs, the next
//     handshake fails, and steps 3–5 resynchronise them. After a
//     resynchronisation the initiator offers at once, so the hardware-only
//     PSK of the restarted chain is replaced before the next handshake.
//  3. Failure detection. A handshake is failing when the last one is older
//     than StaleAfter (default RejectAfterTime, 180 s: any session is dead
//     by then, so traffic needs a new handshake) and packets still move in
//     either direction (TxBytes or RxBytes grow: the initiator sends
//     initiations, the responder receives them). Each FailWindow of such
//     time, counted from the last handshake, is one failure
//     (wg.State.Failed). Both sides measure from the same handshake, so
//     they count the same failures at about the same time.
//  4. Fallback. At MaxFailures both sides set FallenBack and apply the
//     timestamp PSK of the current hour.
//  5. Resynchronisation. The first successful handshake while fallen back
//     proves both sides applied the timestamp PSK of the same hour h; both
//     restart the chain with wg.StartChain at epoch h (the hour of the PSK
//     that worked, not of the local clock), so they agree without
//     exchanging anything. A chain restarted twice in one hour repeats its
//     first PSKs (not in fresh mode once the first exchange is done);
//     WireGuard's security does not depend on PSK uniqueness (its
//     ephemeral keys are fresh), only the extra protection is repeated.
//     5b. The session of that handshake. The handshake that ends a
//     fallback (and every handshake of the timestamp mode) ran under the
//     hour's timestamp PSK, which every session of that pair in that hour
//     shares; the chain's PSK protects only the next handshake. The thesis
//     (§4.3.2) wants the peers to re-key at once. Stock WireGuard offers no
//     way to ask for a handshake: neither the kernel's netlink nor the UAPI
//     of wireguard-go has a "re-key now" operation, setting a PSK or the
//     same private key leaves the sessions alone, and removing and
//     re-adding the peer (which would drop them) replaces the peer — it
//     resets its counters and last-handshake time and races with the other
//     side's rotator, which may then take the forced handshake for the
//     resynchronisation and step out of line — so the Rotator does not do
//     it. The exposure is bounded by WireGuard's timers: the initiator
//     re-keys once the session is RekeyAfterTime (120 s) old and it sends,
//     and no session is used past RejectAfterTime (180 s); so at most
//     about two minutes of traffic (three in the worst case) after a
//     fallback ride on the hour's timestamp PSK, which an attacker needs
//     the hardware key (or that hour's PSK) to compute, as for any PSK.
//  6. Key mismatch. If handshakes keep failing while fallen back, for
//     another MaxFailures windows, the keys differ (or the peer is down):
//     the Rotator reports EventKeyMismatch with ErrKeyMismatch and keeps
//     the timestamp PSK, so the tunnel comes back when the key is fixed.
//     Peers whose clocks are an hour or more apart look the same from one
//     side (each applies the PSK of its own hour): the event's Reason
//     names the hour and the local clock so that the operator can compare
//     them, and when an hour boundary passed since the last handshake it
//     says a clock skew is likely.
//  7. Device changes. If the device's PSK is not the one applied (the
//     interface was re-created, or someone set another key), the Rotator
//     applies its PSK again (EventRestored); in fresh mode after a restart,
//     when it cannot recompute the PSK, it falls back instead.
//
// # Persistence and restarts
//
// The state (wg.State) is saved atomically after every change, at
// StatePath, together with the state one step earlier at StatePath+".prev"
// (saved first). A restarted Rotator recomputes the current PSK from them
// (the hardware ratchet's PSK_i needs H_{i-1}, which only the previous
// state holds; the hash ratchet recomputes its chain from the hardware),
// leaves the device alone if it already has that PSK (PeerStatus.PSKHash)
// and takes the device's current LastHandshake as already handled. Fresh
// mode's PSKs cannot be recomputed (the fresh secrets are never stored):
// a restarted Rotator continues if the device still holds the PSK of the
// state, and falls back otherwise. If the daemon died between a handshake
// and its save, or the files disagree, the sides are out of step and the
// failure path above resynchronises them.
//
// PSKs are never logged (events carry positions and hashes only) and are
// zeroed after use; see package wg on the limits of zeroing in Go.
package rotator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/kexlab/kexlab/internal/stackwipe"
	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/wgdev"
)

var (
	// ErrKeyMismatch: handshakes fail even with the fallback PSK; the
	// peers' keys differ, or the peer is unreachable.
	ErrKeyMismatch = errors.New("rotator: handshakes fail with the fallback PSK (different keys, the peer down, or clocks an hour or more apart?)")
	// ErrModeMismatch: the state file is in another mode than the one
	// configured (see ModeMismatchError).
	ErrModeMismatch = errors.New("rotator: the state file is in another mode")
)

// ModeMismatchError: the state file at Path holds a chain in mode State;
// the configuration asks for Config. Peers in different modes never agree
// on a PSK, so the Rotator refuses rather than pick one silently; with
// Config.ResetState it restarts the chain in the configured mode.
type ModeMismatchError struct {
	Path          string
	State, Config wg.Mode
}

func (e *ModeMismatchError) Error() string {
	return fmt.Sprintf("rotator: state file %s is in mode %v but the configuration says %v: change the mode back, or restart the chain in %v with -reset-state (on both peers)",
		e.Path, e.State, e.Config, e.Config)
}

// Is makes errors.Is(err, ErrModeMismatch) true.
func (e *ModeMismatchError) Is(target error) bool { return target == ErrModeMismatch }

// Defaults for Config.
const (
	DefaultStaleAfter   = 180 * time.Second // WireGuard's RejectAfterTime
	DefaultFailWindow   = 15 * time.Second  // three RekeyTimeouts
	DefaultPollInterval = time.Second
	// DefaultRetryInterval spaces fresh mode's repeated Offers.
	DefaultRetryInterval = time.Second
)

// Config configures a Rotator.
type Config struct {
	// Self and Peer are the WireGuard public keys of this device and of
	// the peer whose PSK is rotated.
	Self, Peer [32]byte
	Source     keysource.Source
	Device     wgdev.Device
	// Channel reaches the peer's rotator through the tunnel; fresh mode
	// needs it (see wgdev.Mux), the other modes ignore it.
	Channel wgdev.Channel
	// Mode is the configured schedule. A state file in another mode is
	// refused (ModeMismatchError) unless ResetState is set; zero accepts
	// the state file's mode.
	Mode wg.Mode
	// ResetState discards the state file and restarts the chain in Mode,
	// fallen back to the timestamp PSK until the next handshake (an
	// EventReset says what was discarded).
	ResetState bool
	// StatePath is the state file ("" keeps the state in memory only).
	StatePath string
	// MaxFailures is the fallback threshold (0: wg.DefaultMaxFailures).
	MaxFailures int
	// StaleAfter, FailWindow and PollInterval tune failure detection and
	// Run (0: the defaults above).
	StaleAfter, FailWindow, PollInterval time.Duration
	// RetryInterval spaces fresh mode's repeated Offers (0: the default).
	RetryInterval time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Events receives every event (nil: none). It is called synchronously.
	Events func(Event)
}

// EventKind says what happened.
type EventKind int

const (
	// EventApplied: a PSK was applied to the device (Index, Epoch say which).
	EventApplied EventKind = iota + 1
	// EventFailure: a failed handshake was counted.
	EventFailure
	// EventFallback: the rotator fell back to the timestamp PSK.
	EventFallback
	// EventResync: a handshake with the fallback PSK succeeded; the chain
	// restarted at Epoch.
	EventResync
	// EventKeyMismatch: handshakes fail even after the fallback (Err is
	// ErrKeyMismatch).
	EventKeyMismatch
	// EventError: an operation failed (Err); the rotator retries at the
	// next poll.
	EventError
	// EventOffer: fresh mode sent an Offer (for step Index+1); EventAnswer:
	// it answered one and stepped (EventApplied follows).
	EventOffer
	EventAnswer
	// EventRestored: the device had lost or changed the PSK; the rotator
	// applied it again.
	EventRestored
	// EventReset: Config.ResetState discarded a state file (Reason says
	// which position).
	EventReset
	// EventRecovered: a poll succeeded after EventErrors (Failures of the
	// event is unchanged; Reason counts the failed polls).
	EventRecovered
)

var kindNames = [...]string{"", "applied", "failure", "fallback", "resync", "key-mismatch", "error", "offer", "answer", "restored", "reset", "recovered"}

func (k EventKind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("event(%d)", int(k))
}

// Event reports a step of a Rotator. It never carries a PSK: Hash is the
// wg.PSK.Hash commitment of the applied PSK.
type Event struct {
	Kind         EventKind
	Mode         wg.Mode
	FallenBack   bool
	Epoch, Index uint64
	Failures     int
	Hash         [32]byte
	// Handshake is the last handshake the Rotator has seen (zero: none).
	Handshake time.Time
	// Reason says why, in words, for fallbacks, resynchronisations, key
	// mismatches, resets and recoveries.
	Reason string
	Err    error
}

func (e Event) String() string {
	s := fmt.Sprintf("%s mode=%v epoch=%d index=%d failures=%d", e.Kind, e.Mode, e.Epoch, e.Index, e.Failures)
	if e.FallenBack {
		s += " fallen-back"
	}
	if e.Kind == EventApplied || e.Kind == EventResync || e.Kind == EventRestored {
		s += fmt.Sprintf(" psk-hash=%x", e.Hash[:4])
	}
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Rotator rotates the PSK of one peer. Its methods are not safe for
// concurrent use: one goroutine runs Run (or calls Poll).
type Rotator struct {
	cfg  Config
	pair [32]byte

	st, prev wg.State
	cur      wg.PSK   // the applied PSK (needed by the hash ratchet)
	curKnown bool     // cur holds it (not after a restart in fresh mode)
	applied  [32]byte // hash of the PSK the device should hold
	curHour  uint64   // the hour of cur while it is a timestamp PSK

	fresh freshState

	lastHS        time.Time // the handshake already handled
	since         time.Time // start of failure counting if no handshake was seen
	tx, rx        uint64
	active        bool // packets moved in the current window
	windows       int  // failure windows counted since lastHS
	sinceFallback int  // failures counted while fallen back
	mismatchShown bool
	pending       bool // a saved PSK still to be applied
	resyncReason  string
}

// New loads the state at cfg.StatePath (or starts fallen back in cfg.Mode
// if there is none), recomputes the current PSK and applies it to the
// device unless the device already has it.
func New(cfg Config) (*Rotator, error) {
	if cfg.Source == nil || cfg.Device == nil {
		return nil, fmt.Errorf("%w: Source and Device are required", wg.ErrInvalidState)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.StaleAfter <= 0 {
		cfg.StaleAfter = DefaultStaleAfter
	}
	if cfg.FailWindow <= 0 {
		cfg.FailWindow = DefaultFailWindow
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.RetryInterval <= 0 {
		cfg.RetryInterval = DefaultRetryInterval
	}
	r := &Rotator{cfg: cfg, pair: wg.PairID(cfg.Self, cfg.Peer)}
	r.fresh.initiator = wg.Initiator(cfg.Self, cfg.Peer)
	if err := r.load(); err != nil {
		return nil, err
	}
	if r.st.Mode == wg.Fresh && cfg.Channel == nil {
		return nil, fmt.Errorf("%w: fresh mode needs a Channel to the peer's rotator", wg.ErrInvalidState)
	}
	ps, err := cfg.Device.Peer(cfg.Peer)
	if err != nil {
		return nil, err
	}
	r.lastHS, r.tx, r.rx, r.since = ps.LastHandshake, ps.TxBytes, ps.RxBytes, cfg.Now()
	if r.st.Mode == wg.Fresh && !r.st.FallenBack && ps.PSKHash == r.st.LastHash {
		// The device holds the PSK of the state; nothing to recompute.
		r.applied = ps.PSKHash
		return r, nil
	}
	if err := r.recompute(); err != nil {
		// The files do not give the current PSK: fall back (the peer's
		// failure detection follows, see the package comment).
		wasFallenBack := r.st.FallenBack
		r.st.FallenBack = true
		if !wasFallenBack {
			r.emit(Event{Kind: EventFallback, Reason: "the state files do not give the current PSK (" + err.Error() + ")"})
		}
		if err := r.applyTimestamp(); err != nil {
			return nil, err
		}
		return r, r.save()
	}
	r.applied = ps.PSKHash
	if ps.PSKHash != r.cur.Hash() {
		if err := r.apply(EventApplied); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *Rotator) load() error {
	if r.cfg.StatePath != "" {
		st, err := wg.LoadState(r.cfg.StatePath)
		switch {
		case err == nil && r.cfg.ResetState:
			r.emit(Event{Kind: EventReset, Reason: fmt.Sprintf("discarded state in mode %v at epoch %d index %d; the chain restarts in mode %v after the next handshake, under the timestamp PSK until then",
				st.Mode, st.Epoch, st.Index, r.cfg.Mode)})
		case err == nil && r.cfg.Mode != 0 && st.Mode != r.cfg.Mode:
			return &ModeMismatchError{Path: r.cfg.StatePath, State: st.Mode, Config: r.cfg.Mode}
		case err == nil:
			r.st = st
			if prev, err := wg.LoadState(r.cfg.StatePath + ".prev"); err == nil {
				r.prev = prev
			}
			return nil
		case !errors.Is(err, os.ErrNotExist):
			return err
		}
	}
	if r.cfg.Mode == 0 {
		return fmt.Errorf("%w: no state file and no mode", wg.ErrInvalidState)
	}
	r.st = wg.NewState(r.cfg.Mode)
	r.st.MaxFailures = r.cfg.MaxFailures
	r.st.FallenBack = true
	return nil
}

// recompute sets r.cur to the PSK of the loaded state.
func (r *Rotator) recompute() error {
	r.cur.Zero()
	r.curKnown = false
	if r.st.FallenBack || r.st.Mode == wg.Timestamp {
		return r.timestampPSK()
	}
	switch r.st.Mode {
	case wg.HashRatchet:
		psk, err := wg.ResumeHashRatchet(r.cfg.Source, r.pair, &r.st)
		if err != nil {
			return err
		}
		r.setCur(psk)
		return nil
	case wg.HardwareRatchet:
		p := r.prev
		if p.Mode != r.st.Mode || p.Epoch != r.st.Epoch || p.Index+1 != r.st.Index {
			return fmt.Errorf("%w: previous state does not precede the state", wg.ErrDesync)
		}
		psk, err := wg.Step(r.cfg.Source, r.pair, &p, nil)
		if err != nil {
			return err
		}
		if psk.Hash() != r.st.LastHash {
			psk.Zero()
			return fmt.Errorf("%w: recomputed PSK does not match the state", wg.ErrDesync)
		}
		r.setCur(psk)
		return nil
	case wg.Fresh:
		return fmt.Errorf("%w: fresh mode's PSK cannot be recomputed", wg.ErrDesync)
	}
	return fmt.Errorf("%w: mode %v", wg.ErrInvalidState, r.st.Mode)
}

func (r *Rotator) timestampPSK() error {
	now := r.cfg.Now()
	h, err := wg.Hour(now)
	if err != nil {
		return err
	}
	psk, err := wg.TimestampPSK(r.cfg.Source, r.pair, now)
	if err != nil {
		return err
	}
	r.setCur(psk)
	r.curHour = h
	return nil
}

// setCur replaces the PSK held in memory (zeroing the old one).
func (r *Rotator) setCur(psk wg.PSK) {
	r.cur.Zero()
	r.cur, r.curKnown = psk, true
}

func (r *Rotator) applyTimestamp() error {
	if err := r.timestampPSK(); err != nil {
		return err
	}
	return r.apply(EventApplied)
}

func (r *Rotator) apply(kind EventKind) error {
	if err := r.cfg.Device.SetPSK(r.cfg.Peer, &r.cur); err != nil {
		return err
	}
	r.applied = r.cur.Hash()
	e := Event{Kind: kind, Hash: r.applied}
	if kind == EventResync {
		e.Reason, r.resyncReason = r.resyncReason, ""
	}
	r.emit(e)
	return nil
}

func (r *Rotator) emit(e Event) {
	if r.cfg.Events == nil {
		return
	}
	e.Mode, e.FallenBack, e.Epoch, e.Index, e.Failures = r.st.Mode, r.st.FallenBack, r.st.Epoch, r.st.Index, r.st.Failures
	if e.Mode == 0 {
		e.Mode = r.cfg.Mode
	}
	e.Handshake = r.lastHS
	r.cfg.Events(e)
}

// save writes the previous state, then the state.
func (r *Rotator) save() error {
	if r.cfg.StatePath == "" {
		return nil
	}
	if r.prev.Version != 0 {
		if err := r.prev.Save(r.cfg.StatePath + ".prev"); err != nil {
			return err
		}
	}
	return r.st.Save(r.cfg.StatePath)
}

// State returns the current position.
func (r *Rotator) State() wg.State { return r.st }

// Close zeroes the PSK held in memory. It does not touch the device or
// the Channel.
func (r *Rotator) Close() {
	r.cur.Zero()
	r.fresh.reset()
}

// Run polls the device every PollInterval until ctx is done. Errors are
// reported as EventError and retried; Run returns ctx's error.
func (r *Rotator) Run(ctx context.Context) error {
	t := time.NewTicker(r.cfg.PollInterval)
	defer t.Stop()
	failed := 0
	stackwipe.Wipe() // grows the stack before any rotation (see stackwipe)
	for {
		err := r.Poll()
		stackwipe.Wipe() // the frames of the poll, PSKs included
		if err != nil {
			failed++
			r.emit(Event{Kind: EventError, Err: err})
		} else if failed > 0 {
			r.emit(Event{Kind: EventRecovered, Reason: fmt.Sprintf("after %d failed poll(s)", failed)})
			failed = 0
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}
