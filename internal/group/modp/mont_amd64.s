//go:build amd64 && !purego

#include "textflag.h"

// Montgomery arithmetic with MULX, ADCX and ADOX (BMI2 and ADX), for n a
// positive multiple of 8 limbs: a product or square T of 2n limbs by
// separated operand scanning (mulADX, sqrADX), then a Montgomery reduction
// of T (redcADX). See mont.go.
//
// Every routine is a row-by-row scan over limbs: a row multiplies a run of
// limbs by the multiplier in DX and adds the products into T. A step of a
// row, with HP the high word of the previous step, sets
//
//	T[k] += lo + HP,  HN = hi  (lo, hi = DX * src[k])
//
// with the lo + HP additions on the CF chain (ADCX) and the additions to
// T[k] on the OF chain (ADOX). Both chains stay open across a row (LEAQ and
// JCXZQ leave the flags alone) and end in its top word, hi of the last step
// plus both carries, which cannot overflow: the row's sum fits in its limbs
// and that word. JCXZQ reaches only 127 bytes, so loops end with JCXZQ over
// a JMP back. Nothing branches on, or addresses memory by, limb values.
//
// Registers in the rows: DX multiplier, SI source, BX destination (T), CX
// loop count, R8 the sum, R9 and R10 the high words (alternating), R15 zero.

#define STEP(off, HP, HN) \
	MULXQ off(SI), R8, HN; \
	ADCXQ HP, R8;          \
	ADOXQ off(BX), R8;     \
	MOVQ  R8, off(BX)

// STEP1 is a single step whose high word ends in R9.
#define STEP1(off) \
	STEP(off, R9, R10); \
	MOVQ R10, R9

// STEP8 is 8 steps, from and to R9.
#define STEP8 \
	STEP(0, R9, R10);  \
	STEP(8, R10, R9);  \
	STEP(16, R9, R10); \
	STEP(24, R10, R9); \
	STEP(32, R9, R10); \
	STEP(40, R10, R9); \
	STEP(48, R9, R10); \
	STEP(56, R10, R9)

// func mulADX(t, x, y *uint, n int)
//
// T = x*y: row i adds x[i]*y at T[i..i+n-1] and stores its top word at
// T[i+n], which no earlier row reached. Row 0 only stores.
TEXT ·mulADX(SB), NOSPLIT, $0-32
	MOVQ x+8(FP), DI
	MOVQ t+0(FP), R11
	MOVQ n+24(FP), R12
	XORL R15, R15

	// Row 0: T[k] = lo + HP on the CF chain alone.
	MOVQ (DI), DX
	MOVQ y+16(FP), SI
	MOVQ R11, BX
	MOVQ R12, CX
	SHRQ $3, CX
	XORL R9, R9

mulrow0:
	MULXQ 0(SI), R8, R10
	ADCXQ R9, R8
	MOVQ  R8, 0(BX)
	MULXQ 8(SI), R8, R9
	ADCXQ R10, R8
	MOVQ  R8, 8(BX)
	MULXQ 16(SI), R8, R10
	ADCXQ R9, R8
	MOVQ  R8, 16(BX)
	MULXQ 24(SI), R8, R9
	ADCXQ R10, R8
	MOVQ  R8, 24(BX)
	MULXQ 32(SI), R8, R10
	ADCXQ R9, R8
	MOVQ  R8, 32(BX)
	MULXQ 40(SI), R8, R9
	ADCXQ R10, R8
	MOVQ  R8, 40(BX)
	MULXQ 48(SI), R8, R10
	ADCXQ R9, R8
	MOVQ  R8, 48(BX)
	MULXQ 56(SI), R8, R9
	ADCXQ R10, R8
	MOVQ  R8, 56(BX)
	LEAQ  64(SI), SI
	LEAQ  64(BX), BX
	LEAQ  -1(CX), CX
	JCXZQ mulrow0done
	JMP   mulrow0

mulrow0done:
	ADCXQ R15, R9
	MOVQ  R9, (BX)
	DECQ  R12

	// Rows 1 to n-1. DI = &x[i], R11 = &T[i].
mulrow:
	LEAQ  8(DI), DI
	LEAQ  8(R11), R11
	MOVQ  (DI), DX
	MOVQ  y+16(FP), SI
	MOVQ  R11, BX
	MOVQ  n+24(FP), CX
	SHRQ  $3, CX
	XORL  R9, R9

mulrowloop:
	STEP8
	LEAQ  64(SI), SI
	LEAQ  64(BX), BX
	LEAQ  -1(CX), CX
	JCXZQ mulrowdone
	JMP   mulrowloop

mulrowdone:
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)
	DECQ  R12
	JNZ   mulrow
	RET

