package spake2plus

import (
	"bytes"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Test parties: the identities and context of RFC 9383, Appendix C, with
// the w0 and w1 of its P256-SHA256-HKDF-SHA256-HMAC-SHA256 vector.
var (
	tContext    = []byte("SPAKE2+-P256-SHA256-HKDF-SHA256-HMAC-SHA256 Test Vectors")
	tIDProver   = []byte("client")
	tIDVerifier = []byte("server")
	tW0         = mustHex("bb8e1bbcf3c48f62c08db243652ae55d3e5586053fca77102994f23ad95491b3")
	tW1         = mustHex("7e945f34d78785b8a3ef44d0df5a1a97d6b3b460409a345ca7830387a74b1dba")
	tL          = mustHex("04eb7c9db3d9a9eb1f8adab81b5794c1f13ae3e225efbe91ea487425854c7fc00f00bfedcbd09b2400142d40a14f2064ef31dfaa903b91d1faea7093d835966efd")
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestKnownAnswers(t *testing.T) {
	tests := KnownAnswerTests()
	if len(tests) != 2 {
		t.Fatalf("%d known-answer tests, want 2", len(tests))
	}
	for _, k := range tests {
		if err := k.Run(); err != nil {
			t.Errorf("%s: %v", k.Name, err)
		}
	}
}

// TestKnownAnswersDetectCorruption checks that the known-answer tests are
// not vacuous: changing any checked value of a vector makes them fail.
func TestKnownAnswersDetectCorruption(t *testing.T) {
	vs, err := loadVectors()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		names := []string{"w0", "w1", "L", "x", "shareP", "y", "shareV", "Z", "V", "TT",
			"K_main", "K_confirmP", "K_confirmV", "K_shared"}
		if v.suite == Suite {
			names = append(names, "confirmP", "confirmV")
		}
		for _, name := range names {
			orig := v.b[name]
			if len(orig) == 0 {
				t.Fatalf("%s: vector has no %s", v.suite, name)
			}
			bad := bytes.Clone(orig)
			bad[len(bad)-1] ^= 1
			v.b[name] = bad
			if err := v.check(); err == nil {
				t.Errorf("%s: vector with %s changed still passes", v.suite, name)
			}
			v.b[name] = orig
		}
		if err := v.check(); err != nil {
			t.Fatalf("%s: restored vector fails: %v", v.suite, err)
		}
	}
}

// TestPointGeneration derives M and N from their seeds with the algorithm
// of RFC 9383, Appendix B, and compares them with the constants of
// Section 4.
func TestPointGeneration(t *testing.T) {
	for _, tc := range []struct{ seed, want string }{
		{"1.2.840.10045.3.1.7 point generation seed (M)", mHex},
		{"1.2.840.10045.3.1.7 point generation seed (N)", nHex},
	} {
		// iterated(i) is SHA-256 applied i times to the seed.
		iterated := func(i int) []byte {
			h := []byte(tc.seed)
			for range i {
				s := sha256.Sum256(h)
				h = s[:]
			}
			return h
		}
		var got []byte
		for i := 1; i < 1000 && got == nil; i++ {
			s := append(iterated(i), iterated(i+1)...)[:group.CompressedPointSize]
			s[0] = s[0]&1 | 2
			if _, err := group.NewPoint().SetBytes(s); err == nil {
				got = s
			}
		}
		if hex.EncodeToString(got) != tc.want {
			t.Errorf("%s: derived %x, want %s", tc.seed, got, tc.want)
		}
	}
}

// exchange runs a typed prover and verifier to the end.
func exchange(p *Prover, v *Verifier) (kp, kv []byte, err error) {
	shareP, err := p.Start()
	if err != nil {
		return nil, nil, err
	}
	shareV, confirmV, err := v.Respond(shareP)
	if err != nil {
		return nil, nil, err
	}
	if len(shareP) != ShareSize || len(shareV) != ShareSize || len(confirmV) != ConfirmSize {
		return nil, nil, errors.New("wrong message size")
	}
	confirmP, err := p.Finish(shareV, confirmV)
	if err != nil {
		return nil, nil, err
	}
	if err := v.Finish(confirmP); err != nil {
		return nil, nil, err
	}
	if kp, err = p.SessionKey(); err != nil {
		return nil, nil, err
	}
	kv, err = v.SessionKey()
	return kp, kv, err
}

func newPair(t *testing.T, w0, w1, L []byte) (*Prover, *Verifier) {
	t.Helper()
	p, err := NewProver(rand.Reader, tContext, tIDProver, tIDVerifier, w0, w1)
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVerifier(rand.Reader, tContext, tIDProver, tIDVerifier, w0, L)
	if err != nil {
		t.Fatal(err)
	}
	return p, v
}

func TestHonest(t *testing.T) {
	var prev []byte
	for range 3 {
		kp, kv, err := exchange(newPair(t, tW0, tW1, tL))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(kp, kv) || len(kp) != KeySize {
			t.Fatalf("keys differ or wrong size: %x, %x", kp, kv)
		}
		if bytes.Equal(kp, prev) {
			t.Fatal("two exchanges gave the same key")
		}
		prev = kp
	}
}

// cheapPBKDF stands in for scrypt where the cost is beside the point.
func cheapPBKDF(in []byte, n int) ([]byte, error) {
	return hkdf.Key(sha256.New, in, nil, "test PBKDF", n)
}

func TestWrongPassword(t *testing.T) {
	w0, w1, L, err := Register([]byte("password"), tIDProver, tIDVerifier, cheapPBKDF)
	if err != nil {
		t.Fatal(err)
	}
	b0, b1, _, err := Register([]byte("passwore"), tIDProver, tIDVerifier, cheapPBKDF)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		w0, w1 []byte // the prover's
	}{
		{"wrong password", b0, b1},
		{"wrong w1 only", w0, b1}, // a prover that stole w0 but not w1
		{"wrong w0 only", b0, w1},
	} {
		p, err := NewProver(rand.Reader, tContext, tIDProver, tIDVerifier, tc.w0, tc.w1)
		if err != nil {
			t.Fatal(err)
		}
		_, v := newPair(t, w0, w1, L)
		shareP, err := p.Start()
		if err != nil {
			t.Fatal(err)
		}
		shareV, confirmV, err := v.Respond(shareP)
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Finish(shareV, confirmV)
		if !errors.Is(err, pakeerr.ErrAuthFailed) {
			t.Errorf("%s: prover got %v, want ErrAuthFailed", tc.name, err)
		}
		if _, err := p.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
			t.Errorf("%s: prover has a session key after failing", tc.name)
		}
		// The verifier also refuses a confirmP made by a prover who
		// skipped checking confirmV.
		if err := v.Finish(make([]byte, ConfirmSize)); !errors.Is(err, pakeerr.ErrAuthFailed) {
			t.Errorf("%s: verifier got %v, want ErrAuthFailed", tc.name, err)
		}
	}
	if _, _, err := exchange(newPair(t, w0, w1, L)); err != nil {
		t.Fatalf("right password: %v", err)
	}
}

