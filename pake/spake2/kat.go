package spake2

import (
	"bytes"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/kat"
)

// appendixB is RFC 9382, Appendix B (the SPAKE2 test vectors for
// P256-SHA256-HKDF-HMAC), transcribed with M and N of Section 6.
//
//go:embed testdata/rfc9382-appendix-b.json
var appendixB []byte

// vectorFile is the layout of testdata/rfc9382-appendix-b.json.
type vectorFile struct {
	Source  string   `json:"source"`
	M       string   `json:"M"`
	N       string   `json:"N"`
	Vectors []vector `json:"vectors"`
}

// vector is one case of Appendix B. A and B are the identities as text;
// every other field is hex, named as the RFC prints it (cA and cB are its
// "A conf" and "B conf", HashTT its "Hash(TT)").
type vector struct {
	Name                           string
	A, B                           string
	W, X, PA, Y, PB, K, TT, HashTT string
	Ke, Ka, KcA, KcB, CA, CB       string
}

func loadVectors() (*vectorFile, error) {
	var f vectorFile
	if err := json.Unmarshal(appendixB, &f); err != nil {
		return nil, fmt.Errorf("spake2: embedded vectors: %v", err)
	}
	if len(f.Vectors) == 0 {
		return nil, errors.New("spake2: embedded vectors: none")
	}
	return &f, nil
}

// KnownAnswerTests returns the four cases of RFC 9382, Appendix B, and a
// check of M and N against Section 6. Each case replays the vector's x and
// y through NewA and NewB and compares every value the appendix prints:
// pA, pB, K, TT, Hash(TT), Ke, Ka, KcA, KcB, cA and cB, and both parties'
// session keys.
func KnownAnswerTests() []kat.Test {
	f, err := loadVectors()
	if err != nil {
		return []kat.Test{{Name: "RFC 9382 Appendix B", Run: func() error { return err }}}
	}
	tests := []kat.Test{{
		Name: "RFC 9382 Section 6: M and N for P-256",
		Run: func() error {
			if f.M != mHex || f.N != nHex {
				return fmt.Errorf("M, N = %s, %s; the vector file has %s, %s", mHex, nHex, f.M, f.N)
			}
			bases() // decodes them: they are on the curve
			return nil
		},
	}}
	for _, v := range f.Vectors {
		tests = append(tests, kat.Test{
			Name: "RFC 9382 Appendix B: " + v.Name,
			Run:  func() error { return runVector(v) },
		})
	}
	return tests
}

// replay returns a reader that makes group.RandomScalar return s: 16 zero
// bytes, then s (whose reduction modulo p is s itself).
func replay(s []byte) *bytes.Reader {
	return bytes.NewReader(append(make([]byte, 16), s...))
}

// hexFields decodes the hex values of v, by the names Appendix B uses.
func (v vector) hexFields() (map[string][]byte, error) {
	out := make(map[string][]byte)
	for name, h := range map[string]string{
		"w": v.W, "x": v.X, "pA": v.PA, "y": v.Y, "pB": v.PB, "K": v.K, "TT": v.TT,
		"Hash(TT)": v.HashTT, "Ke": v.Ke, "Ka": v.Ka, "KcA": v.KcA, "KcB": v.KcB,
		"cA": v.CA, "cB": v.CB,
	} {
		b, err := hex.DecodeString(h)
		if err != nil || len(b) == 0 {
			return nil, fmt.Errorf("field %s: bad hex %q", name, h)
		}
		out[name] = b
	}
	return out, nil
}

func runVector(v vector) error {
	h, err := v.hexFields()
	if err != nil {
		return err
	}
	idA, idB := []byte(v.A), []byte(v.B)

	// The exchange, as the parties run it, with the vector's x and y.
	a, err := NewA(replay(h["x"]), idA, idB, nil, h["w"])
	if err != nil {
		return err
	}
	b, err := NewB(replay(h["y"]), idA, idB, nil, h["w"])
	if err != nil {
		return err
	}
	pA, err := a.Start()
	if err != nil {
		return fmt.Errorf("A.Start: %w", err)
	}
	pB, cB, err := b.Respond(pA)
	if err != nil {
		return fmt.Errorf("B.Respond: %w", err)
	}
	cA, err := a.Finish(pB, cB)
	if err != nil {
		return fmt.Errorf("A.Finish: %w", err)
	}
	if err := b.Finish(cA); err != nil {
		return fmt.Errorf("B.Finish: %w", err)
	}
	keyA, errA := a.SessionKey()
	keyB, errB := b.SessionKey()
	if err := errors.Join(errA, errB); err != nil {
		return err
	}

	// The intermediate values: K from both sides, and the key schedule.
	w, errW := parseW(h["w"])
	x, errX := group.NewScalar().SetCanonicalBytes(h["x"])
	y, errY := group.NewScalar().SetCanonicalBytes(h["y"])
	qA, errQA := parseShare("pA", pA)
	qB, errQB := parseShare("pB", pB)
	if err := errors.Join(errW, errX, errY, errQA, errQB); err != nil {
		return err
	}
	kA, errA := sharedPoint("pB", x, w, qB, bases().n)
	kB, errB := sharedPoint("pA", y, w, qA, bases().m)
	if err := errors.Join(errA, errB); err != nil {
		return err
	}
	ks, err := deriveKeys(transcript(idA, idB, pA, pB, kA, h["w"]), nil)
	if err != nil {
		return err
	}

	for _, f := range []struct {
		name string
		got  []byte
	}{
		{"pA", pA}, {"pB", pB}, {"K", kA}, {"K", kB}, {"TT", ks.tt},
		{"Hash(TT)", append(bytes.Clone(ks.ke), ks.ka...)}, {"Ke", ks.ke}, {"Ka", ks.ka},
		{"KcA", ks.kcA}, {"KcB", ks.kcB}, {"cA", ks.cA}, {"cB", ks.cB},
		{"cA", cA}, {"cB", cB}, {"Ke", keyA}, {"Ke", keyB},
	} {
		if !bytes.Equal(f.got, h[f.name]) {
			return kat.Mismatch(f.name, f.got, h[f.name])
		}
	}
	return nil
}
