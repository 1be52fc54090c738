package srp

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"testing"

	"github.com/kexlab/kexlab/internal/testvec"
)

// sharedVectors returns every sha1 and sha256 vector of the shared files.
func sharedVectors(t *testing.T) []vector {
	var out []vector
	for _, file := range []string{"srp/rfc5054.json", "srp/srptools.json"} {
		var doc struct {
			TestVectors []vector `json:"testVectors"`
		}
		testvec.JSON(t, file, &doc)
		for _, v := range doc.TestVectors {
			if v.H == "sha1" || v.H == "sha256" {
				out = append(out, v)
			}
		}
	}
	if len(out) != 13 {
		t.Fatalf("%d sha1/sha256 vectors in the shared files, want 13 (1 RFC 5054 + 12 srptools)", len(out))
	}
	return out
}

// TestVectors runs every sha1 and sha256 vector of the shared files
// through checkVector: k, x, v, A, B, u, S (both sides), K, M1, M2.
func TestVectors(t *testing.T) {
	for _, pr := range []Profile{ProfileRFC5054, ProfilePadded} {
		for i, v := range sharedVectors(t) {
			t.Run(fmt.Sprintf("%v-%d-%d-%s", pr, i, v.Size, v.H), func(t *testing.T) {
				if err := checkVector(v, pr); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestVectorsAgreeOnEncoding checks the claim of the package documentation:
// in every shared vector, the values whose encoding inside a hash differs
// between srptools (minimal) and this package (PAD, or the raw digest) have
// a non-zero top byte, so the vectors cannot tell the two apart.
func TestVectorsAgreeOnEncoding(t *testing.T) {
	for i, v := range sharedVectors(t) {
		p, err := vectorParams(v, ProfilePadded)
		if err != nil {
			t.Fatal(err)
		}
		salt, _ := decodeHex(v.Salt)
		values := map[string][]byte{"s": salt, "H(I)": p.h([]byte(v.I)), "H(N) xor H(g)": p.hNg}
		for _, name := range []string{"A", "B", "S"} {
			b, _ := decodeHex(map[string]string{"A": v.A, "B": v.B, "S": v.S}[name])
			if len(b) != p.ElementSize() {
				t.Errorf("vector %d: %s is %d bytes, not PAD length %d", i, name, len(b), p.ElementSize())
			}
			values[name] = b
		}
		for name, b := range values {
			if b[0] == 0 {
				t.Errorf("vector %d: %s has a zero top byte; srptools would drop it", i, name)
			}
		}
	}
}

// TestEmbeddedVectors checks that testdata/vectors.json, which
// KnownAnswerTests embeds, holds exact copies of shared entries.
func TestEmbeddedVectors(t *testing.T) {
	var f vectorFile
	if err := json.Unmarshal(vectorsJSON, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.RFC5054) != 1 || len(f.SRPTools) < 4 {
		t.Fatalf("embedded %d RFC 5054 and %d srptools vectors", len(f.RFC5054), len(f.SRPTools))
	}
	shared := map[string][]vector{}
	for _, file := range []string{"srp/rfc5054.json", "srp/srptools.json"} {
		var doc struct {
			TestVectors []vector `json:"testVectors"`
		}
		testvec.JSON(t, file, &doc)
		shared[file] = doc.TestVectors
	}
	find := func(file string, e vector) {
		for _, v := range shared[file] {
			if reflect.DeepEqual(v, e) {
				return
			}
		}
		t.Errorf("embedded %d/%s vector is not an entry of %s", e.Size, e.H, file)
	}
	for _, e := range f.RFC5054 {
		find("srp/rfc5054.json", e)
	}
	for _, e := range f.SRPTools {
		find("srp/srptools.json", e)
	}
}

func TestKnownAnswerTests(t *testing.T) {
	tests := KnownAnswerTests()
	if len(tests) < 5 {
		t.Fatalf("%d known-answer tests", len(tests))
	}
	for _, k := range tests {
		if err := k.Run(); err != nil {
			t.Errorf("%s: %v", k.Name, err)
		}
	}
}

func bigOf(b []byte) *big.Int { return new(big.Int).SetBytes(b) }

func pad(x *big.Int, n int) []byte { return x.FillBytes(make([]byte, n)) }

// TestOracle replays random exchanges in math/big, independently of the
// modp arithmetic, in both profiles, including runs where S, A or B has a
// zero top byte, where the profiles' encodings inside the hashes differ.
func TestOracle(t *testing.T) {
	for _, pr := range []Profile{ProfileRFC5054, ProfilePadded} {
		t.Run(pr.String(), func(t *testing.T) { testOracle(t, pr) })
	}
}

func testOracle(t *testing.T, pr Profile) {
	p, err := NewProfileParams(1024, crypto.SHA1, pr)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Register(rand.Reader, p, testID, testPW)
	if err != nil {
		t.Fatal(err)
	}
	N, g := bigOf(p.group.P()), bigOf(p.group.G())
	size := p.ElementSize()
	H := func(parts ...[]byte) []byte { return p.h(parts...) }
	// enc is the encoding inside M1, M2 and K.
	enc := func(x *big.Int) []byte { return x.Bytes() }
	encG := pad(g, size)
	if pr == ProfilePadded {
		enc = func(x *big.Int) []byte { return pad(x, size) }
		encG = g.Bytes()
	}
	var zeroS, zeroA, zeroB bool
	for seed := uint64(0); seed < 3000 && !(zeroS && zeroA && zeroB && seed >= 20); seed++ {
		cr, sr := &detReader{seed: seed}, &detReader{seed: seed + 1<<32}
		aBytes, bBytes := make([]byte, 32), make([]byte, 32)
		(&detReader{seed: seed}).Read(aBytes)
		(&detReader{seed: seed + 1<<32}).Read(bBytes)
		msgs, c, _, err := exchange(t, p, rec, testPW, cr, sr)
		if err != nil {
			t.Fatal(err)
		}
		a, b := bigOf(aBytes), bigOf(bBytes)
		x := bigOf(H(rec.Salt, H(testID, []byte(":"), testPW)))
		v := new(big.Int).Exp(g, x, N)
		k := bigOf(H(p.group.P(), pad(g, size)))
		A := new(big.Int).Exp(g, a, N)
		B := new(big.Int).Add(new(big.Int).Mul(k, v), new(big.Int).Exp(g, b, N))
		B.Mod(B, N)
		u := bigOf(H(pad(A, size), pad(B, size)))
		S := new(big.Int).Exp(new(big.Int).Mul(A, new(big.Int).Exp(v, u, N)), b, N)
		K := H(enc(S))
		hNg := H(p.group.P())
		for i, hg := range H(encG) {
			hNg[i] ^= hg
		}
		M1 := H(hNg, H(testID), rec.Salt, enc(A), enc(B), K)
		M2 := H(enc(A), M1, K)
		// A and B are sent in the encoding they are hashed in.
		wantM2 := append([]byte{byte(len(rec.Salt))}, append(bytes.Clone(rec.Salt), enc(B)...)...)
		for i, want := range [][]byte{enc(A), wantM2, M1, M2} {
			if !bytes.Equal(msgs[i], want) {
				t.Fatalf("seed %d: message %d = %x, want %x", seed, i+1, msgs[i], want)
			}
		}
		if key, _ := c.SessionKey(); !bytes.Equal(key, K) {
			t.Fatalf("seed %d: K = %x, want %x", seed, key, K)
		}
		zeroS = zeroS || S.BitLen() <= 8*(size-1)
		zeroA = zeroA || A.BitLen() <= 8*(size-1)
		zeroB = zeroB || B.BitLen() <= 8*(size-1)
	}
	if !zeroS || !zeroA || !zeroB {
		t.Errorf("no run with a short S (%v), A (%v) or B (%v) in 3000 seeds", zeroS, zeroA, zeroB)
	}
}
