package ascon

import (
	"fmt"
	"hash"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

const (
	// Size is the Ascon-Hash256 digest size in bytes (256 bits, §5.1).
	Size = 32
	// MaxCustomizationSize is the longest customization string Ascon-CXOF128
	// accepts, in bytes: SP 800-232 §5.3 limits Z to 2048 bits.
	MaxCustomizationSize = 256
)

// Initial states of the hash functions: Ascon-p[12](IV ∥ 0^256) (§5.1–5.3).
// They depend only on public constants, so they are computed once.
var (
	hash256Init = initialState(ivHash256)
	xof128Init  = initialState(ivXOF128)
	cxof128Init = initialState(ivCXOF128)
)

func initialState(iv uint64) state {
	s := state{iv}
	s.rounds(12)
	return s
}

// sponge is the Ascon hashing mode with rate 64 bits (§5): the message is
// padded to whole 64-bit blocks M_i and absorbed as S0 ⊕= M_i followed by
// Ascon-p[12]; the output is squeezed as the successive values of S0 with
// Ascon-p[12] between them.
type sponge struct {
	s         state
	buf       [HashRate]byte // absorbing: pending input; squeezing: current output block
	n         int            // absorbing: bytes in buf; squeezing: bytes of buf already read
	squeezing bool
}

// absorb adds p to the message. It must not be called once squeezing.
func (d *sponge) absorb(p []byte) {
	if d.n > 0 {
		k := copy(d.buf[d.n:], p)
		d.n += k
		p = p[k:]
		if d.n < HashRate {
			return
		}
		d.s[0] ^= load64(d.buf[:])
		d.s.rounds(12)
		d.n = 0
	}
	for len(p) >= HashRate {
		d.s[0] ^= load64(p)
		d.s.rounds(12)
		p = p[HashRate:]
	}
	d.n = copy(d.buf[:], p)
}

// padAndSwitch absorbs the last, padded block; afterwards S0 is the first
// output block.
func (d *sponge) padAndSwitch() {
	d.s[0] ^= loadPartial(d.buf[:d.n]) ^ pad(d.n)
	d.s.rounds(12)
	store64(d.buf[:], d.s[0])
	d.n = 0
	d.squeezing = true
}

// squeeze fills out with the next output bytes.
func (d *sponge) squeeze(out []byte) {
	if !d.squeezing {
		d.padAndSwitch()
	}
	for len(out) > 0 {
		if d.n == HashRate {
			d.s.rounds(12)
			store64(d.buf[:], d.s[0])
			d.n = 0
		}
		k := copy(out, d.buf[d.n:])
		d.n += k
		out = out[k:]
	}
}

// Sum256 returns the Ascon-Hash256 digest of data (SP 800-232 §5.1).
func Sum256(data []byte) [Size]byte {
	d := sponge{s: hash256Init}
	d.absorb(data)
	var out [Size]byte
	d.squeeze(out[:])
	return out
}

// hash256 is Ascon-Hash256 as a hash.Hash.
type hash256 struct {
	d sponge
}

// NewHash256 returns a hash.Hash computing Ascon-Hash256 (SP 800-232 §5.1).
func NewHash256() hash.Hash {
	return &hash256{d: sponge{s: hash256Init}}
}

func (h *hash256) Write(p []byte) (int, error) {
	h.d.absorb(p)
	return len(p), nil
}

// Sum appends the digest of the data written so far to b; it does not change
// the running hash.
func (h *hash256) Sum(b []byte) []byte {
	d := h.d
	var out [Size]byte
	d.squeeze(out[:])
	return append(b, out[:]...)
}

func (h *hash256) Reset()         { h.d = sponge{s: hash256Init} }
func (h *hash256) Size() int      { return Size }
func (h *hash256) BlockSize() int { return HashRate }

// XOF is Ascon-XOF128 (SP 800-232 §5.2) or Ascon-CXOF128 (§5.3), used like
// crypto/sha3.SHAKE: Write absorbs the message, then Read squeezes as many
// output bytes as wanted. Output does not depend on how the reads are split,
// and the first n bytes are the same for every requested length L ≥ n (the
// output length is not an input of these XOFs).
type XOF struct {
	d     sponge
	start state // the state Reset returns to (after the customization string)
}

// NewXOF128 returns Ascon-XOF128 (SP 800-232 §5.2).
func NewXOF128() *XOF {
	return &XOF{d: sponge{s: xof128Init}, start: xof128Init}
}

// NewCXOF128 returns Ascon-CXOF128 (SP 800-232 §5.3) with customization
// string z. Before the message it absorbs, as 64-bit blocks each followed
// by Ascon-p[12], the bit length of z as a little-endian 64-bit integer and
// then z padded (one block of padding alone if z is empty). A z longer than
// MaxCustomizationSize is an error wrapping pakeerr.ErrInvalidParameter.
func NewCXOF128(z []byte) (*XOF, error) {
	if len(z) > MaxCustomizationSize {
		return nil, fmt.Errorf("%w: ascon: customization string is %d bytes, at most %d",
			pakeerr.ErrInvalidParameter, len(z), MaxCustomizationSize)
	}
	d := sponge{s: cxof128Init}
	d.s[0] ^= uint64(len(z)) * 8
	d.s.rounds(12)
	d.absorb(z)
	d.s[0] ^= loadPartial(d.buf[:d.n]) ^ pad(d.n)
	d.s.rounds(12)
	d.n = 0
	return &XOF{d: d, start: d.s}, nil
}

// Write absorbs p. Once Read has been called it absorbs nothing and returns
// an error wrapping pakeerr.ErrState (call Reset to start over).
func (x *XOF) Write(p []byte) (int, error) {
	if x.d.squeezing {
		return 0, fmt.Errorf("%w: ascon: XOF written after Read", pakeerr.ErrState)
	}
	x.d.absorb(p)
	return len(p), nil
}

// Read fills p with the next len(p) output bytes. It never fails.
func (x *XOF) Read(p []byte) (int, error) {
	x.d.squeeze(p)
	return len(p), nil
}

// Reset returns x to its state right after NewXOF128 or NewCXOF128, with the
// same customization string.
func (x *XOF) Reset() { x.d = sponge{s: x.start} }

// BlockSize returns the rate, HashRate bytes.
func (x *XOF) BlockSize() int { return HashRate }