// func sqrADX(t, x *uint, n int)
//
// T = x*x, in three passes:
//
//  1. T = sum over i < j of x[i]*x[j]*W^(i+j). Row i adds x[i]*x[i+1..n-1]
//     at T[2i+1..i+n-1] and stores its top word at T[i+n]. Rows go by
//     groups of 8: row 8I+r runs 7-r single steps within the block
//     x[8I..8I+7], then n/8-1-I loops of 8 (none in the last group).
//  2. T = 2T + sum of x[i]^2*W^(2i): the doubling on the CF chain, the
//     squares on the OF chain. T < W^(2n), so both chains end at zero.
TEXT ·sqrADX(SB), NOSPLIT, $0-24
	// T = 0. R15 = 0 throughout.
	XORL R15, R15
	MOVQ t+0(FP), BX
	MOVQ n+16(FP), CX
	SHLQ $1, CX

sqrzero:
	MOVQ R15, (BX)
	LEAQ 8(BX), BX
	DECQ CX
	JNZ  sqrzero

	// 1. DI = &x[8I], R11 = &T[16I], R13 = loops of 8 per row in group I.
	// Row 8I+r starts with SI = &x[8I+8] and BX = &T[16I+r+8]; its single
	// steps reach x[8I+r+1+s] and T[16I+2r+1+s] at the same negative
	// offset from them.
	MOVQ x+8(FP), DI
	MOVQ t+0(FP), R11
	MOVQ n+16(FP), R13
	SHRQ $3, R13
	DECQ R13
	JZ   sqrlastgroup

sqrgroup:
	// Row 8I+0.
	MOVQ 0(DI), DX
	LEAQ 64(DI), SI
	LEAQ 64(R11), BX
	XORL R9, R9
	STEP1(-56)
	STEP1(-48)
	STEP1(-40)
	STEP1(-32)
	STEP1(-24)
	STEP1(-16)
	STEP1(-8)
	MOVQ R13, CX

sqrrow0:
	STEP8
	LEAQ  64(SI), SI
	LEAQ  64(BX), BX
	LEAQ  -1(CX), CX
	JCXZQ sqrrow0done
	JMP   sqrrow0

sqrrow0done:
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)

	// Row 8I+1.
	MOVQ 8(DI), DX
	LEAQ 64(DI), SI
	LEAQ 72(R11), BX
	XORL R9, R9
	STEP1(-48)
	STEP1(-40)
	STEP1(-32)
	STEP1(-24)
	STEP1(-16)
	STEP1(-8)
	MOVQ R13, CX

sqrrow1:
	STEP8
	LEAQ  64(SI), SI
	LEAQ  64(BX), BX
	LEAQ  -1(CX), CX
	JCXZQ sqrrow1done
	JMP   sqrrow1

sqrrow1done:
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)

	// Row 8I+2.
	MOVQ 16(DI), DX
	LEAQ 64(DI), SI
	LEAQ 80(R11), BX
	XORL R9, R9
	STEP1(-40)
	STEP1(-32)
	STEP1(-24)
	STEP1(-16)
	STEP1(-8)
	MOVQ R13, CX

sqrrow2:
	STEP8
	LEAQ  64(SI), SI
	LEAQ  64(BX), BX
	LEAQ  -1(CX), CX
	JCXZQ sqrrow2done
	JMP   sqrrow2

sqrrow2done:
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)

	// Row 8I+3.
	MOVQ 24(DI), DX
	LEAQ 64(DI), SI
	LEAQ 88(R11), BX
	XORL R9, R9
	STEP1(-32)
	STEP1(-24)
	STEP1(-16)
	STEP1(-8)
	MOVQ R13, CX

sqrrow3:
	STEP8
	LEAQ  64(SI), SI
	LEAQ  64(BX), BX
	LEAQ  -1(CX), CX
	JCXZQ sqrrow3done
	JMP   sqrrow3

sqrrow3done:
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)

	// Row 8I+4.
	MOVQ 32(DI), DX
	LEAQ 64(DI), SI
	LEAQ 96(R11), BX
	XORL R9, R9
	STEP1(-24)
	STEP1(-16)
	STEP1(-8)
	MOVQ R13, CX

sqrrow4:
	STEP8
	LEAQ  64(SI), SI
	LEAQ  64(BX), BX
	LEAQ  -1(CX), CX
	JCXZQ sqrrow4done
	JMP   sqrrow4

sqrrow4done:
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)

	// Row 8I+5.
	MOVQ 40(DI), DX
	LEAQ 64(DI), SI
	LEAQ 104(R11), BX
	XORL R9, R9
	STEP1(-16)
	STEP1(-8)
	MOVQ R13, CX

