// Package pbkdf2 implements PBKDF2 with HMAC-SHA256 as its pseudorandom
// function (RFC 8018 §5.2, HMAC per RFC 2104 and FIPS 198-1), the
// password-key derivation of kexlab's schemes. Its results are those of
// crypto/pbkdf2.Key(sha256.New, ...).
//
// # Why its own code
//
// PBKDF2's cost is its iterations, and each iteration is one HMAC of a
// 32-byte value: exactly two SHA-256 compressions once the HMAC key's pad
// states are known (the inner block holds U and its padding, the outer
// block the 32-byte inner hash and its padding). crypto/pbkdf2 runs every
// iteration through crypto/hmac's hash.Hash interface (Reset, Write, Sum:
// the pad state copied back, the 32 bytes buffered, the padding built, the
// digest serialized and parsed again), which made it 1.34 times the Rust
// pbkdf2 crate in kexlab's exchange of six schemes, and 1.67 times on the
// primitive alone (below). Go's crypto/sha256 does not export its block
// function, so this package has its own SHA-256 compression.
//
// On amd64 with the SHA extensions (with SSSE3 and SSE4.1) the whole
// iteration loop is assembly: SHA256RNDS2, SHA256MSG1 and SHA256MSG2 with
// the pad states, U and T in vector registers, both compressions, the
// feed-forward and T ^= U, and no call, memory access to secret data or
// byte swap per iteration. SHA-256's digest is its state words written
// big-endian and its message words are read big-endian, so a digest is
// the next block's first eight message words as they are; the other eight
// are the constant padding (0x80000000, six zeros, the length 768 bits),
// whose sums with the round constants for rounds 8 to 15 are precomputed.
// The CPU's features come from internal/cpuid (golang.org/x/sys/cpu has no
// field for the SHA extensions). A Go loop calling a
// one-block assembly compression twice per iteration instead took 9.7 ms
// against the loop's 7.3 ms (BenchmarkIterate).
//
// Elsewhere (another architecture, an amd64 without the SHA extensions,
// or the purego build tag) Key calls crypto/pbkdf2: there Go's SHA-256
// assembly (AVX2, the ARMv8 SHA-2 instructions, ...) beats portable Go.
// The portable code of this package, FIPS 180-4 §6.2 with the same
// structure as the assembly, is the reference the tests check the
// assembly against, and the fallback when crypto/pbkdf2 refuses what Key
// accepts (GODEBUG=fips140=only with a salt under 16 bytes or a key under
// 14 bytes). Measured on the development VM at 100,000 iterations, with
// GODEBUG=cpu.sha=off crypto/pbkdf2 took 37.5 ms against the portable
// code's 57.5 ms; with the purego tag 64 ms against 58 ms.
//
// # Measurements
//
// PBKDF2-HMAC-SHA256, 100,000 iterations, 32-byte key, on the 2-core AMD
// EPYC (Zen 4) development VM, process CPU time per call, the three
// drivers interleaved round by round (peers/prims' line protocol, batches
// of 10 calls, 41 rounds after a warm-up; ratio of each round, median,
// 10th to 90th percentile):
//
//	this package            7.43 ms
//	Rust pbkdf2 0.13.0      9.97 ms   (sha2 0.11.1 with SHA-NI, LTO)
//	crypto/pbkdf2          16.67 ms   (Go 1.26.8, SHA-NI)
//	this package / Rust     0.743     (0.718-0.758)
//	this package / crypto   0.442     (0.426-0.457)
//
// At 36 ns per compression the loop is bound by SHA256RNDS2's latency:
// each pair of rounds needs the previous pair's result, and PBKDF2's
// iterations form one chain per 32-byte block of output.
//
// # Constant time, secrets
//
// SHA-256 has no branch and no memory index that depends on the data, and
// neither has the code around it: only the password's length (which
// decides whether it is hashed first), the salt's length, the iteration
// count and the key length, all public, steer it. The key block, the pad
// states, U and T are cleared after use, and the assembly zeroes the
// vector registers that held them. The compression functions' stack
// frames are not scrubbed beyond clearing their local copies, as in
// crypto/sha256. Except on the crypto/pbkdf2 fallback, which takes a
// string, the password is not copied to the heap.
//
// The code is not part of Go's FIPS 140 module: under GODEBUG=fips140=on
// or only, crypto/pbkdf2 would use the module's validated SHA-256, and in
// only mode refuse short salts and keys; Key does neither.
package pbkdf2

import (
	stdpbkdf2 "crypto/pbkdf2"
	"crypto/sha256"
	"encoding/binary"
	"math"
)

const (
	// Size is the output length of the pseudorandom function,
	// HMAC-SHA256, and so the length of one PBKDF2 block.
	Size = sha256.Size
	// blockSize is SHA-256's block length in bytes.
	blockSize = sha256.BlockSize
	// maxBlocks is the most 32-byte blocks a derived key may have: RFC
	// 8018 §5.2 step 1, dkLen ≤ (2^32 − 1) · hLen.
	maxBlocks = math.MaxUint32
)

