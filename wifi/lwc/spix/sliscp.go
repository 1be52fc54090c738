package spix

import "encoding/binary"

// StateSize is the size in bytes of the sLiSCP-light-256 permutation state.
const StateSize = 32

// Number of steps of sLiSCP-light-256: the full permutation (used at
// initialization and finalization) and the reduced one used between
// blocks of associated data and plaintext (Spix specification §2).
const (
	fullSteps    = 18
	reducedSteps = 9
)

// stepConstants holds, for each of the 18 steps, the round-constant bytes
// rc0 and rc1 of the two Simeck boxes (one bit per Simeck round, least
// significant bit first) and the step-constant bytes sc0 and sc1. Public
// constants of the sLiSCP-light-256 specification (Spix submission §2,
// also tabulated in rweather/lightweight-crypto src/combined/internal-sliscp-light.c).
var stepConstants = [fullSteps][4]uint8{
	{0x0f, 0x47, 0x08, 0x64}, {0x04, 0xb2, 0x86, 0x6b},
	{0x43, 0xb5, 0xe2, 0x6f}, {0xf1, 0x37, 0x89, 0x2c},
	{0x44, 0x96, 0xe6, 0xdd}, {0x73, 0xee, 0xca, 0x99},
	{0xe5, 0x4c, 0x17, 0xea}, {0x0b, 0xf5, 0x8e, 0x0f},
	{0x47, 0x07, 0x64, 0x04}, {0xb2, 0x82, 0x6b, 0x43},
	{0xb5, 0xa1, 0x6f, 0xf1}, {0x37, 0x78, 0x2c, 0x44},
	{0x96, 0xa2, 0xdd, 0x73}, {0xee, 0xb9, 0x99, 0xe5},
	{0x4c, 0xf2, 0xea, 0x0b}, {0xf5, 0x85, 0x0f, 0x47},
	{0x07, 0x23, 0x04, 0xb2}, {0x82, 0xd9, 0x43, 0xb5},
}

// state is the sLiSCP-light-256 state as eight 32-bit words; word i holds
// bytes 4i..4i+3 of the byte-oriented state in big-endian order. The four
// 64-bit subblocks are (x[0],x[1]), (x[2],x[3]), (x[4],x[5]), (x[6],x[7]).
type state [8]uint32

// Permute applies the full 18-step sLiSCP-light-256 permutation to s, whose
// bytes are in the order of the specification: subblock i is bytes
// 8i..8i+7, each 32-bit half big-endian.
func Permute(s *[StateSize]byte) {
	var x state
	for i := range x {
		x[i] = binary.BigEndian.Uint32(s[4*i:])
	}
	x.permute(fullSteps)
	for i := range x {
		binary.BigEndian.PutUint32(s[4*i:], x[i])
	}
}

// simeckRound is one round of Simeck-64 with the round key fixed to the
// constant 0xfffffffe ^ rcBit (the "unkeyed" Simeck box of sLiSCP-light):
// it returns y ^ f(x) ^ key where f(x) = (x<<<5 & x) ^ x<<<1. The terms are
// grouped so that the dependency chain through x is three operations long.
func simeckRound(x, y, rcBit uint32) uint32 {
	return (y ^ 0xfffffffe ^ rcBit ^ (x<<1 | x>>31)) ^ (x<<5|x>>27)&x
}

// permute applies the first steps steps of sLiSCP-light-256. Each step
// applies the Simeck box SB to subblocks 1 and 3, adds the step constants to
// subblocks 0 and 2, and mixes: (X0,X1,X2,X3) <- (X1, X2^X3, X3, X0^X1)
// using the updated values of the step.
func (s *state) permute(steps int) {
	x0, x1, x2, x3, x4, x5, x6, x7 := s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
	for i := range steps {
		c := &stepConstants[i]
		// The 8-round Simeck-64 boxes SB on subblocks 1 and 3, interleaved
		// and two rounds at a time; the Feistel swap is realized by
		// alternating the roles of the two halves.
		r0, r1 := uint32(c[0]), uint32(c[1])
		for range 4 {
			x3 = simeckRound(x2, x3, r0&1)
			x7 = simeckRound(x6, x7, r1&1)
			x2 = simeckRound(x3, x2, r0>>1&1)
			x6 = simeckRound(x7, x6, r1>>1&1)
			r0, r1 = r0>>2, r1>>2
		}
		x0 ^= 0xffffffff
		x1 ^= 0xffffff00 ^ uint32(c[2])
		x4 ^= 0xffffffff
		x5 ^= 0xffffff00 ^ uint32(c[3])
		x0, x1, x2, x3, x4, x5, x6, x7 = x2, x3, x4^x6, x5^x7, x6, x7, x0^x2, x1^x3
	}
	s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7] = x0, x1, x2, x3, x4, x5, x6, x7
}
