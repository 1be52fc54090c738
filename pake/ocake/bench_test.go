package ocake

import (
	"crypto/rand"
	"fmt"
	"testing"
	"time"
)

// The benchmarks run at two PBKDF2 iteration counts: the default, where
// PBKDF2 dominates, and 1, which shows the protocol's own cost over
// ML-KEM-512 and AES. BenchmarkUnavoidable is the floor each run cannot go
// below: per side, the PBKDF2 call, the ML-KEM operations and the AES-CBC
// pass over the key, measured in the same run.
var benchIterations = []int{DefaultIterations, 1}

func benchName(it int) string { return fmt.Sprintf("pbkdf2=%d", it) }

func BenchmarkFullRun(b *testing.B) {
	for _, it := range benchIterations {
		b.Run(benchName(it), func(b *testing.B) {
			for b.Loop() {
				runOnce(b, it)
			}
		})
	}
}

func runOnce(b *testing.B, iterations int) {
	kA, err := DeriveKey([]byte("pw"), testSession.ClientID, testSession.ServerID, iterations)
	if err != nil {
		b.Fatal(err)
	}
	kB, _ := DeriveKey([]byte("pw"), testSession.ClientID, testSession.ServerID, iterations)
	a, _ := NewInitiator(rand.Reader, kA, testSession)
	bob, _ := NewResponder(rand.Reader, kB, testSession)
	m1, _ := a.Next(nil)
	m2, err := bob.Next(m1)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := a.Next(m2); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkInitiator is Alice's side: DeriveKey, message 1, message 2.
// Bob's answer is computed off the clock.
func BenchmarkInitiator(b *testing.B) {
	for _, it := range benchIterations {
		b.Run(benchName(it), func(b *testing.B) {
			kB, _ := DeriveKey([]byte("pw"), testSession.ClientID, testSession.ServerID, it)
			for b.Loop() {
				kA, _ := DeriveKey([]byte("pw"), testSession.ClientID, testSession.ServerID, it)
				a, _ := NewInitiator(rand.Reader, kA, testSession)
				m1, _ := a.Next(nil)
				b.StopTimer()
				bob, _ := NewResponder(rand.Reader, kB, testSession)
				m2, err := bob.Next(m1)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := a.Next(m2); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkResponder is Bob's side: DeriveKey and message 2.
func BenchmarkResponder(b *testing.B) {
	for _, it := range benchIterations {
		b.Run(benchName(it), func(b *testing.B) {
			k, _ := DeriveKey([]byte("pw"), testSession.ClientID, testSession.ServerID, it)
			a, _ := NewInitiator(rand.Reader, k, testSession)
			m1, _ := a.Next(nil)
			for b.Loop() {
				kB, _ := DeriveKey([]byte("pw"), testSession.ClientID, testSession.ServerID, it)
				bob, _ := NewResponder(rand.Reader, kB, testSession)
				if _, err := bob.Next(m1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUnavoidable is the primitive floor of one exchange,
// Unavoidable's Password and Online at the benchmark's iteration count (the
// full run derives both keys too). The ratio BenchmarkFullRun /
// BenchmarkUnavoidable is the protocol's overhead (hashing, copies,
// allocation).
func BenchmarkUnavoidable(b *testing.B) {
	for _, it := range benchIterations {
		b.Run(benchName(it), func(b *testing.B) {
			f, err := Unavoidable(rand.Reader, it)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := f.Password(); err != nil {
					b.Fatal(err)
				}
				if err := f.Online(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRatio interleaves one exchange (runOnce) and one floor
// (Unavoidable's Password, then Online: the KEM after PBKDF2, as in the
// exchange) per iteration, so that both see the same machine load, and
// reports each side's time and full/floor. Separate runs of
// BenchmarkFullRun and BenchmarkUnavoidable on a shared machine can
// differ by more than the exchange's overhead (see Unavoidable).
func BenchmarkRatio(b *testing.B) {
	for _, it := range benchIterations {
		b.Run(benchName(it), func(b *testing.B) {
			f, err := Unavoidable(rand.Reader, it)
			if err != nil {
				b.Fatal(err)
			}
			var full, fl time.Duration
			for b.Loop() {
				t0 := time.Now()
				runOnce(b, it)
				t1 := time.Now()
				if err := f.Password(); err != nil {
					b.Fatal(err)
				}
				if err := f.Online(); err != nil {
					b.Fatal(err)
				}
				full += t1.Sub(t0)
				fl += time.Since(t1)
			}
			n := float64(b.N)
			b.ReportMetric(float64(full.Nanoseconds())/n, "full-ns/op")
			b.ReportMetric(float64(fl.Nanoseconds())/n, "floor-ns/op")
			b.ReportMetric(float64(full)/float64(fl), "full/floor")
		})
	}
}

// Per-primitive benchmarks, for the breakdown.

func BenchmarkPBKDF2(b *testing.B) {
	for b.Loop() {
		DeriveKey([]byte("pw"), testSession.ClientID, testSession.ServerID, DefaultIterations)
	}
}

func BenchmarkKeyGen(b *testing.B) {
	var seed [keySeedSize]byte
	for b.Loop() {
		keyFromSeed(seed[:])
	}
}

func BenchmarkEncaps(b *testing.B) {
	var seed [keySeedSize]byte
	var m [encapsSeedSize]byte
	ek, _, _ := keyFromSeed(seed[:])
	ekBytes := packEncapsulationKey(ek)
	for b.Loop() {
		ek2, _ := parseEncapsulationKey(ekBytes)
		encapsulate(ek2, m[:])
	}
}

func BenchmarkDecaps(b *testing.B) {
	var seed [keySeedSize]byte
	var m [encapsSeedSize]byte
	ek, dk, _ := keyFromSeed(seed[:])
	c, _, _ := encapsulate(ek, m[:])
	for b.Loop() {
		decapsulate(dk, c)
	}
}