// TestTranscriptBinding checks that context and both identities enter TT.
func TestTranscriptBinding(t *testing.T) {
	for _, tc := range []struct {
		name          string
		ctx, idP, idV []byte
	}{
		{"context", []byte("other"), tIDProver, tIDVerifier},
		{"idProver", tContext, []byte("clienT"), tIDVerifier},
		{"idVerifier", tContext, tIDProver, []byte("serveR")},
		{"identity boundary", tContext, []byte("clients"), []byte("erver")},
	} {
		p, err := NewProver(rand.Reader, tc.ctx, tc.idP, tc.idV, tW0, tW1)
		if err != nil {
			t.Fatal(err)
		}
		_, v := newPair(t, tW0, tW1, tL)
		if _, _, err := exchange(p, v); !errors.Is(err, pakeerr.ErrAuthFailed) {
			t.Errorf("%s differs: got %v, want ErrAuthFailed", tc.name, err)
		}
	}
}

// TestTamperedConfirmations flips one bit of confirmV, then of confirmP.
func TestTamperedConfirmations(t *testing.T) {
	p, v := newPair(t, tW0, tW1, tL)
	shareP, _ := p.Start()
	shareV, confirmV, err := v.Respond(shareP)
	if err != nil {
		t.Fatal(err)
	}
	confirmV[0] ^= 1
	if _, err := p.Finish(shareV, confirmV); !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Errorf("tampered confirmV: got %v, want ErrAuthFailed", err)
	}

	p, v = newPair(t, tW0, tW1, tL)
	shareP, _ = p.Start()
	shareV, confirmV, _ = v.Respond(shareP)
	confirmP, err := p.Finish(shareV, confirmV)
	if err != nil {
		t.Fatal(err)
	}
	confirmP[ConfirmSize-1] ^= 0x80
	if err := v.Finish(confirmP); !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Errorf("tampered confirmP: got %v, want ErrAuthFailed", err)
	}
	if _, err := v.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
		t.Error("verifier has a session key after failing")
	}
}