// Key derives a keyLen-byte key from password and salt with iter
// iterations of PBKDF2-HMAC-SHA256 (RFC 8018 §5.2). A password longer
// than 64 bytes is hashed first, as HMAC specifies.
//
// Key panics if iter < 1 or keyLen < 1, or if keyLen exceeds
// (2^32 − 1) · 32 bytes. RFC 8018 requires a positive iteration count and
// key length; crypto/pbkdf2 returns an error for keyLen < 1 and silently
// runs one iteration for iter < 1. Every caller in kexlab validates the
// count first (zero selects its default, a negative count is an
// ErrInvalidParameter) and passes a constant key length, so a bad value
// here is a bug in the caller.
func Key(password, salt []byte, iter, keyLen int) []byte {
	if keyLen < 1 {
		panic("pbkdf2: key length must be positive")
	}
	dk := make([]byte, keyLen)
	KeyInto(dk, password, salt, iter)
	return dk
}

// KeyInto is Key writing the len(dst)-byte key into dst. It allocates
// nothing (except on the crypto/pbkdf2 fallback), and panics as Key does,
// for len(dst) < 1 in place of keyLen.
func KeyInto(dst, password, salt []byte, iter int) {
	if iter < 1 {
		panic("pbkdf2: iteration count must be positive")
	}
	if len(dst) < 1 {
		panic("pbkdf2: key length must be positive")
	}
	if uint64(len(dst)-1)/Size >= maxBlocks {
		panic("pbkdf2: key length too long")
	}
	if !useSHANI && !forcePortable && stdKeyInto(dst, password, salt, iter) {
		return
	}
	prepareIterations()

	// The HMAC key block K, zero-padded (RFC 2104 step 1), and the states
	// after one compression of K ⊕ ipad and of K ⊕ opad.
	var key [blockSize]byte
	if len(password) > blockSize {
		sum := sha256.Sum256(password)
		copy(key[:], sum[:])
		clear(sum[:])
	} else {
		copy(key[:], password)
	}
	var pads [16]uint32
	var buf [2 * blockSize]byte
	copy(pads[:8], iv[:])
	copy(pads[8:], iv[:])
	for i, b := range key {
		buf[i] = b ^ 0x36
		buf[blockSize+i] = b ^ 0x5c
	}
	inner, outer := (*[8]uint32)(pads[:8]), (*[8]uint32)(pads[8:])
	block(inner, buf[:blockSize])
	block(outer, buf[blockSize:])
	clear(key[:])
	clear(buf[:])

	var u, t [8]uint32
	for i := uint32(1); len(dst) > 0; i++ {
		firstU(&u, &pads, salt, i)
		t = u
		if iter > 1 {
			iterate(&pads, &u, &t, iter-1)
		}
		var tb [Size]byte
		for j, w := range t {
			binary.BigEndian.PutUint32(tb[4*j:], w)
		}
		dst = dst[copy(dst, tb[:]):]
		clear(tb[:])
	}
	clear(pads[:])
	clear(u[:])
	clear(t[:])
}

// forcePortable makes KeyInto run the portable code where useSHANI is
// false, in place of crypto/pbkdf2; for tests.
var forcePortable = false

// stdKeyInto derives the key with crypto/pbkdf2, for machines without the
// assembly: there Go's SHA-256 (assembly with AVX2, or the ARMv8 SHA-2
// instructions, ...) beats the portable compression. It reports false,
// leaving dst alone, only where crypto/pbkdf2 refuses what KeyInto has
// accepted, in GODEBUG=fips140=only mode (salts under 16 bytes, keys under
// 14 bytes); KeyInto then runs the portable code, as it would run the
// assembly.
func stdKeyInto(dst, password, salt []byte, iter int) bool {
	k, err := stdpbkdf2.Key(sha256.New, string(password), salt, iter, len(dst))
	if err != nil {
		return false
	}
	copy(dst, k)
	clear(k)
	return true
}

// firstU sets u to U_1 = HMAC(P, S || INT(i)) (RFC 8018 §5.2 step 3),
// given the pad states.
func firstU(u *[8]uint32, pads *[16]uint32, salt []byte, i uint32) {
	// Inner hash: the state after K ⊕ ipad, then S || INT(i), padded.
	h := *(*[8]uint32)(pads[:8])
	full := len(salt) &^ (blockSize - 1)
	if full > 0 {
		block(&h, salt[:full])
	}
	var buf [2 * blockSize]byte
	n := copy(buf[:], salt[full:])
	binary.BigEndian.PutUint32(buf[n:], i)
	n += 4
	buf[n] = 0x80
	end := blockSize
	if n+1+8 > blockSize {
		end = 2 * blockSize
	}
	binary.BigEndian.PutUint64(buf[end-8:], uint64(blockSize+len(salt)+4)*8)
	block(&h, buf[:end])

	// Outer hash: the state after K ⊕ opad, then the inner digest, padded
	// to one block.
	clear(buf[:])
	for j, w := range h {
		binary.BigEndian.PutUint32(buf[4*j:], w)
	}
	buf[Size] = 0x80
	binary.BigEndian.PutUint64(buf[blockSize-8:], (blockSize+Size)*8)
	*u = *(*[8]uint32)(pads[8:])
	block(u, buf[:blockSize])
	clear(buf[:])
	clear(h[:])
}
