package ace

import (
	"strconv"
	"testing"

	"github.com/kexlab/kexlab/wifi/lwc/internal/aeadtest"
)

// BenchmarkPermute measures one ACE permutation call (16 steps), the
// unavoidable primitive cost: Seal of n bytes costs ceil((n+1)/8) + 5 calls
// without associated data (3 to initialize, 2 to finalize).
func BenchmarkPermute(b *testing.B) {
	var s [StateSize]byte
	b.SetBytes(Rate)
	for b.Loop() {
		Permute(&s)
	}
}

// BenchmarkUnavoidable runs, per size, only the permutation calls that
// Seal of that many bytes without associated data needs, n/8 + 1 + 5: the
// floor against which BenchmarkSeal and BenchmarkOpen are compared.
func BenchmarkUnavoidable(b *testing.B) {
	for _, n := range aeadtest.Sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			var s state
			calls := n/Rate + 1 + 5
			b.SetBytes(int64(n))
			for b.Loop() {
				for range calls {
					s.permute()
				}
			}
		})
	}
}

func BenchmarkSum256(b *testing.B) {
	for _, n := range aeadtest.Sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			msg := make([]byte, n)
			b.SetBytes(int64(n))
			for b.Loop() {
				Sum256(msg)
			}
		})
	}
}

func BenchmarkHashWrite(b *testing.B) {
	for _, n := range aeadtest.Sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			msg := make([]byte, n)
			h := New256()
			out := make([]byte, 0, Size)
			b.SetBytes(int64(n))
			for b.Loop() {
				h.Reset()
				h.Write(msg)
				out = h.Sum(out[:0])
			}
		})
	}
}
