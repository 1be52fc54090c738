package wage

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/kexlab/kexlab/wifi/lwc/internal/aeadtest"
)

func TestSizes(t *testing.T) {
	// WAGE: 259-bit state of 37 stages of 7 bits, 64-bit rate, 128-bit
	// key, nonce and tag, 111 rounds.
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"state bits", StateSize * 7, 259},
		{"rate bits", Rate * 8, 64},
		{"key bits", KeySize * 8, 128},
		{"nonce bits", NonceSize * 8, 128},
		{"tag bits", TagSize * 8, 128},
		{"rounds", rounds, 111},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	a, err := New(make([]byte, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	if a.NonceSize() != NonceSize || a.Overhead() != TagSize {
		t.Errorf("NonceSize/Overhead = %d/%d", a.NonceSize(), a.Overhead())
	}
}

// wgpTable is the WGP table of the specification (WGP(x) for x = 0..127,
// cells as 7-bit integers, ω^0 in bit 6), transcribed from the
// specification's table as mirrored by rweather/lightweight-crypto
// src/combined/internal-wage.c.
var wgpTable = [128]byte{
	0x00, 0x12, 0x0a, 0x4b, 0x66, 0x0c, 0x48, 0x73, 0x79, 0x3e, 0x61, 0x51,
	0x01, 0x15, 0x17, 0x0e, 0x7e, 0x33, 0x68, 0x36, 0x42, 0x35, 0x37, 0x5e,
	0x53, 0x4c, 0x3f, 0x54, 0x58, 0x6e, 0x56, 0x2a, 0x1d, 0x25, 0x6d, 0x65,
	0x5b, 0x71, 0x2f, 0x20, 0x06, 0x18, 0x29, 0x3a, 0x0d, 0x7a, 0x6c, 0x1b,
	0x19, 0x43, 0x70, 0x41, 0x49, 0x22, 0x77, 0x60, 0x4f, 0x45, 0x55, 0x02,
	0x63, 0x47, 0x75, 0x2d, 0x40, 0x46, 0x7d, 0x5c, 0x7c, 0x59, 0x26, 0x0b,
	0x09, 0x03, 0x57, 0x5d, 0x27, 0x78, 0x30, 0x2e, 0x44, 0x52, 0x3b, 0x08,
	0x67, 0x2c, 0x05, 0x6b, 0x2b, 0x1a, 0x21, 0x38, 0x07, 0x0f, 0x4a, 0x11,
	0x50, 0x6a, 0x28, 0x31, 0x10, 0x4d, 0x5f, 0x72, 0x39, 0x16, 0x5a, 0x13,
	0x04, 0x3c, 0x34, 0x1f, 0x76, 0x1e, 0x14, 0x23, 0x1c, 0x32, 0x4e, 0x7b,
	0x24, 0x74, 0x7f, 0x3d, 0x69, 0x64, 0x62, 0x6f,
}

// TestWGP checks the register-resident WGP, the definition it is built
// from and the constant-time arithmetic version against the
// specification's table.
func TestWGP(t *testing.T) {
	for x := range 128 {
		want := wgpTable[x]
		if got, got2 := wgp2(byte(x), byte(x^0x55)); got != want || got2 != wgpTable[x^0x55] {
			t.Errorf("wgp2(%#x, %#x) = %#x, %#x", x, x^0x55, got, got2)
		}
		if got := wgpArith(byte(x)); got != want {
			t.Errorf("wgpArith(%#x) = %#x, want %#x", x, got, want)
		}
		if got := wgpScan(byte(x)); got != want {
			t.Errorf("wgpScan(%#x) = %#x, want %#x", x, got, want)
		}
	}
}

// TestSB checks that SB is a permutation of the 7-bit cells and that the
// four lanes of sb are independent (sb of a lone cell leaves SB(0) in the
// other lanes, so only lane 0 of it is kept).
func TestSB(t *testing.T) {
	var seen [128]bool
	for x := range uint32(128) {
		y := sb(x) & 0x7f // the other lanes hold SB(0)
		if seen[y] {
			t.Fatalf("SB is not a permutation at %#x", x)
		}
		seen[y] = true
		lanes := sb(x | (x^0x55)<<8 | (127-x)<<16 | (x^0x2a)<<24)
		want := y | (sb(x^0x55)&0x7f)<<8 | (sb(127-x)&0x7f)<<16 | (sb(x^0x2a)&0x7f)<<24
		if lanes != want {
			t.Fatalf("lanes of sb interfere at %#x", x)
		}
	}
}

// TestRoundConstants checks the first constants against the
// specification's listing: the LFSR started from all ones.
func TestRoundConstants(t *testing.T) {
	want := []byte{0x7f, 0x3f, 0x1f, 0x0f, 0x07, 0x03, 0x01, 0x40, 0x20, 0x10, 0x08, 0x04, 0x02, 0x41, 0x60}
	if got := roundConstants[:len(want)]; !bytes.Equal(got, want) {
		t.Errorf("round constants %X, want %X", got, want)
	}
	if roundConstants[2*rounds-1] != 0x46 {
		t.Errorf("last round constant %#x, want 0x46", roundConstants[2*rounds-1])
	}
}

// ctMul multiplies in GF(2^7) without branches or secret indices.
func ctMul(a, b byte) byte {
	var r byte
	for i := range 7 {
		r ^= a & -(b >> (6 - i) & 1)
		a = omega(a)
	}
	return r
}

// wgpArith computes WGP from the power maps with constant-time
// multiplications: 9 squarings and 10 multiplications.
func wgpArith(x byte) byte {
	x2 := ctMul(x, x)
	x4 := ctMul(x2, x2)
	x8 := ctMul(x4, x4)
	y := ctMul(ctMul(x8, x4), x)
	z := y ^ 0x40
	z2 := ctMul(z, z)
	z4 := ctMul(z2, z2)
	z8 := ctMul(z4, z4)
	z16 := ctMul(z8, z8)
	z32 := ctMul(z16, z16)
	z64 := ctMul(z32, z32)
	z7 := ctMul(z4, ctMul(z2, z))
	z9 := ctMul(z8, z)
	return y ^ ctMul(z32, z) ^ ctMul(z32, z7) ^ ctMul(z32, z9) ^ ctMul(ctMul(z64, z32), z8)
}

// wgpScan looks WGP up in the table by reading all 128 entries.
func wgpScan(x byte) byte {
	var y byte
	for i := range 128 {
		d := uint32(byte(i) ^ x)
		y |= wgpTable[i] & byte((d-1)>>8) // all ones iff d == 0
	}
	return y
}

var sink byte

func BenchmarkWGP(b *testing.B) {
	for _, v := range []struct {
		name string
		f    func(byte) byte
	}{
		{"planes", func(x byte) byte { y, _ := wgp2(x, x); return y }},
		{"arith", wgpArith},
		{"scan", wgpScan},
	} {
		b.Run(v.name, func(b *testing.B) {
			x := byte(0x35)
			for b.Loop() {
				x = v.f(x)
			}
			sink = x
		})
	}
}

func BenchmarkSB(b *testing.B) {
	x := uint32(0x01234567)
	for b.Loop() {
		x = sb(x & 0x7f7f7f7f)
	}
	sink = byte(x)
}

func BenchmarkPermute(b *testing.B) {
	var s [StateSize]byte
	b.SetBytes(Rate)
	for b.Loop() {
		Permute(&s)
	}
}

// BenchmarkUnavoidable runs only the permutation calls that Seal of n
// bytes (no associated data) must make: one for the key and nonce, two
// for each absorption of the key (after loading and before the tag), and
// one per 64-bit block including the padded last one.
func BenchmarkUnavoidable(b *testing.B) {
	for _, n := range aeadtest.Sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			calls := 1 + 2 + n/Rate + 1 + 2
			var s [StateSize]byte
			b.SetBytes(int64(n))
			for b.Loop() {
				for range calls {
					Permute(&s)
				}
			}
		})
	}
}
