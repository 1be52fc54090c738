package wg

import (
	"crypto/mlkem"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Fresh mode's exchange. WireGuard does not expose its ephemeral keys, so
// after handshake i the two rotators agree on fresh material over the
// tunnel itself (which authenticates and encrypts it) with ML-KEM-768
// (FIPS 203):
//
//	initiator → responder  Offer  = header(type 1) || ek    (1184 bytes)
//	responder → initiator  Answer = header(type 2) || ct    (1088 bytes)
//
// with header = "KXWG" || version 0x01 || type || u64(epoch) || u64(i),
// 22 bytes. The responder encapsulates to ek, the initiator decapsulates
// ct; both feed the 32-byte shared key to Step as fresh_i, for PSK_i. The
// initiator is the peer with the smaller public key, so exactly one side
// offers. A message for another epoch or index is refused (ErrDesync).

const (
	freshMagic   = "KXWG"
	freshVersion = 1
	headerSize   = len(freshMagic) + 2 + 16

	// MsgOffer carries an ML-KEM-768 encapsulation key.
	MsgOffer = 1
	// MsgAnswer carries an ML-KEM-768 ciphertext.
	MsgAnswer = 2

	// OfferSize and AnswerSize are the sizes of the whole messages.
	OfferSize  = headerSize + mlkem.EncapsulationKeySize768
	AnswerSize = headerSize + mlkem.CiphertextSize768
)

// ErrInvalidMessage: a fresh-mode message does not parse.
var ErrInvalidMessage = errors.New("wg: invalid fresh-mode message")

// Message is a parsed fresh-mode message.
type Message struct {
	Type         byte
	Epoch, Index uint64
	// Body is the encapsulation key (MsgOffer) or ciphertext (MsgAnswer).
	Body []byte
}

func (m *Message) marshal() []byte {
	b := make([]byte, 0, headerSize+len(m.Body))
	b = append(b, freshMagic...)
	b = append(b, freshVersion, m.Type)
	b = appendU64(b, m.Epoch)
	b = appendU64(b, m.Index)
	return append(b, m.Body...)
}

// ParseMessage parses an Offer or an Answer, checking the magic, version,
// type and the exact length for the type. Body aliases b.
func ParseMessage(b []byte) (Message, error) {
	if len(b) < headerSize || string(b[:4]) != freshMagic {
		return Message{}, fmt.Errorf("%w: bad header", ErrInvalidMessage)
	}
	if b[4] != freshVersion {
		return Message{}, fmt.Errorf("%w: version %d", ErrInvalidMessage, b[4])
	}
	m := Message{
		Type:  b[5],
		Epoch: binary.BigEndian.Uint64(b[6:]),
		Index: binary.BigEndian.Uint64(b[14:]),
		Body:  b[headerSize:],
	}
	switch {
	case m.Type == MsgOffer && len(b) == OfferSize, m.Type == MsgAnswer && len(b) == AnswerSize:
		return m, nil
	}
	return Message{}, fmt.Errorf("%w: type %d with %d bytes", ErrInvalidMessage, m.Type, len(b))
}

// Offer is the initiator's side of one exchange.
type Offer struct {
	dk           *mlkem.DecapsulationKey768
	epoch, index uint64
}

// NewOffer generates an ML-KEM-768 key pair from 64 bytes of rand (the
// seed d || z of FIPS 203 §7.1) and returns the Offer message for step
// index of epoch. Keep the Offer until the Answer arrives; it is single-use.
func NewOffer(rand io.Reader, epoch, index uint64) (*Offer, []byte, error) {
	var seed [mlkem.SeedSize]byte
	defer clear(seed[:])
	if _, err := io.ReadFull(rand, seed[:]); err != nil {
		return nil, nil, fmt.Errorf("wg: reading randomness: %w", err)
	}
	dk, err := mlkem.NewDecapsulationKey768(seed[:])
	if err != nil {
		return nil, nil, err
	}
	m := Message{Type: MsgOffer, Epoch: epoch, Index: index, Body: dk.EncapsulationKey().Bytes()}
	return &Offer{dk: dk, epoch: epoch, index: index}, m.marshal(), nil
}

// Answer handles an Offer for step index of epoch: it encapsulates to the
// offered key (with crypto/rand) and returns the Answer message and the
// shared secret fresh_i.
func Answer(offer []byte, epoch, index uint64) (answer []byte, fresh [32]byte, err error) {
	return answerWith(offer, epoch, index, nil)
}

// answerWith is Answer with a replaceable encapsulation (derandomised in
// tests with crypto/mlkem/mlkemtest); nil means ek.Encapsulate.
func answerWith(offer []byte, epoch, index uint64, encaps func(*mlkem.EncapsulationKey768) ([]byte, []byte, error)) (answer []byte, fresh [32]byte, err error) {
	m, err := ParseMessage(offer)
	if err != nil {
		return nil, fresh, err
	}
	if m.Type != MsgOffer {
		return nil, fresh, fmt.Errorf("%w: expected an offer", ErrInvalidMessage)
	}
	if m.Epoch != epoch || m.Index != index {
		return nil, fresh, fmt.Errorf("%w: offer for epoch %d index %d, expected %d/%d", ErrDesync, m.Epoch, m.Index, epoch, index)
	}
	ek, err := mlkem.NewEncapsulationKey768(m.Body)
	if err != nil {
		return nil, fresh, fmt.Errorf("%w: %v", ErrInvalidMessage, err)
	}
	var shared, ct []byte
	if encaps == nil {
		shared, ct = ek.Encapsulate()
	} else if shared, ct, err = encaps(ek); err != nil {
		return nil, fresh, err
	}
	copy(fresh[:], shared)
	clear(shared)
	a := Message{Type: MsgAnswer, Epoch: epoch, Index: index, Body: ct}
	return a.marshal(), fresh, nil
}

// Finish decapsulates the Answer and returns fresh_i. The Offer cannot be
// used again. ML-KEM decapsulation never fails on a well-formed
// ciphertext: a modified ciphertext yields another secret (implicit
// rejection, FIPS 203 §6.3), so the PSKs differ and the next handshake
// fails, which the monitor detects.
func (o *Offer) Finish(answer []byte) (fresh [32]byte, err error) {
	if o.dk == nil {
		return fresh, fmt.Errorf("%w: offer already used", ErrInvalidState)
	}
	m, err := ParseMessage(answer)
	if err != nil {
		return fresh, err
	}
	if m.Type != MsgAnswer {
		return fresh, fmt.Errorf("%w: expected an answer", ErrInvalidMessage)
	}
	if m.Epoch != o.epoch || m.Index != o.index {
		return fresh, fmt.Errorf("%w: answer for epoch %d index %d, expected %d/%d", ErrDesync, m.Epoch, m.Index, o.epoch, o.index)
	}
	shared, err := o.dk.Decapsulate(m.Body)
	if err != nil {
		return fresh, fmt.Errorf("%w: %v", ErrInvalidMessage, err)
	}
	o.dk = nil // the decapsulation key's memory cannot be cleared from here
	copy(fresh[:], shared)
	clear(shared)
	return fresh, nil
}

// Initiator reports whether the peer with public key self offers in the
// exchange with the peer with public key other: the smaller key offers.
func Initiator(self, other [32]byte) bool {
	for i := range self {
		if self[i] != other[i] {
			return self[i] < other[i]
		}
	}
	return false
}
