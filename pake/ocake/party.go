package ocake

import (
	"crypto/subtle"
	"fmt"
	"io"

	"github.com/cloudflare/circl/kem/mlkem/mlkem512"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Initiator is Alice, the client: she sends message 1 and checks Bob's
// authenticator in message 2. It is a state machine: Next(nil) returns
// message 1, Next(message 2) returns nil and finishes.
type Initiator struct {
	party
	dk  *mlkem512.PrivateKey
	apk []byte
}

// NewInitiator returns Alice for the session s, with pwKey from DeriveKey.
// Randomness (the ML-KEM key seed and the IV) is read from rand; nil means
// crypto/rand.
func NewInitiator(rand io.Reader, pwKey []byte, s Session) (*Initiator, error) {
	p, err := newParty(rand, pwKey, s)
	if err != nil {
		return nil, err
	}
	return &Initiator{party: p}, nil
}

// Next takes nil and returns message 1, then takes message 2, checks it and
// returns nil with the session key ready.
func (a *Initiator) Next(in []byte) ([]byte, error) {
	switch a.state {
	case stateStart:
		if in != nil {
			return nil, a.fail(fmt.Errorf("%w: the initiator speaks first", pakeerr.ErrInvalidMessage))
		}
		out, err := a.start()
		if err != nil {
			return nil, a.fail(err)
		}
		a.state = stateWaiting
		return out, nil
	case stateWaiting:
		if err := a.finish(in); err != nil {
			return nil, a.fail(err)
		}
		a.state = stateDone
		return nil, nil
	}
	return nil, fmt.Errorf("%w: initiator already finished", pakeerr.ErrState)
}

// start generates (ek, dk) and returns apk, message 1.
func (a *Initiator) start() ([]byte, error) {
	var seed [keySeedSize + ivSize]byte
	if err := a.readRand(seed[:]); err != nil {
		return nil, err
	}
	ek, dk, err := keyFromSeed(seed[:keySeedSize])
	if err != nil {
		return nil, err
	}
	clear(seed[:keySeedSize])
	a.dk = dk
	a.apk = encryptPublicKey(a.kEnc, seed[keySeedSize:], packEncapsulationKey(ek))
	return a.apk, nil
}

// finish processes message 2, c ‖ Auth.
func (a *Initiator) finish(in []byte) error {
	if len(in) != Message2Size {
		return fmt.Errorf("%w: message 2 of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(in), Message2Size)
	}
	c, auth := in[:ciphertextSize], in[ciphertextSize:]
	k, err := decapsulate(a.dk, c)
	if err != nil {
		return fmt.Errorf("%w: %v", pakeerr.ErrInvalidMessage, err)
	}
	want := a.auth(a.apk, c, k)
	if subtle.ConstantTimeCompare(auth, want[:]) != 1 {
		clear(k)
		return fmt.Errorf("%w: responder's authenticator does not verify", pakeerr.ErrAuthFailed)
	}
	a.key = a.sessionKey(a.apk, c, auth, k)
	clear(k)
	a.forget()
	return nil
}

// forget drops the secrets once the key is derived.
func (a *Initiator) forget() {
	a.dk = nil
	a.party.forget()
}

func (a *Initiator) fail(err error) error {
	a.dk = nil
	return a.party.fail(err)
}

// Responder is Bob, the server: he answers message 1 with message 2 and is
// then done. Next(message 1) returns message 2.
type Responder struct {
	party
}

// NewResponder returns Bob for the session s, with pwKey from DeriveKey.
// Randomness (the encapsulation seed) is read from rand; nil means
// crypto/rand.
func NewResponder(rand io.Reader, pwKey []byte, s Session) (*Responder, error) {
	p, err := newParty(rand, pwKey, s)
	if err != nil {
		return nil, err
	}
	return &Responder{party: p}, nil
}

// Next takes message 1 and returns message 2; the session key is then
// ready. A message 1 that does not decrypt to a padded ML-KEM-512 key under
// this password fails with ErrAuthFailed.
func (b *Responder) Next(in []byte) ([]byte, error) {
	if b.state != stateStart {
		return nil, fmt.Errorf("%w: responder already answered", pakeerr.ErrState)
	}
	out, err := b.respond(in)
	if err != nil {
		return nil, b.fail(err)
	}
	b.state = stateDone
	return out, nil
}

func (b *Responder) respond(apk []byte) ([]byte, error) {
	if len(apk) != Message1Size {
		return nil, fmt.Errorf("%w: message 1 of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(apk), Message1Size)
	}
	ek, ok := decryptPublicKey(b.kEnc, apk)
	if !ok {
		return nil, fmt.Errorf("%w: message 1 does not decrypt to an ML-KEM-512 key (wrong password?)", pakeerr.ErrAuthFailed)
	}
	var m [encapsSeedSize]byte
	if err := b.readRand(m[:]); err != nil {
		return nil, err
	}
	c, k, err := encapsulate(ek, m[:])
	clear(m[:])
	if err != nil {
		return nil, err
	}
	auth := b.auth(apk, c, k)
	b.key = b.sessionKey(apk, c, auth[:], k)
	clear(k)
	b.forget()
	out := make([]byte, 0, Message2Size)
	out = append(out, c...)
	return append(out, auth[:]...), nil
}