sqrrow5:
	STEP8
	LEAQ  64(SI), SI
	LEAQ  64(BX), BX
	LEAQ  -1(CX), CX
	JCXZQ sqrrow5done
	JMP   sqrrow5

sqrrow5done:
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)

	// Row 8I+6.
	MOVQ 48(DI), DX
	LEAQ 64(DI), SI
	LEAQ 112(R11), BX
	XORL R9, R9
	STEP1(-8)
	MOVQ R13, CX

sqrrow6:
	STEP8
	LEAQ  64(SI), SI
	LEAQ  64(BX), BX
	LEAQ  -1(CX), CX
	JCXZQ sqrrow6done
	JMP   sqrrow6

sqrrow6done:
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)

	// Row 8I+7.
	MOVQ 56(DI), DX
	LEAQ 64(DI), SI
	LEAQ 120(R11), BX
	XORL R9, R9
	MOVQ R13, CX

sqrrow7:
	STEP8
	LEAQ  64(SI), SI
	LEAQ  64(BX), BX
	LEAQ  -1(CX), CX
	JCXZQ sqrrow7done
	JMP   sqrrow7

sqrrow7done:
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)

	LEAQ 64(DI), DI
	LEAQ 128(R11), R11
	DECQ R13
	JNZ  sqrgroup

sqrlastgroup:
	// Row 8I+0.
	MOVQ 0(DI), DX
	LEAQ 64(DI), SI
	LEAQ 64(R11), BX
	XORL R9, R9
	STEP1(-56)
	STEP1(-48)
	STEP1(-40)
	STEP1(-32)
	STEP1(-24)
	STEP1(-16)
	STEP1(-8)
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)

	// Row 8I+1.
	MOVQ 8(DI), DX
	LEAQ 64(DI), SI
	LEAQ 72(R11), BX
	XORL R9, R9
	STEP1(-48)
	STEP1(-40)
	STEP1(-32)
	STEP1(-24)
	STEP1(-16)
	STEP1(-8)
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)

	// Row 8I+2.
	MOVQ 16(DI), DX
	LEAQ 64(DI), SI
	LEAQ 80(R11), BX
	XORL R9, R9
	STEP1(-40)
	STEP1(-32)
	STEP1(-24)
	STEP1(-16)
	STEP1(-8)
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)

	// Row 8I+3.
	MOVQ 24(DI), DX
	LEAQ 64(DI), SI
	LEAQ 88(R11), BX
	XORL R9, R9
	STEP1(-32)
	STEP1(-24)
	STEP1(-16)
	STEP1(-8)
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)

	// Row 8I+4.
	MOVQ 32(DI), DX
	LEAQ 64(DI), SI
	LEAQ 96(R11), BX
	XORL R9, R9
	STEP1(-24)
	STEP1(-16)
	STEP1(-8)
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)

	// Row 8I+5.
	MOVQ 40(DI), DX
	LEAQ 64(DI), SI
	LEAQ 104(R11), BX
	XORL R9, R9
	STEP1(-16)
	STEP1(-8)
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)

	// Row 8I+6.
	MOVQ 48(DI), DX
	LEAQ 64(DI), SI
	LEAQ 112(R11), BX
	XORL R9, R9
	STEP1(-8)
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)

	// Row 8I+7.
	MOVQ 56(DI), DX
	LEAQ 64(DI), SI
	LEAQ 120(R11), BX
	XORL R9, R9
	ADCXQ R15, R9
	ADOXQ R15, R9
	MOVQ  R9, (BX)

	// 2. 4 limbs of x per loop; XORL clears CF and OF.
	MOVQ x+8(FP), SI
	MOVQ t+0(FP), BX
	MOVQ n+16(FP), CX
	SHRQ $2, CX
	XORL R15, R15

sqrdiag:
	MOVQ  0(SI), DX
	MULXQ DX, R8, R9
	MOVQ  0(BX), R10
	MOVQ  8(BX), R11
	ADCXQ R10, R10
	ADCXQ R11, R11
	ADOXQ R8, R10
	ADOXQ R9, R11
	MOVQ  R10, 0(BX)
	MOVQ  R11, 8(BX)
	MOVQ  8(SI), DX
	MULXQ DX, R8, R9
	MOVQ  16(BX), R10
	MOVQ  24(BX), R11
	ADCXQ R10, R10
	ADCXQ R11, R11
	ADOXQ R8, R10
	ADOXQ R9, R11
	MOVQ  R10, 16(BX)
	MOVQ  R11, 24(BX)
	MOVQ  16(SI), DX
	MULXQ DX, R8, R9
	MOVQ  32(BX), R10
	MOVQ  40(BX), R11
	ADCXQ R10, R10
	ADCXQ R11, R11
	ADOXQ R8, R10
	ADOXQ R9, R11
	MOVQ  R10, 32(BX)
	MOVQ  R11, 40(BX)
	MOVQ  24(SI), DX
	MULXQ DX, R8, R9
	MOVQ  48(BX), R10
	MOVQ  56(BX), R11
	ADCXQ R10, R10
	ADCXQ R11, R11
	ADOXQ R8, R10
	ADOXQ R9, R11
	MOVQ  R10, 48(BX)
	MOVQ  R11, 56(BX)
	LEAQ  32(SI), SI
	LEAQ  64(BX), BX
	LEAQ  -1(CX), CX
	JCXZQ sqrdone
	JMP   sqrdiag

