package lwc

import (
	"bytes"
	"testing"
)

// BenchmarkPermute is one call of each cipher's permutation.
func BenchmarkPermute(b *testing.B) {
	for _, c := range Ciphers() {
		b.Run(c.Name, func(b *testing.B) {
			for b.Loop() {
				c.Permute()
			}
		})
	}
}

// BenchmarkKDF is the talk's KDF shape: one AEAD call over a 6-block
// (48-octet) message, no associated data, the AEAD set up from the key.
func BenchmarkKDF(b *testing.B) {
	pmk := bytes.Repeat([]byte{7}, 32)
	an, sn := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	for _, c := range Ciphers() {
		b.Run(c.Name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.KDF(pmk, [6]byte{1}, [6]byte{2}, an, sn); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMIC is the MIC over the talk's four 64-bit blocks of associated
// data and over a 121-octet EAPOL frame (message 2 with an RSN element).
func BenchmarkMIC(b *testing.B) {
	kck := bytes.Repeat([]byte{9}, 16)
	for _, c := range Ciphers() {
		for _, n := range []int{32, 121} {
			ad := make([]byte, n)
			b.Run(c.Name+"/ad="+map[int]string{32: "4blocks", 121: "frame121"}[n], func(b *testing.B) {
				for b.Loop() {
					if _, err := c.MIC(kck, ad); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
