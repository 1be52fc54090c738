package wifi

import (
	"bytes"
	"crypto/rand"
	"testing"
)

func BenchmarkRunSAE(b *testing.B) {
	for b.Loop() {
		if _, err := RunSAE(rand.Reader, []byte("ssid"), []byte("password"), testSPA, testAA, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSuite measures, per standard suite, one PTK derivation, one
// MIC over a message-3-sized frame, and one full 4-way handshake, so that
// T_auth = T_4way_tx + 2·T_KDF + 3·T_MIC can be set beside a whole run.
func BenchmarkSuite(b *testing.B) {
	n := bytes.Repeat([]byte{3}, 32)
	frame := make([]byte, 155)
	for _, s := range allSuites {
		pmk := pmkFor(s)
		b.Run(s.Name()+"/PTK", func(b *testing.B) {
			for b.Loop() {
				s.DerivePTK(pmk, testAA, testSPA, n, n)
			}
		})
		ptk, _ := s.DerivePTK(pmk, testAA, testSPA, n, n)
		b.Run(s.Name()+"/MIC", func(b *testing.B) {
			for b.Loop() {
				s.MIC(ptk.KCK, frame)
			}
		})
		b.Run(s.Name()+"/Handshake", func(b *testing.B) {
			for b.Loop() {
				a, _ := NewAuthenticator(Config{Suite: s, PMK: pmk, AA: testAA, SPA: testSPA, Rand: rand.Reader})
				sp, _ := NewSupplicant(Config{Suite: s, PMK: pmk, AA: testAA, SPA: testSPA, Rand: rand.Reader})
				if _, err := RunHandshake(a, sp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
