//go:build amd64 && !purego

#include "textflag.h"

// SHA-256 with the SHA extensions (SHA256RNDS2, SHA256MSG1, SHA256MSG2).
//
// SHA256RNDS2 runs two rounds. It keeps the eight working variables in two
// registers, as dwords from high to low: ABEF = [A B E F] and CDGH =
// [C D G H], and takes W_t + K_t and W_t+1 + K_t+1 in the low two dwords
// of the implicit X0. Written with Go's operand order,
// "SHA256RNDS2 X0, X1, X2" takes ABEF from X1 and CDGH from X2 and leaves
// the new ABEF in X2; X1 is then the new CDGH, so the next two rounds swap
// the roles back.
//
// Register use:
//	X0	W + K for the next two (four) rounds
//	X1, X2	working state ABEF, CDGH
//	X3-X6	message schedule, four words each, W_i in the lowest dword
//	X7	scratch
//	X8-X11	block: byte-swap mask, saved state; iterate: inner pad
//		state (X8, X9) and outer pad state (X10, X11) as ABEF, CDGH
//	X12, X13	iterate: T, words 0-3 and 4-7

// TOSTATE turns a = [d c b a], b = [h g f e] (dwords high to low, as eight
// words loaded from memory) into a = ABEF, b = CDGH.
// Step by step: X7 = [c d a b], b = [e f g h], a = [a b e f] (from the
// high half of b and the low half of X7), b = [c d g h] (its high half
// from X7).
#define TOSTATE(a, b) \
	PSHUFD  $0xB1, a, X7 \
	PSHUFD  $0x1B, b, b  \
	MOVO    X7, a        \
	PALIGNR $8, b, a     \
	PBLENDW $0xF0, X7, b

// TOWORDS writes the state X1 = ABEF, X2 = CDGH as w0 = [d c b a], w1 =
// [h g f e]: the words in memory order, and equally the message words
// W0-W3 and W4-W7 of a block that starts with the digest.
// The high halves of CDGH and ABEF make [a b c d], the low halves
// [e f g h]; PSHUFD reverses them.
#define TOWORDS(w0, w1) \
	MOVO       X2, w0        \
	PUNPCKHQDQ X1, w0        \
	PSHUFD     $0x1B, w0, w0 \
	MOVO       X2, w1        \
	PUNPCKLQDQ X1, w1        \
	PSHUFD     $0x1B, w1, w1

// QROUND runs four rounds with W + K in X0.
#define QROUND \
	SHA256RNDS2 X0, X1, X2 \
	PSHUFD      $0x0E, X0, X0 \
	SHA256RNDS2 X0, X2, X1

// ROUNDS4 runs four rounds on the message words in m with the round
// constants at byte offset off of k256.
#define ROUNDS4(m, off) \
	MOVOU k256<>+off(SB), X0 \
	PADDD m, X0 \
	QROUND

// SCHED replaces m0 = W_i-16..W_i-13 by W_i..W_i+3, given m1 =
// W_i-12..W_i-9, m2 = W_i-8..W_i-5 and m3 = W_i-4..W_i-1:
// SHA256MSG1 adds σ0(W_j+1) to each W_j, PALIGNR forms W_i-7..W_i-4, and
// SHA256MSG2 adds σ1(W_j-2), the last two from the words it makes itself.
#define SCHED(m0, m1, m2, m3) \
	SHA256MSG1 m1, m0 \
	MOVO       m3, X7 \
	PALIGNR    $4, m2, X7 \
	PADDD      X7, m0 \
	SHA256MSG2 m3, m0

// ROUNDS16TO63 runs rounds 16 to 63, with W0..W15 in X3..X6.
#define ROUNDS16TO63 \
	SCHED(X3, X4, X5, X6) \
	ROUNDS4(X3, 64)       \
	SCHED(X4, X5, X6, X3) \
	ROUNDS4(X4, 80)       \
	SCHED(X5, X6, X3, X4) \
	ROUNDS4(X5, 96)       \
	SCHED(X6, X3, X4, X5) \
	ROUNDS4(X6, 112)      \
	SCHED(X3, X4, X5, X6) \
	ROUNDS4(X3, 128)      \
	SCHED(X4, X5, X6, X3) \
	ROUNDS4(X4, 144)      \
	SCHED(X5, X6, X3, X4) \
	ROUNDS4(X5, 160)      \
	SCHED(X6, X3, X4, X5) \
	ROUNDS4(X6, 176)      \
	SCHED(X3, X4, X5, X6) \
	ROUNDS4(X3, 192)      \
	SCHED(X4, X5, X6, X3) \
	ROUNDS4(X4, 208)      \
	SCHED(X5, X6, X3, X4) \
	ROUNDS4(X5, 224)      \
	SCHED(X6, X3, X4, X5) \
	ROUNDS4(X6, 240)

