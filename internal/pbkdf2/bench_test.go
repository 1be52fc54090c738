package pbkdf2

import (
	stdpbkdf2 "crypto/pbkdf2"
	"crypto/sha256"
	"testing"
)

// BenchmarkKey times a 32-byte key at 100,000 iterations (kexlab's
// DefaultIterations) with this package, its portable code and
// crypto/pbkdf2, in one run. On the development VM (AMD EPYC, Zen 4, SHA
// extensions; five runs of 20 calls, lowest to highest): pbkdf2 7.23-7.42
// ms, crypto-pbkdf2 16.2-17.1 ms, portable 57.0-61.4 ms. The package
// comment compares with Rust.
func BenchmarkKey(b *testing.B) {
	password := []byte("correct horse battery staple")
	salt := sha256.Sum256([]byte("salt"))
	const iter = 100_000
	b.Run("pbkdf2", func(b *testing.B) {
		for b.Loop() {
			sink = Key(password, salt[:], iter, Size)
		}
	})
	b.Run("portable", func(b *testing.B) {
		saved := useSHANI
		defer func() { useSHANI, forcePortable = saved, false }()
		useSHANI, forcePortable = false, true
		for b.Loop() {
			sink = Key(password, salt[:], iter, Size)
		}
	})
	b.Run("crypto-pbkdf2", func(b *testing.B) {
		for b.Loop() {
			k, err := stdpbkdf2.Key(sha256.New, string(password), salt[:], iter, Size)
			if err != nil {
				b.Fatal(err)
			}
			sink = k
		}
	})
}
