package wg

import (
	"bytes"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"errors"
	"testing"
)

func TestFreshExchange(t *testing.T) {
	o, offer, err := NewOffer(zeroReader{}, 5, 9)
	if err != nil {
		t.Fatal(err)
	}
	if len(offer) != OfferSize || OfferSize != 22+1184 || AnswerSize != 22+1088 {
		t.Fatalf("offer of %d bytes", len(offer))
	}
	if !bytes.Equal(offer[:22], []byte("KXWG\x01\x01\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x09")) {
		t.Fatalf("offer header %x", offer[:22])
	}
	// The offered key is the one FIPS 203 derives from the seed.
	dk, _ := mlkem.NewDecapsulationKey768(make([]byte, 64))
	if !bytes.Equal(offer[22:], dk.EncapsulationKey().Bytes()) {
		t.Fatal("offer body is not ML-KEM-768 ek of the seed")
	}
	encaps := func(ek *mlkem.EncapsulationKey768) ([]byte, []byte, error) {
		return mlkemtest.Encapsulate768(ek, bytes.Repeat([]byte{0x33}, 32))
	}
	answer, f1, err := answerWith(offer, 5, 9, encaps)
	if err != nil {
		t.Fatal(err)
	}
	wantShared, wantCT, _ := mlkemtest.Encapsulate768(dk.EncapsulationKey(), bytes.Repeat([]byte{0x33}, 32))
	if !bytes.Equal(answer[22:], wantCT) || !bytes.Equal(f1[:], wantShared) || answer[5] != MsgAnswer {
		t.Fatal("answer is not the encapsulation")
	}
	f2, err := o.Finish(answer)
	if err != nil || f1 != f2 {
		t.Fatalf("shared secrets differ: %v", err)
	}
	if _, err := o.Finish(answer); !errors.Is(err, ErrInvalidState) {
		t.Fatalf("offer reused: %v", err)
	}

	// Random encapsulation agrees too.
	o, offer, _ = NewOffer(zeroReader{}, 5, 10)
	answer, f1, _ = Answer(offer, 5, 10)
	if f2, _ := o.Finish(answer); f1 != f2 {
		t.Fatal("random encapsulation: secrets differ")
	}
}

func TestFreshRejects(t *testing.T) {
	o, offer, _ := NewOffer(zeroReader{}, 1, 2)
	if _, _, err := Answer(offer, 1, 3); !errors.Is(err, ErrDesync) {
		t.Errorf("offer for another index: %v", err)
	}
	if _, _, err := Answer(offer, 2, 2); !errors.Is(err, ErrDesync) {
		t.Errorf("offer for another epoch: %v", err)
	}
	answer, _, _ := Answer(offer, 1, 2)
	if _, _, err := Answer(answer, 1, 2); !errors.Is(err, ErrInvalidMessage) {
		t.Errorf("answer as offer: %v", err)
	}
	if _, err := o.Finish(offer); !errors.Is(err, ErrInvalidMessage) {
		t.Errorf("offer as answer: %v", err)
	}
	for name, m := range map[string][]byte{
		"short":   offer[:len(offer)-1],
		"long":    append(bytes.Clone(offer), 0),
		"magic":   append([]byte("KXWH"), offer[4:]...),
		"version": append([]byte("KXWG\x02"), offer[5:]...),
		"type":    append([]byte("KXWG\x01\x03"), offer[6:]...),
		"empty":   nil,
	} {
		if _, err := ParseMessage(m); !errors.Is(err, ErrInvalidMessage) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// An encapsulation key with a coefficient ≥ q is refused (FIPS 203 §7.2).
	bad := bytes.Clone(offer)
	bad[22], bad[23] = 0xff, 0x0f
	if _, _, err := Answer(bad, 1, 2); !errors.Is(err, ErrInvalidMessage) {
		t.Errorf("non-canonical key: %v", err)
	}
	// A modified ciphertext gives another secret (implicit rejection).
	answer, f1, _ := Answer(offer, 1, 2)
	answer[30] ^= 1
	if f2, err := o.Finish(answer); err != nil || f1 == f2 {
		t.Errorf("modified ciphertext: %v", err)
	}
	if !Initiator(pubA, pubB) || Initiator(pubB, pubA) || Initiator(pubA, pubA) {
		t.Error("Initiator")
	}
}

func FuzzParseMessage(f *testing.F) {
	_, offer, _ := NewOffer(zeroReader{}, 1, 2)
	answer, _, _ := Answer(offer, 1, 2)
	f.Add(offer)
	f.Add(answer)
	f.Add([]byte("KXWG\x01\x02"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseMessage(b)
		if err != nil {
			return
		}
		if got := m.marshal(); !bytes.Equal(got, b) {
			t.Fatalf("parse/marshal mismatch")
		}
		if m.Type == MsgOffer {
			Answer(b, m.Epoch, m.Index)
		}
	})
}