// COMPRESS32 compresses the block of a 32-byte value after one block (a
// 768-bit message) into the state s0 = ABEF, s1 = CDGH, leaving the result
// in X1, X2. The value's words are in X3, X4; words 8 to 15 are the
// padding: 0x80000000, six zeros, 768. Rounds 8 to 15 take W + K from
// wkpad.
#define COMPRESS32(s0, s1) \
	MOVO  s0, X1 \
	MOVO  s1, X2 \
	MOVOU pad<>+0(SB), X5 \
	MOVOU pad<>+16(SB), X6 \
	ROUNDS4(X3, 0) \
	ROUNDS4(X4, 16) \
	MOVOU wkpad<>+0(SB), X0 \
	QROUND \
	MOVOU wkpad<>+16(SB), X0 \
	QROUND \
	ROUNDS16TO63 \
	PADDD s0, X1 \
	PADDD s1, X2

// func blockSHANI(h *[8]uint32, p []byte)
TEXT ·blockSHANI(SB), NOSPLIT, $0-32
	MOVQ  h+0(FP), DI
	MOVQ  p_base+8(FP), SI
	MOVQ  p_len+16(FP), DX
	SHRQ  $6, DX
	JZ    blockdone
	MOVOU 0(DI), X1
	MOVOU 16(DI), X2
	TOSTATE(X1, X2)
	MOVOU bswap<>(SB), X8

blockloop:
	MOVO   X1, X9
	MOVO   X2, X10
	MOVOU  0(SI), X3
	PSHUFB X8, X3
	MOVOU  16(SI), X4
	PSHUFB X8, X4
	MOVOU  32(SI), X5
	PSHUFB X8, X5
	MOVOU  48(SI), X6
	PSHUFB X8, X6
	ROUNDS4(X3, 0)
	ROUNDS4(X4, 16)
	ROUNDS4(X5, 32)
	ROUNDS4(X6, 48)
	ROUNDS16TO63
	PADDD  X9, X1
	PADDD  X10, X2
	ADDQ   $64, SI
	DECQ   DX
	JNZ    blockloop

	TOWORDS(X3, X4)
	MOVOU X3, 0(DI)
	MOVOU X4, 16(DI)
	PXOR  X0, X0
	PXOR  X1, X1
	PXOR  X2, X2
	PXOR  X3, X3
	PXOR  X4, X4
	PXOR  X5, X5
	PXOR  X6, X6
	PXOR  X7, X7
	PXOR  X9, X9
	PXOR  X10, X10

blockdone:
	RET

// func iterateSHANI(pads *[16]uint32, u, t *[8]uint32, n int)
TEXT ·iterateSHANI(SB), NOSPLIT, $0-32
	MOVQ  pads+0(FP), DI
	MOVQ  u+8(FP), SI
	MOVQ  t+16(FP), DX
	MOVQ  n+24(FP), CX
	TESTQ CX, CX
	JLE   iterdone
	MOVOU 0(DI), X8
	MOVOU 16(DI), X9
	TOSTATE(X8, X9)
	MOVOU 32(DI), X10
	MOVOU 48(DI), X11
	TOSTATE(X10, X11)
	MOVOU 0(SI), X3
	MOVOU 16(SI), X4
	MOVOU 0(DX), X12
	MOVOU 16(DX), X13

iterloop:
	COMPRESS32(X8, X9)
	TOWORDS(X3, X4)
	COMPRESS32(X10, X11)
	TOWORDS(X3, X4)
	PXOR X3, X12
	PXOR X4, X13
	DECQ CX
	JNZ  iterloop

	MOVOU X3, 0(SI)
	MOVOU X4, 16(SI)
	MOVOU X12, 0(DX)
	MOVOU X13, 16(DX)
	PXOR  X0, X0
	PXOR  X1, X1
	PXOR  X2, X2
	PXOR  X3, X3
	PXOR  X4, X4
	PXOR  X5, X5
	PXOR  X6, X6
	PXOR  X7, X7
	PXOR  X8, X8
	PXOR  X9, X9
	PXOR  X10, X10
	PXOR  X11, X11
	PXOR  X12, X12
	PXOR  X13, X13

iterdone:
	RET

// func vzeroupper()
TEXT ·vzeroupper(SB), NOSPLIT, $0-0
	VZEROUPPER
	RET

// PSHUFB mask that turns four big-endian words into four dwords.
DATA bswap<>+0(SB)/8, $0x0405060700010203
DATA bswap<>+8(SB)/8, $0x0c0d0e0f08090a0b
GLOBL bswap<>(SB), RODATA|NOPTR, $16

// Message words 8 to 15 of a one-block message of 32 bytes after a first
// block: 0x80000000, six zeros and the length in bits, 768.
DATA pad<>+0(SB)/4, $0x80000000
DATA pad<>+4(SB)/4, $0
DATA pad<>+8(SB)/4, $0
DATA pad<>+12(SB)/4, $0
DATA pad<>+16(SB)/4, $0
DATA pad<>+20(SB)/4, $0
DATA pad<>+24(SB)/4, $0
DATA pad<>+28(SB)/4, $768
GLOBL pad<>(SB), RODATA|NOPTR, $32

