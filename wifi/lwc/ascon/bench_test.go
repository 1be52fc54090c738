package ascon

import (
	"fmt"
	"testing"

	"github.com/kexlab/kexlab/wifi/lwc/internal/aeadtest"
)

func BenchmarkPermute(b *testing.B) {
	var s [StateSize]byte
	b.SetBytes(StateSize)
	for b.Loop() {
		Permute(&s)
	}
}

// BenchmarkRounds12 and BenchmarkRounds8 time the internal permutation on
// words, without Permute's byte conversion: the unavoidable primitive cost
// of the modes (Seal of n bytes runs 2 Ascon-p[12] plus about n/16 + 1
// Ascon-p[8]; the hashes run about n/8 + 5 Ascon-p[12]).
func BenchmarkRounds12(b *testing.B) {
	var s state
	for b.Loop() {
		s.rounds(12)
	}
	sink = s[0]
}

func BenchmarkRounds8(b *testing.B) {
	var s state
	for b.Loop() {
		s.rounds(8)
	}
	sink = s[0]
}

var sink uint64

// BenchmarkUnavoidableSeal times, per size, only the permutation calls that
// Seal of that many bytes (no associated data) must make: 2 × Ascon-p[12]
// and ⌊n/16⌋ × Ascon-p[8]. Compare with BenchmarkSeal for the mode's
// overhead.
func BenchmarkUnavoidableSeal(b *testing.B) {
	for _, n := range aeadtest.Sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var s state
			b.SetBytes(int64(n))
			for b.Loop() {
				s.rounds(12)
				for range n / Rate {
					s.rounds(8)
				}
				s.rounds(12)
			}
			sink = s[0]
		})
	}
}

func BenchmarkHash256(b *testing.B) {
	for _, n := range aeadtest.Sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			msg := make([]byte, n)
			b.SetBytes(int64(n))
			for b.Loop() {
				Sum256(msg)
			}
		})
	}
}

func BenchmarkXOF128(b *testing.B) {
	for _, n := range aeadtest.Sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			msg := make([]byte, n)
			out := make([]byte, 32)
			x := NewXOF128()
			b.SetBytes(int64(n))
			for b.Loop() {
				x.Reset()
				x.Write(msg)
				x.Read(out)
			}
		})
	}
}

// BenchmarkUnavoidableHash256 times the permutation calls Sum256 of n bytes
// must make: ⌊n/8⌋ + 1 absorbing and 3 squeezing Ascon-p[12] (the initial
// permutation is precomputed).
func BenchmarkUnavoidableHash256(b *testing.B) {
	for _, n := range aeadtest.Sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var s state
			b.SetBytes(int64(n))
			for b.Loop() {
				for range n/HashRate + 4 {
					s.rounds(12)
				}
			}
			sink = s[0]
		})
	}
}
