package spake2plus

import (
	"bytes"
	"crypto/ecdh"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math/big"
	"testing"

	"golang.org/x/crypto/scrypt"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// le8 is RFC 9383's len(): an 8-byte little-endian length.
func le8(n int) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(n)) }

// TestRegisterInputAndReduction feeds Register a PBKDF that records its
// input and returns 8 zero bytes || w0 || 8 zero bytes || w1 of the RFC's
// vector, so that w0s mod p and w1s mod p are the vector's w0 and w1 and L
// must be the vector's L (RFC 9383, Section 3.2 and Appendix C).
func TestRegisterInputAndReduction(t *testing.T) {
	pw := []byte("pass")
	var gotIn []byte
	pbkdf := func(in []byte, n int) ([]byte, error) {
		gotIn = bytes.Clone(in)
		if n != 80 {
			t.Errorf("PBKDF asked for %d bytes, want 80", n)
		}
		out := append(make([]byte, 8), tW0...)
		out = append(out, make([]byte, 8)...)
		return append(out, tW1...), nil
	}
	w0, w1, L, err := Register(pw, tIDProver, tIDVerifier, pbkdf)
	if err != nil {
		t.Fatal(err)
	}
	var wantIn []byte
	for _, f := range [][]byte{pw, tIDProver, tIDVerifier} {
		wantIn = append(append(wantIn, le8(len(f))...), f...)
	}
	if !bytes.Equal(gotIn, wantIn) {
		t.Errorf("PBKDF input %x, want %x", gotIn, wantIn)
	}
	if !bytes.Equal(w0, tW0) || !bytes.Equal(w1, tW1) || !bytes.Equal(L, tL) {
		t.Errorf("Register gave w0 %x, w1 %x, L %x; want the RFC vector's", w0, w1, L)
	}

	// Halves that exceed p are reduced: check against math/big (a test
	// oracle on test values) and crypto/ecdh for L.
	out := make([]byte, 80)
	for i := range out {
		out[i] = byte(0xff - i)
	}
	w0, w1, L, err = Register(pw, nil, nil, func([]byte, int) ([]byte, error) { return bytes.Clone(out), nil })
	if err != nil {
		t.Fatal(err)
	}
	n := new(big.Int).SetBytes(p256N)
	want0 := new(big.Int).Mod(new(big.Int).SetBytes(out[:40]), n).FillBytes(make([]byte, 32))
	want1 := new(big.Int).Mod(new(big.Int).SetBytes(out[40:]), n).FillBytes(make([]byte, 32))
	if !bytes.Equal(w0, want0) || !bytes.Equal(w1, want1) {
		t.Errorf("reduction: w0 %x w1 %x, want %x %x", w0, w1, want0, want1)
	}
	k, err := ecdh.P256().NewPrivateKey(want1)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(L, k.PublicKey().Bytes()) {
		t.Errorf("L = %x, want w1*P = %x", L, k.PublicKey().Bytes())
	}
}

func TestRegisterErrors(t *testing.T) {
	short := func([]byte, int) ([]byte, error) { return make([]byte, 79), nil }
	failing := func([]byte, int) ([]byte, error) { return nil, errors.New("boom") }
	zeroHalf := func([]byte, int) ([]byte, error) {
		out := make([]byte, 80)
		out[79] = 1
		return out, nil // w0s = 0
	}
	for name, tc := range map[string]struct {
		pw    []byte
		pbkdf PBKDF
	}{
		"empty password": {nil, cheapPBKDF},
		"nil PBKDF":      {[]byte("pw"), nil},
		"short output":   {[]byte("pw"), short},
		"failing PBKDF":  {[]byte("pw"), failing},
		"w0 zero":        {[]byte("pw"), zeroHalf},
	} {
		if _, _, _, err := Register(tc.pw, tIDProver, tIDVerifier, tc.pbkdf); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("%s: got %v, want ErrInvalidParameter", name, err)
		}
	}
}

func TestScrypt(t *testing.T) {
	salt := IdentitySalt(tIDProver, tIDVerifier)
	in := []byte("input")
	got, err := Scrypt(salt)(in, 80)
	if err != nil {
		t.Fatal(err)
	}
	// RFC 9383, Section 3.2's recommended cost: N=32768, r=8, p=1.
	want, err := scrypt.Key(in, salt, 32768, 8, 1, 80)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Scrypt does not use N=32768, r=8, p=1 with the salt")
	}
}

