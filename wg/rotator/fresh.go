package rotator

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/kexlab/kexlab/wg"
)

// freshState is fresh mode's exchange in progress (package comment, step
// 2b).
type freshState struct {
	initiator bool

	// Initiator: the Offer awaiting its Answer, its message, when it was
	// last sent.
	offer    *wg.Offer
	offerMsg []byte
	sentAt   time.Time

	// Responder: the SHA-256 of the last Offer answered and the Answer
	// sent, to send again if the Offer is repeated.
	answered  [32]byte
	answerMsg []byte
}

// reset drops an exchange in progress (after a fallback, or on Close).
func (f *freshState) reset() {
	f.offer, f.offerMsg, f.sentAt = nil, nil, time.Time{}
}

// offer starts the exchange for the step after the current position, if
// this side is the initiator and none is in progress.
func (r *Rotator) offer() error {
	f := &r.fresh
	if !f.initiator || f.offer != nil || r.st.FallenBack {
		return nil
	}
	o, msg, err := wg.NewOffer(rand.Reader, r.st.Epoch, r.st.Index+1)
	if err != nil {
		return err
	}
	f.offer, f.offerMsg = o, msg
	return r.sendOffer()
}

func (r *Rotator) sendOffer() error {
	r.fresh.sentAt = r.cfg.Now()
	r.emit(Event{Kind: EventOffer})
	return r.cfg.Channel.Send(r.fresh.offerMsg)
}

// exchange handles the messages that have arrived and repeats an Offer
// whose Answer is overdue. Errors do not stop it: each is reported as an
// EventError (a message from another position is normal after a restart
// or a lost message; the failure path resynchronises).
func (r *Rotator) exchange() {
	for {
		msg, ok := r.cfg.Channel.Receive()
		if !ok {
			break
		}
		if err := r.receive(msg); err != nil {
			r.emit(Event{Kind: EventError, Err: err})
		}
	}
	f := &r.fresh
	if f.offer != nil && r.cfg.Now().Sub(f.sentAt) >= r.cfg.RetryInterval {
		if err := r.sendOffer(); err != nil {
			r.emit(Event{Kind: EventError, Err: err})
		}
	}
}

func (r *Rotator) receive(msg []byte) error {
	m, err := wg.ParseMessage(msg)
	if err != nil {
		return err
	}
	if r.st.FallenBack {
		// The chain restarts at the next handshake; messages of the old
		// one are void.
		return nil
	}
	switch {
	case m.Type == wg.MsgOffer && !r.fresh.initiator:
		return r.answer(msg, m)
	case m.Type == wg.MsgAnswer && r.fresh.initiator:
		return r.finish(msg)
	}
	return fmt.Errorf("%w: message type %d for the other role (do both sides have the same public keys configured?)", wg.ErrInvalidMessage, m.Type)
}

// answer is the responder's side: answer an Offer for the next step, or
// repeat the Answer to an Offer already answered.
func (r *Rotator) answer(msg []byte, m wg.Message) error {
	f := &r.fresh
	h := sha256.Sum256(msg)
	if f.answerMsg != nil && h == f.answered && m.Epoch == r.st.Epoch && m.Index == r.st.Index {
		return r.cfg.Channel.Send(f.answerMsg)
	}
	ans, fresh, err := wg.Answer(msg, r.st.Epoch, r.st.Index+1)
	if err != nil {
		return err
	}
	defer clear(fresh[:])
	prev := r.st
	psk, err := wg.Step(r.cfg.Source, r.pair, &r.st, &fresh)
	if err != nil {
		return err
	}
	f.answered, f.answerMsg = h, ans
	r.emit(Event{Kind: EventAnswer})
	if err := r.advance(prev, psk, EventApplied); err != nil {
		return err
	}
	return r.cfg.Channel.Send(ans)
}

// finish is the initiator's side: an Answer to the Offer in progress.
func (r *Rotator) finish(msg []byte) error {
	f := &r.fresh
	if f.offer == nil {
		return nil // a repeated Answer to an exchange already finished
	}
	fresh, err := f.offer.Finish(msg)
	if err != nil {
		return err // the Offer stays in progress
	}
	defer clear(fresh[:])
	f.reset()
	prev := r.st
	psk, err := wg.Step(r.cfg.Source, r.pair, &r.st, &fresh)
	if err != nil {
		return err
	}
	return r.advance(prev, psk, EventApplied)
}
