package apakepq

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/cloudflare/circl/kem/mlkem/mlkem512"
)

// The benchmarks run at the default PBKDF2 count, where PBKDF2 dominates,
// and at 1, which shows the protocol's own cost over ML-KEM-512 and AES.
// BenchmarkUnavoidable is the floor each login cannot go below, measured in
// the same run.
var benchIterations = []int{DefaultIterations, 1}

func benchName(it int) string { return fmt.Sprintf("pbkdf2=%d", it) }

func benchRecord(b *testing.B, it int) *Record {
	r, err := Register([]byte("pw"), testSession.ClientID, testSession.ServerID, it)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkFullRun is one login: both parties, three messages; the record
// is parsed from bytes as a server fetching it from storage would.
func BenchmarkFullRun(b *testing.B) {
	for _, it := range benchIterations {
		b.Run(benchName(it), func(b *testing.B) {
			enc := benchRecord(b, it).Bytes()
			for b.Loop() {
				rec, _ := ParseRecord(enc)
				c, _ := NewClient(rand.Reader, []byte("pw"), testSession, it)
				sv, _ := NewServer(rand.Reader, rec, testSession)
				m1, _ := c.Next(nil)
				m2, _ := sv.Next(m1)
				m3, err := c.Next(m2)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := sv.Next(m3); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClient is the client's side; the server's work is off the clock.
func BenchmarkClient(b *testing.B) {
	for _, it := range benchIterations {
		b.Run(benchName(it), func(b *testing.B) {
			rec := benchRecord(b, it)
			for b.Loop() {
				c, _ := NewClient(rand.Reader, []byte("pw"), testSession, it)
				m1, _ := c.Next(nil)
				b.StopTimer()
				sv, _ := NewServer(rand.Reader, rec, testSession)
				m2, _ := sv.Next(m1)
				b.StartTimer()
				if _, err := c.Next(m2); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkServer is the server's side, including parsing the record; the
// client's work is off the clock.
func BenchmarkServer(b *testing.B) {
	enc := benchRecord(b, 1).Bytes()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		c, _ := NewClient(rand.Reader, []byte("pw"), testSession, 1)
		m1, _ := c.Next(nil)
		b.StartTimer()
		rec, _ := ParseRecord(enc)
		sv, _ := NewServer(rand.Reader, rec, testSession)
		m2, _ := sv.Next(m1)
		b.StopTimer()
		m3, err := c.Next(m2)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := sv.Next(m3); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegister is registration: PBKDF2 and one key generation.
func BenchmarkRegister(b *testing.B) {
	for b.Loop() {
		benchRecord(b, DefaultIterations)
	}
}

// BenchmarkUnavoidable is the primitive floor of one login. Client: PBKDF2,
// KeyGen of the record key pair (from the password) and of the ephemeral
// pair, AES-128-CBC encryption of the ephemeral key, two Decaps, one
// AES-256-GCM open. Server: AES-128-CBC decryption, the ek check and
// Encaps to the ephemeral key, Encaps to the record key (already parsed),
// one AES-256-GCM seal. Hashing is not counted.
func BenchmarkUnavoidable(b *testing.B) {
	for _, it := range benchIterations {
		b.Run(benchName(it), func(b *testing.B) {
			rec := benchRecord(b, it)
			var seed [64]byte
			var m [32]byte
			iv := make([]byte, 16)
			nonce := make([]byte, nonceSize)
			key := make([]byte, 32)
			for b.Loop() {
				sec, _ := deriveSecrets([]byte("pw"), testSession.ClientID, testSession.ServerID, it) // PBKDF2 + record KeyGen
				rand.Read(seed[:])
				rand.Read(iv)
				ekE, dkE := mlkem512.NewKeyFromSeed(seed[:])
				ekBytes := make([]byte, mlkem512.PublicKeySize)
				ekE.Pack(ekBytes)
				clearUpperYMM()
				apk := cbcEncrypt(key[:16], iv, ekBytes)
				ekE2 := cbcDecryptParse(b, key[:16], iv, apk)
				rand.Read(m[:])
				cE := make([]byte, mlkem512.CiphertextSize)
				kE := make([]byte, 32)
				ekE2.EncapsulateTo(cE, kE, m[:])
				dkE.DecapsulateTo(kE, cE)
				clearUpperYMM()
				rand.Read(m[:])
				c1 := make([]byte, mlkem512.CiphertextSize)
				k1 := make([]byte, 32)
				rec.ek.EncapsulateTo(c1, k1, m[:])
				clearUpperYMM()
				rand.Read(nonce)
				g := newGCM(key)
				psi := g.Seal(nil, nonce, c1, nil)
				c1, _ = newGCM(key).Open(nil, nonce, psi, nil)
				sec.dk.DecapsulateTo(k1, c1)
				clearUpperYMM()
			}
		})
	}
}

// cbcEncrypt and cbcDecryptParse replicate the AES-CBC work of the OCAKE
// layer (package ocake keeps its own unexported) for BenchmarkUnavoidable.
func cbcEncrypt(key, iv, ek []byte) []byte {
	block, _ := aes.NewCipher(key)
	out := make([]byte, len(ek)+aes.BlockSize)
	copy(out, ek)
	for i := len(ek); i < len(out); i++ {
		out[i] = aes.BlockSize
	}
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(out, out)
	return out
}

func cbcDecryptParse(b *testing.B, key, iv, ct []byte) *mlkem512.PublicKey {
	block, _ := aes.NewCipher(key)
	pt := make([]byte, len(ct))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(pt, ct)
	var ek mlkem512.PublicKey
	err := ek.Unpack(pt[:mlkem512.PublicKeySize])
	clearUpperYMM()
	if err != nil {
		b.Fatal(err)
	}
	return &ek
}
