//go:build amd64 && !purego

package pbkdf2

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

func needSHANI(t testing.TB) {
	t.Helper()
	if !hasSHANI {
		t.Skip("no SHA extensions on this CPU")
	}
}

// TestBlockSHANI compares the SHA extensions compression with the
// portable one on random states and blocks: 100,000 single blocks, then
// multi-block calls.
func TestBlockSHANI(t *testing.T) {
	needSHANI(t)
	rng := rand.New(rand.NewPCG(7, 8))
	p := make([]byte, 64*8)
	n := 100_000
	if testing.Short() {
		n = 10_000
	}
	for i := range n {
		var h0 [8]uint32
		for j := range h0 {
			h0[j] = rng.Uint32()
		}
		blocks := 1
		if i%100 == 0 {
			blocks = rng.IntN(9)
		}
		fill(rng, p[:64*blocks])
		h1, h2 := h0, h0
		blockSHANI(&h1, p[:64*blocks])
		blockGeneric(&h2, p[:64*blocks])
		if h1 != h2 {
			t.Fatalf("state %08x, %d blocks %x: SHA-NI %08x, portable %08x", h0, blocks, p[:64*blocks], h1, h2)
		}
	}
	// A length that is not a multiple of 64 compresses the whole blocks.
	h1, h2 := iv, iv
	blockSHANI(&h1, p[:100])
	blockGeneric(&h2, p[:64])
	if h1 != h2 {
		t.Fatalf("100 bytes: SHA-NI %08x, one block %08x", h1, h2)
	}
}

// TestIterateSHANI compares the assembly iteration loop with the portable
// one on random pad states, U and T.
func TestIterateSHANI(t *testing.T) {
	needSHANI(t)
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 2000 {
		var pads [16]uint32
		var u, tt [8]uint32
		for j := range pads {
			pads[j] = rng.Uint32()
		}
		for j := range u {
			u[j], tt[j] = rng.Uint32(), rng.Uint32()
		}
		n := 1 + i%20
		u1, t1, u2, t2 := u, tt, u, tt
		iterateSHANI(&pads, &u1, &t1, n)
		iterateGeneric(&pads, &u2, &t2, n)
		if u1 != u2 || t1 != t2 {
			t.Fatalf("n=%d: SHA-NI U %08x T %08x, portable U %08x T %08x", n, u1, t1, u2, t2)
		}
	}
	// n ≤ 0 changes nothing.
	var pads [16]uint32
	u, tt := [8]uint32{1}, [8]uint32{2}
	iterateSHANI(&pads, &u, &tt, 0)
	if u != ([8]uint32{1}) || tt != ([8]uint32{2}) {
		t.Fatal("n=0 changed U or T")
	}
}

// iterateCalls is iterateSHANI as a Go loop around the one-block assembly
// compression, two calls per iteration, for the benchmark's comparison.
func iterateCalls(pads *[16]uint32, u, t *[8]uint32, n int) {
	var blk [blockSize]byte
	blk[Size] = 0x80
	binary.BigEndian.PutUint64(blk[blockSize-8:], (blockSize+Size)*8)
	for ; n > 0; n-- {
		for i, w := range u {
			binary.BigEndian.PutUint32(blk[4*i:], w)
		}
		h := *(*[8]uint32)(pads[:8])
		blockSHANI(&h, blk[:])
		for i, w := range h {
			binary.BigEndian.PutUint32(blk[4*i:], w)
		}
		*u = *(*[8]uint32)(pads[8:])
		blockSHANI(u, blk[:])
		for i := range t {
			t[i] ^= u[i]
		}
	}
	clear(blk[:])
}

func TestIterateCalls(t *testing.T) {
	needSHANI(t)
	rng := rand.New(rand.NewPCG(11, 12))
	var pads [16]uint32
	var u, tt [8]uint32
	for j := range pads {
		pads[j] = rng.Uint32()
	}
	u1, t1, u2, t2 := u, tt, u, tt
	iterateCalls(&pads, &u1, &t1, 50)
	iterateGeneric(&pads, &u2, &t2, 50)
	if u1 != u2 || t1 != t2 {
		t.Fatal("iterateCalls differs from iterateGeneric")
	}
}

// BenchmarkIterate times 100,000 iterations (one 32-byte block's worth at
// kexlab's default) of the assembly loop and of the Go loop calling the
// assembly compression twice per iteration.
func BenchmarkIterate(b *testing.B) {
	needSHANI(b)
	var pads [16]uint32
	var u, tt [8]uint32
	copy(pads[:8], iv[:])
	copy(pads[8:], iv[:])
	b.Run("asm-loop", func(b *testing.B) {
		for b.Loop() {
			iterateSHANI(&pads, &u, &tt, 100_000)
		}
	})
	b.Run("go-loop", func(b *testing.B) {
		for b.Loop() {
			iterateCalls(&pads, &u, &tt, 100_000)
		}
	})
}
