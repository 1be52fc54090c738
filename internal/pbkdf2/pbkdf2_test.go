package pbkdf2

import (
	"bytes"
	stdpbkdf2 "crypto/pbkdf2"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// impls runs f once per implementation available here: the SHA
// extensions (where the CPU has them), the portable code and the
// crypto/pbkdf2 fallback, selected through useSHANI and forcePortable.
func impls(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	implsOwn(t, f)
	saved := useSHANI
	defer func() { useSHANI = saved }()
	useSHANI = false
	t.Run("fallback", f)
}

// implsOwn is impls without the crypto/pbkdf2 fallback.
func implsOwn(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	saved := useSHANI
	defer func() { useSHANI, forcePortable = saved, false }()
	if saved {
		useSHANI = true
		t.Run("shani", f)
	}
	useSHANI, forcePortable = false, true
	t.Run("portable", f)
}

func stdKey(t testing.TB, password, salt []byte, iter, keyLen int) []byte {
	t.Helper()
	k, err := stdpbkdf2.Key(sha256.New, string(password), salt, iter, keyLen)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func unhexSpaced(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRFC7914 checks the PBKDF2-HMAC-SHA256 test vectors of RFC 7914
// (The scrypt Password-Based Key Derivation Function), Section 11 "Test
// Vectors for PBKDF2 with HMAC-SHA-256", typed from the RFC's text.
func TestRFC7914(t *testing.T) {
	// RFC 7914 §11 prints these two vectors for PBKDF2-HMAC-SHA256 (P, S,
	// c, dkLen, and the output as hex bytes, sixteen a line).
	vectors := []struct {
		p, s   string
		c, dk  int
		output string
	}{
		{"passwd", "salt", 1, 64, `
			55 ac 04 6e 56 e3 08 9f ec 16 91 c2 25 44 b6 05
			f9 41 85 21 6d de 04 65 e6 8b 9d 57 c2 0d ac bc
			49 ca 9c cc f1 79 b6 45 99 16 64 b3 9d 77 ef 31
			7c 71 b8 45 b1 e3 0b d5 09 11 20 41 d3 a1 97 83`},
		{"Password", "NaCl", 80000, 64, `
			4d dc d8 f6 0b 98 be 21 83 0c ee 5e f2 27 01 f9
			64 1a 44 18 d0 4c 04 14 ae ff 08 87 6b 34 ab 56
			a1 d4 25 a1 22 58 33 54 9a db 84 1b 51 c9 b3 17
			6a 27 2b de bb a1 d0 78 47 8f 62 b3 97 f3 3c 8d`},
	}
	impls(t, func(t *testing.T) {
		for _, v := range vectors {
			want := unhexSpaced(t, v.output)
			if got := Key([]byte(v.p), []byte(v.s), v.c, v.dk); !bytes.Equal(got, want) {
				t.Errorf("P=%q S=%q c=%d: got %x, want %x", v.p, v.s, v.c, got, want)
			}
			// Shorter keys are prefixes: the last block is cut.
			for n := 1; n < v.dk && v.c < 1000; n++ {
				got := make([]byte, n)
				KeyInto(got, []byte(v.p), []byte(v.s), v.c)
				if !bytes.Equal(got, want[:n]) {
					t.Errorf("P=%q S=%q c=%d dkLen=%d: got %x, want %x", v.p, v.s, v.c, n, got, want[:n])
				}
			}
		}
	})
}

// TestCrossCheck compares Key with crypto/pbkdf2 on random inputs:
// passwords of 0 to 200 bytes (over 64 bytes the HMAC key is hashed
// first), salts of 0 to 100 bytes (so S || INT(i) fills one or two
// blocks), 1 to 50 iterations and keys of 1 to 100 bytes.
func TestCrossCheck(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 200
	}
	impls(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		lengths := []int{0, 1, 31, 32, 33, 55, 56, 59, 60, 63, 64, 65, 119, 120, 127, 128, 129, 200}
		for i := range n {
			var pl, sl int
			if i < len(lengths)*len(lengths) {
				// Every pair of edge lengths first (salts capped at 100).
				pl, sl = lengths[i/len(lengths)], min(lengths[i%len(lengths)], 100)
			} else {
				pl, sl = rng.IntN(201), rng.IntN(101)
			}
			password, salt := make([]byte, pl), make([]byte, sl)
			fill(rng, password)
			fill(rng, salt)
			iter, keyLen := 1+rng.IntN(50), 1+rng.IntN(100)
			if i%10 == 0 {
				keyLen = 32 * (1 + rng.IntN(3))
			}
			want := stdKey(t, password, salt, iter, keyLen)
			if got := Key(password, salt, iter, keyLen); !bytes.Equal(got, want) {
				t.Fatalf("len(P)=%d len(S)=%d c=%d dkLen=%d:\n got %x\nwant %x", pl, sl, iter, keyLen, got, want)
			}
		}
	})
}

// TestCallerShapes checks the shapes kexlab's schemes use: 32-byte salts,
// keys of 16 and 32 bytes, a thousand iterations.
func TestCallerShapes(t *testing.T) {
	impls(t, func(t *testing.T) {
		salt := sha256.Sum256([]byte("salt"))
		for _, keyLen := range []int{16, 32} {
			for _, password := range []string{"p", "correct horse battery staple", strings.Repeat("long ", 30)} {
				want := stdKey(t, []byte(password), salt[:], 1000, keyLen)
				if got := Key([]byte(password), salt[:], 1000, keyLen); !bytes.Equal(got, want) {
					t.Errorf("P=%q dkLen=%d: got %x, want %x", password, keyLen, got, want)
				}
			}
		}
	})
}

func fill(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

// sum256 is SHA-256 over msg through block, with FIPS 180-4 §5.1.1
// padding.
func sum256(msg []byte) [Size]byte {
	h := iv
	full := len(msg) &^ (blockSize - 1)
	block(&h, msg[:full])
	var buf [2 * blockSize]byte
	n := copy(buf[:], msg[full:])
	buf[n] = 0x80
	end := blockSize
	if n+1+8 > blockSize {
		end = 2 * blockSize
	}
	binary.BigEndian.PutUint64(buf[end-8:], uint64(len(msg))*8)
	block(&h, buf[:end])
	var out [Size]byte
	for i, w := range h {
		binary.BigEndian.PutUint32(out[4*i:], w)
	}
	return out
}

// TestSHA256 compares the compression function with crypto/sha256 over
// random messages, more than 100,000 blocks in all.
func TestSHA256(t *testing.T) {
	total := 100_000
	if testing.Short() {
		total = 10_000
	}
	implsOwn(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		buf := make([]byte, 64*40)
		blocks := 0
		for i := 0; blocks < total; i++ {
			n := i % 300
			if i%50 == 0 {
				n = rng.IntN(len(buf) + 1)
			}
			msg := buf[:n]
			fill(rng, msg)
			if got, want := sum256(msg), sha256.Sum256(msg); got != want {
				t.Fatalf("len %d: got %x, want %x", n, got, want)
			}
			blocks += (n + 9 + 63) / 64
		}
	})
}

// TestIterateAgainstHMAC checks one iteration step, U_j+1 = HMAC(P, U_j)
// and T ^= U_j+1, against a plain HMAC-SHA256 built from crypto/sha256.
func TestIterateAgainstHMAC(t *testing.T) {
	implsOwn(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for range 200 {
			key := make([]byte, blockSize)
			fill(rng, key)
			var pads [16]uint32
			var ipad, opad [blockSize]byte
			for i, b := range key {
				ipad[i], opad[i] = b^0x36, b^0x5c
			}
			copy(pads[:8], iv[:])
			copy(pads[8:], iv[:])
			block((*[8]uint32)(pads[:8]), ipad[:])
			block((*[8]uint32)(pads[8:]), opad[:])

			var u, t0 [8]uint32
			for i := range u {
				u[i], t0[i] = rng.Uint32(), rng.Uint32()
			}
			n := 1 + rng.IntN(5)
			tt := t0
			uu := u
			iterate(&pads, &uu, &tt, n)

			want := words2bytes(u)
			acc := words2bytes(t0)
			for range n {
				inner := sha256.Sum256(append(ipad[:], want...))
				outer := sha256.Sum256(append(opad[:], inner[:]...))
				want = outer[:]
				for i := range acc {
					acc[i] ^= want[i]
				}
			}
			if got := words2bytes(uu); !bytes.Equal(got, want) {
				t.Fatalf("U after %d: got %x, want %x", n, got, want)
			}
			if got := words2bytes(tt); !bytes.Equal(got, acc) {
				t.Fatalf("T after %d: got %x, want %x", n, got, acc)
			}
		}
	})
}

