package ace

import "hash"

// hashIV is the ACE-H-256 state after initialization (§2.5.2, §2.5.3):
// the state with bytes 8, 9, 10 (the top of B) set to the parameters
// 0x80, 0x40, 0x40 (digest 256 bits, rates 64 bits) and all other bytes
// zero, permuted once.
var hashIV = func() state {
	s := state{2: 0x80404000}
	s.permute()
	return s
}()

// digest is an ACE-H-256 computation in progress.
type digest struct {
	s   state
	buf [Rate]byte // pending input, buf[:n]
	n   int
}

// New256 returns a new hash.Hash computing ACE-H-256 (§2.5).
func New256() hash.Hash {
	d := new(digest)
	d.Reset()
	return d
}

// Sum256 returns the ACE-H-256 digest of data: data padded with 0x80 and
// zero bytes to a multiple of 8 bytes (§2.5.1) is absorbed one 8-byte block
// per permutation, then four 8-byte blocks of rate are squeezed with a
// permutation between each (§2.5.4).
func Sum256(data []byte) [Size]byte {
	s := hashIV
	for len(data) >= Rate {
		s.absorb(data)
		s.permute()
		data = data[Rate:]
	}
	return s.final(data)
}

// final absorbs the padded last block p (len(p) < Rate) and squeezes the
// digest.
func (s *state) final(p []byte) [Size]byte {
	var out [Size]byte
	s.absorbPadded(p)
	s.permute()
	s.squeeze(out[:])
	for i := Rate; i < Size; i += Rate {
		s.permute()
		s.squeeze(out[i:])
	}
	return out
}

func (d *digest) Reset() {
	d.s = hashIV
	d.n = 0
}

func (d *digest) Size() int { return Size }

func (d *digest) BlockSize() int { return BlockSize }

func (d *digest) Write(p []byte) (int, error) {
	written := len(p)
	if d.n > 0 {
		k := copy(d.buf[d.n:], p)
		d.n += k
		p = p[k:]
		if d.n < Rate {
			return written, nil
		}
		d.s.absorb(d.buf[:])
		d.s.permute()
		d.n = 0
	}
	for len(p) >= Rate {
		d.s.absorb(p)
		d.s.permute()
		p = p[Rate:]
	}
	d.n = copy(d.buf[:], p)
	return written, nil
}

// Sum appends the digest of the data written so far to b; d is unchanged.
func (d *digest) Sum(b []byte) []byte {
	s := d.s
	out := s.final(d.buf[:d.n])
	return append(b, out[:]...)
}