func TestIdentitySalt(t *testing.T) {
	msg := []byte("kexlab SPAKE2+ salt v1")
	msg = append(append(msg, le8(6)...), "client"...)
	msg = append(append(msg, le8(6)...), "server"...)
	want := sha256.Sum256(msg)
	if got := IdentitySalt(tIDProver, tIDVerifier); !bytes.Equal(got, want[:]) {
		t.Errorf("IdentitySalt = %x, want %x", got, want)
	}
	seen := map[string]string{}
	for _, ids := range [][2]string{{"client", "server"}, {"server", "client"}, {"clients", "erver"}, {"", "clientserver"}, {"", ""}} {
		s := string(IdentitySalt([]byte(ids[0]), []byte(ids[1])))
		if prev, dup := seen[s]; dup {
			t.Errorf("identities %q and %s give the same salt", ids, prev)
		}
		seen[s] = ids[0] + "/" + ids[1]
	}
}

func validRecord() []byte {
	r := Record{Salt: IdentitySalt(tIDProver, tIDVerifier), W0: tW0, L: tL}
	b, err := r.MarshalBinary()
	if err != nil {
		panic(err)
	}
	return b
}

func TestRecord(t *testing.T) {
	b := validRecord()
	if len(b) != RecordSize || RecordSize != 129 {
		t.Fatalf("record of %d bytes, RecordSize %d", len(b), RecordSize)
	}
	salt := IdentitySalt(tIDProver, tIDVerifier)
	if !bytes.Equal(b, append(append(bytes.Clone(salt), tW0...), tL...)) {
		t.Fatalf("record encoding is not salt || w0 || L")
	}
	var r Record
	if err := r.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.Salt, salt) || !bytes.Equal(r.W0, tW0) || !bytes.Equal(r.L, tL) {
		t.Fatalf("round trip changed the record")
	}
	b[0] ^= 1 // the parsed record does not alias its input
	if !bytes.Equal(r.Salt, salt) {
		t.Fatal("parsed record aliases its input")
	}
}

func TestRecordParseErrors(t *testing.T) {
	with := func(off int, val []byte) []byte {
		b := validRecord()
		copy(b[off:], val)
		return b
	}
	const w0Off, lOff = SaltSize, SaltSize + ScalarSize
	lCompressed := mustPoint(mHex).BytesCompressed()
	cases := map[string][]byte{
		"empty":            {},
		"nil":              nil,
		"one byte short":   validRecord()[:RecordSize-1],
		"one byte long":    append(validRecord(), 0),
		"w0 zero":          with(w0Off, make([]byte, ScalarSize)),
		"w0 = n":           with(w0Off, p256N),
		"w0 all ones":      with(w0Off, bytes.Repeat([]byte{0xff}, ScalarSize)),
		"L prefix 0x00":    with(lOff, []byte{0}),
		"L prefix 0x02":    with(lOff, []byte{2}),
		"L off the curve":  with(RecordSize-1, []byte{tL[ShareSize-1] ^ 1}),
		"L x = p":          with(lOff+1, p256P),
		"L all zero":       with(lOff, make([]byte, ShareSize)),
		"L compressed+pad": with(lOff, append(lCompressed, make([]byte, 32)...)),
	}
	for name, b := range cases {
		var r Record
		if err := r.UnmarshalBinary(b); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("%s: got %v, want ErrInvalidParameter", name, err)
		}
		if r.Salt != nil || r.W0 != nil || r.L != nil {
			t.Errorf("%s: failed parse changed the record", name)
		}
	}
	for name, r := range map[string]Record{
		"short salt":   {Salt: make([]byte, 31), W0: tW0, L: tL},
		"compressed L": {Salt: make([]byte, 32), W0: tW0, L: lCompressed},
		"w0 zero":      {Salt: make([]byte, 32), W0: make([]byte, 32), L: tL},
		"empty":        {},
	} {
		if _, err := r.MarshalBinary(); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("MarshalBinary %s: got %v, want ErrInvalidParameter", name, err)
		}
	}
}
