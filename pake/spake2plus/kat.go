package spake2plus

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/kat"
)

// vectorsJSON holds the P-256/SHA-256 vectors of RFC 9383, Appendix C, as
// transcribed from the RFC text (the file says so in its "source" field).
//
//go:embed testdata/rfc9383-appendix-c.json
var vectorsJSON []byte

// vector is one test vector of RFC 9383, Appendix C. b holds its hex
// values by the RFC's names (w0, w1, L, x, shareP, y, shareV, Z, V, TT,
// K_main, K_confirmP, K_confirmV, K_shared), and confirmP and confirmV for
// the RFC's MAC(K_confirmP, shareV) and MAC(K_confirmV, shareP).
type vector struct {
	suite         string
	ctx, idP, idV []byte
	b             map[string][]byte
}

func loadVectors() ([]vector, error) {
	var f struct{ Vectors []map[string]string }
	if err := json.Unmarshal(vectorsJSON, &f); err != nil {
		return nil, fmt.Errorf("spake2plus: embedded vectors: %v", err)
	}
	var vs []vector
	for _, m := range f.Vectors {
		v := vector{suite: m["suite"], ctx: []byte(m["context"]),
			idP: []byte(m["idProver"]), idV: []byte(m["idVerifier"]), b: map[string][]byte{}}
		for k, s := range m {
			switch k {
			case "suite", "context", "idProver", "idVerifier":
				continue
			}
			d, err := hex.DecodeString(s)
			if err != nil {
				return nil, fmt.Errorf("spake2plus: embedded vectors: %s: %v", k, err)
			}
			v.b[k] = d
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// KnownAnswerTests returns the vectors of RFC 9383, Appendix C for P-256
// with SHA-256 and HKDF-SHA256. The vector of this package's suite is
// checked in full: L, every intermediate value of both parties (X, Y, Z, V,
// TT, K_main, K_confirmP, K_confirmV, K_shared, confirmP, confirmV), and an
// exchange of a Prover and a Verifier replaying the vector's x and y. The
// vector of P256-SHA256-HKDF-SHA256-CMAC-AES-128 shares the group, Hash and
// KDF, and is checked up to its MAC: L, X, Y, Z, V, TT, K_main, K_shared and
// its 32 bytes of confirmation keys.
func KnownAnswerTests() []kat.Test {
	vs, err := loadVectors()
	if err != nil {
		return []kat.Test{{Name: "RFC 9383 Appendix C", Run: func() error { return err }}}
	}
	tests := make([]kat.Test, 0, len(vs))
	for _, v := range vs {
		tests = append(tests, kat.Test{Name: "RFC 9383 Appendix C, " + v.suite, Run: v.check})
	}
	return tests
}

// checker records the first mismatch.
type checker struct{ err error }

func (c *checker) eq(what string, got, want []byte) {
	if c.err == nil && !bytes.Equal(got, want) {
		c.err = kat.Mismatch(what, got, want)
	}
}

func (v vector) check() error {
	var s [4]*group.Scalar
	for i, name := range []string{"w0", "w1", "x", "y"} {
		var err error
		if s[i], err = parseScalar(name, v.b[name]); err != nil {
			return err
		}
	}
	w0, w1, x, y := s[0], s[1], s[2], s[3]
	L, err := group.NewPoint().SetBytes(v.b["L"])
	if err != nil {
		return fmt.Errorf("L: %v", err)
	}
	var c checker
	cs := suiteConstants()
	c.eq("L = w1*P", group.NewPoint().ScalarBaseMult(w1).Bytes(), v.b["L"])
	X, Y := share(x, w0, cs.mTable), share(y, w0, cs.nTable)
	c.eq("shareP = X", X.Bytes(), v.b["shareP"])
	c.eq("shareV = Y", Y.Bytes(), v.b["shareV"])
	uP, err := unmask("shareV", Y, w0, cs.nTable)
	if err != nil {
		return err
	}
	uV, err := unmask("shareP", X, w0, cs.mTable)
	if err != nil {
		return err
	}
	c.eq("prover Z = x*(Y - w0*N)", group.NewPoint().ScalarMult(x, uP).Bytes(), v.b["Z"])
	c.eq("prover V = w1*(Y - w0*N)", group.NewPoint().ScalarMult(w1, uP).Bytes(), v.b["V"])
	c.eq("verifier Z = y*(X - w0*M)", group.NewPoint().ScalarMult(y, uV).Bytes(), v.b["Z"])
	c.eq("verifier V = y*L", group.NewPoint().ScalarMult(y, L).Bytes(), v.b["V"])

	tt := transcript(v.ctx, v.idP, v.idV, v.b["shareP"], v.b["shareV"], v.b["Z"], v.b["V"], v.b["w0"])
	c.eq("TT", tt, v.b["TT"])
	k := schedule(tt)
	c.eq("K_main", k.main, v.b["K_main"])
	c.eq("K_shared", k.shared, v.b["K_shared"])
	if v.suite != Suite {
		// Another MAC: of the confirmation, only the KDF output is shared
		// with this suite.
		want := append(bytes.Clone(v.b["K_confirmP"]), v.b["K_confirmV"]...)
		ck, err := hkdf.Key(sha256.New, k.main, nil, "ConfirmationKeys", len(want))
		if err != nil {
			return err
		}
		c.eq("K_confirmP || K_confirmV", ck, want)
		return c.err
	}
	c.eq("K_confirmP", k.confirmP, v.b["K_confirmP"])
	c.eq("K_confirmV", k.confirmV, v.b["K_confirmV"])
	c.eq("confirmP = MAC(K_confirmP, shareV)", mac(k.confirmP, v.b["shareV"]), v.b["confirmP"])
	c.eq("confirmV = MAC(K_confirmV, shareP)", mac(k.confirmV, v.b["shareP"]), v.b["confirmV"])
	if c.err != nil {
		return c.err
	}
	return v.exchange()
}

// exchange runs a Prover and a Verifier on the vector, replaying its x and
// y, and checks every message and both session keys.
func (v vector) exchange() error {
	p, err := NewProver(replay(v.b["x"]), v.ctx, v.idP, v.idV, v.b["w0"], v.b["w1"])
	if err != nil {
		return err
	}
	ver, err := NewVerifier(replay(v.b["y"]), v.ctx, v.idP, v.idV, v.b["w0"], v.b["L"])
	if err != nil {
		return err
	}
	var c checker
	shareP, err := p.Start()
	if err != nil {
		return err
	}
	c.eq("Prover.Start: shareP", shareP, v.b["shareP"])
	shareV, confirmV, err := ver.Respond(shareP)
	if err != nil {
		return err
	}
	c.eq("Verifier.Respond: shareV", shareV, v.b["shareV"])
	c.eq("Verifier.Respond: confirmV", confirmV, v.b["confirmV"])
	confirmP, err := p.Finish(shareV, confirmV)
	if err != nil {
		return err
	}
	c.eq("Prover.Finish: confirmP", confirmP, v.b["confirmP"])
	if err := ver.Finish(confirmP); err != nil {
		return err
	}
	kp, _ := p.SessionKey()
	kv, _ := ver.SessionKey()
	c.eq("prover K_shared", kp, v.b["K_shared"])
	c.eq("verifier K_shared", kv, v.b["K_shared"])
	return c.err
}

// replay returns a reader from which group.RandomScalar draws exactly the
// 32-byte scalar s: 16 zero bytes, then s (the reduction of that 48-byte
// value modulo p is s).
func replay(s []byte) *bytes.Reader {
	return bytes.NewReader(append(make([]byte, 16), s...))
}