func words2bytes(w [8]uint32) []byte {
	b := make([]byte, 0, Size)
	for _, x := range w {
		b = binary.BigEndian.AppendUint32(b, x)
	}
	return b
}

var sink []byte

func TestAllocs(t *testing.T) {
	password, salt := []byte("password"), make([]byte, 32)
	implsOwn(t, func(t *testing.T) {
		for _, keyLen := range []int{16, 32, 100} {
			if n := testing.AllocsPerRun(20, func() { sink = Key(password, salt, 10, keyLen) }); n != 1 {
				t.Errorf("Key, dkLen=%d: %v allocations, want 1 (the output)", keyLen, n)
			}
		}
		long := bytes.Repeat([]byte("p"), 100)
		if n := testing.AllocsPerRun(20, func() { sink = Key(long, salt, 10, 32) }); n != 1 {
			t.Errorf("Key, 100-byte password: %v allocations, want 1", n)
		}
		dst := make([]byte, 64)
		if n := testing.AllocsPerRun(20, func() { KeyInto(dst, password, salt, 10) }); n != 0 {
			t.Errorf("KeyInto: %v allocations, want 0", n)
		}
	})
}

func TestPanics(t *testing.T) {
	for _, c := range []struct {
		name         string
		iter, keyLen int
	}{
		{"iter=0", 0, 32},
		{"iter=-1", -1, 32},
		{"keyLen=0", 1, 0},
		{"keyLen=-1", 1, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Key(iter=%d, keyLen=%d) did not panic", c.iter, c.keyLen)
				}
			}()
			Key([]byte("p"), []byte("s"), c.iter, c.keyLen)
		})
	}
	t.Run("KeyInto empty", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("KeyInto with an empty dst did not panic")
			}
		}()
		KeyInto(nil, []byte("p"), []byte("s"), 1)
	})
}