sqrdone:
	RET

// func redcADX(z, t, p *uint, n int, n0 uint)
//
// z = T/W^n mod p for T < p*W^n, fully reduced; T is overwritten. For each
// i < n, row i adds m*p at T[i..i+n-1] with m = T[i]*n0 mod W, which makes
// T[i] zero; the top word goes into T[i+n] with the carry R14 out of the
// previous row's, and the carry out of T[i+n] becomes R14. Then U =
// T[n..2n-1] + R14*W^n < 2p, and z = U - p unless that borrows, by masked
// select.
TEXT ·redcADX(SB), NOSPLIT, $0-40
	MOVQ t+8(FP), R11
	MOVQ n+24(FP), R12
	XORL R14, R14
	XORL R15, R15

redcrow:
	MOVQ  (R11), DX
	IMULQ n0+32(FP), DX
	MOVQ  p+16(FP), SI
	MOVQ  R11, BX
	MOVQ  n+24(FP), CX
	SHRQ  $3, CX
	XORL  R9, R9

redcloop:
	STEP8
	LEAQ  64(SI), SI
	LEAQ  64(BX), BX
	LEAQ  -1(CX), CX
	JCXZQ redcrowdone
	JMP   redcloop

redcrowdone:
	ADCXQ R15, R9
	ADOXQ R15, R9
	XORL  R13, R13
	ADDQ  R14, R9
	ADCQ  $0, R13
	ADDQ  R9, (BX)
	ADCQ  $0, R13
	MOVQ  R13, R14
	LEAQ  8(R11), R11
	DECQ  R12
	JNZ   redcrow

	// R11 = &T[n].
	MOVQ p+16(FP), DI
	MOVQ z+0(FP), SI
	MOVQ n+24(FP), CX
	MOVQ R11, BX
	CLC

redcsub:
	MOVQ (BX), R8
	SBBQ (DI), R8
	MOVQ R8, (SI)
	LEAQ 8(BX), BX
	LEAQ 8(DI), DI
	LEAQ 8(SI), SI
	DECQ CX
	JNZ  redcsub

	SBBQ $0, R14 // all ones iff U < p: keep U
	MOVQ z+0(FP), SI
	MOVQ n+24(FP), CX

redcsel:
	MOVQ (R11), R8
	MOVQ (SI), R10
	XORQ R10, R8
	ANDQ R14, R8
	XORQ R8, R10
	MOVQ R10, (SI)
	LEAQ 8(R11), R11
	LEAQ 8(SI), SI
	DECQ CX
	JNZ  redcsel
	RET

// func ctSelectSSE2(dst, tab, masks *uint, n, entries int)
//
// For each column of 8 limbs: the OR over the entries of the entry's 8
// limbs AND its mask.
TEXT ·ctSelectSSE2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ tab+8(FP), SI
	MOVQ masks+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ entries+32(FP), DX
	MOVQ CX, R9
	SHLQ $3, R9 // entry stride in bytes
	SHRQ $3, CX // columns

selcol:
	PXOR X0, X0
	PXOR X1, X1
	PXOR X2, X2
	PXOR X3, X3
	MOVQ SI, AX
	MOVQ R8, BX
	MOVQ DX, R10

selentry:
	MOVOU (BX), X8
	MOVOU 0(AX), X4
	MOVOU 16(AX), X5
	MOVOU 32(AX), X6
	MOVOU 48(AX), X7
	PAND  X8, X4
	PAND  X8, X5
	PAND  X8, X6
	PAND  X8, X7
	POR   X4, X0
	POR   X5, X1
	POR   X6, X2
	POR   X7, X3
	ADDQ  $16, BX
	ADDQ  R9, AX
	DECQ  R10
	JNZ   selentry

	MOVOU X0, 0(DI)
	MOVOU X1, 16(DI)
	MOVOU X2, 32(DI)
	MOVOU X3, 48(DI)
	ADDQ  $64, DI
	ADDQ  $64, SI
	DECQ  CX
	JNZ   selcol
	RET