// SHA-256's round constants K0..K63 (FIPS 180-4 §4.2.2).
DATA k256<>+0(SB)/4, $0x428a2f98
DATA k256<>+4(SB)/4, $0x71374491
DATA k256<>+8(SB)/4, $0xb5c0fbcf
DATA k256<>+12(SB)/4, $0xe9b5dba5
DATA k256<>+16(SB)/4, $0x3956c25b
DATA k256<>+20(SB)/4, $0x59f111f1
DATA k256<>+24(SB)/4, $0x923f82a4
DATA k256<>+28(SB)/4, $0xab1c5ed5
DATA k256<>+32(SB)/4, $0xd807aa98
DATA k256<>+36(SB)/4, $0x12835b01
DATA k256<>+40(SB)/4, $0x243185be
DATA k256<>+44(SB)/4, $0x550c7dc3
DATA k256<>+48(SB)/4, $0x72be5d74
DATA k256<>+52(SB)/4, $0x80deb1fe
DATA k256<>+56(SB)/4, $0x9bdc06a7
DATA k256<>+60(SB)/4, $0xc19bf174
DATA k256<>+64(SB)/4, $0xe49b69c1
DATA k256<>+68(SB)/4, $0xefbe4786
DATA k256<>+72(SB)/4, $0x0fc19dc6
DATA k256<>+76(SB)/4, $0x240ca1cc
DATA k256<>+80(SB)/4, $0x2de92c6f
DATA k256<>+84(SB)/4, $0x4a7484aa
DATA k256<>+88(SB)/4, $0x5cb0a9dc
DATA k256<>+92(SB)/4, $0x76f988da
DATA k256<>+96(SB)/4, $0x983e5152
DATA k256<>+100(SB)/4, $0xa831c66d
DATA k256<>+104(SB)/4, $0xb00327c8
DATA k256<>+108(SB)/4, $0xbf597fc7
DATA k256<>+112(SB)/4, $0xc6e00bf3
DATA k256<>+116(SB)/4, $0xd5a79147
DATA k256<>+120(SB)/4, $0x06ca6351
DATA k256<>+124(SB)/4, $0x14292967
DATA k256<>+128(SB)/4, $0x27b70a85
DATA k256<>+132(SB)/4, $0x2e1b2138
DATA k256<>+136(SB)/4, $0x4d2c6dfc
DATA k256<>+140(SB)/4, $0x53380d13
DATA k256<>+144(SB)/4, $0x650a7354
DATA k256<>+148(SB)/4, $0x766a0abb
DATA k256<>+152(SB)/4, $0x81c2c92e
DATA k256<>+156(SB)/4, $0x92722c85
DATA k256<>+160(SB)/4, $0xa2bfe8a1
DATA k256<>+164(SB)/4, $0xa81a664b
DATA k256<>+168(SB)/4, $0xc24b8b70
DATA k256<>+172(SB)/4, $0xc76c51a3
DATA k256<>+176(SB)/4, $0xd192e819
DATA k256<>+180(SB)/4, $0xd6990624
DATA k256<>+184(SB)/4, $0xf40e3585
DATA k256<>+188(SB)/4, $0x106aa070
DATA k256<>+192(SB)/4, $0x19a4c116
DATA k256<>+196(SB)/4, $0x1e376c08
DATA k256<>+200(SB)/4, $0x2748774c
DATA k256<>+204(SB)/4, $0x34b0bcb5
DATA k256<>+208(SB)/4, $0x391c0cb3
DATA k256<>+212(SB)/4, $0x4ed8aa4a
DATA k256<>+216(SB)/4, $0x5b9cca4f
DATA k256<>+220(SB)/4, $0x682e6ff3
DATA k256<>+224(SB)/4, $0x748f82ee
DATA k256<>+228(SB)/4, $0x78a5636f
DATA k256<>+232(SB)/4, $0x84c87814
DATA k256<>+236(SB)/4, $0x8cc70208
DATA k256<>+240(SB)/4, $0x90befffa
DATA k256<>+244(SB)/4, $0xa4506ceb
DATA k256<>+248(SB)/4, $0xbef9a3f7
DATA k256<>+252(SB)/4, $0xc67178f2
GLOBL k256<>(SB), RODATA|NOPTR, $256

// K8..K15 plus the padding words W8..W15 of pad above.
DATA wkpad<>+0(SB)/4, $0x5807aa98
DATA wkpad<>+4(SB)/4, $0x12835b01
DATA wkpad<>+8(SB)/4, $0x243185be
DATA wkpad<>+12(SB)/4, $0x550c7dc3
DATA wkpad<>+16(SB)/4, $0x72be5d74
DATA wkpad<>+20(SB)/4, $0x80deb1fe
DATA wkpad<>+24(SB)/4, $0x9bdc06a7
DATA wkpad<>+28(SB)/4, $0xc19bf474
GLOBL wkpad<>(SB), RODATA|NOPTR, $32