func FuzzKey(f *testing.F) {
	f.Add([]byte("passwd"), []byte("salt"), uint8(1), uint8(64))
	f.Add([]byte("Password"), []byte("NaCl"), uint8(3), uint8(16))
	f.Add(bytes.Repeat([]byte{0xaa}, 100), bytes.Repeat([]byte{0x55}, 60), uint8(7), uint8(33))
	f.Fuzz(func(t *testing.T, password, salt []byte, iter, keyLen uint8) {
		c, n := 1+int(iter%64), 1+int(keyLen%128)
		want, err := stdpbkdf2.Key(sha256.New, string(password), salt, c, n)
		if err != nil {
			t.Fatal(err)
		}
		saved := useSHANI
		defer func() { useSHANI, forcePortable = saved, false }()
		for _, impl := range []struct{ shani, portable bool }{{saved, false}, {false, true}} {
			useSHANI, forcePortable = impl.shani, impl.portable
			if got := Key(password, salt, c, n); !bytes.Equal(got, want) {
				t.Fatalf("shani=%v portable=%v len(P)=%d len(S)=%d c=%d dkLen=%d: got %x, want %x",
					impl.shani, impl.portable, len(password), len(salt), c, n, got, want)
			}
		}
	})
}

func ExampleKey() {
	salt := sha256.Sum256([]byte("example salt"))
	k := Key([]byte("correct horse battery staple"), salt[:], 100_000, 32)
	fmt.Println(len(k))
	// Output: 32
}
