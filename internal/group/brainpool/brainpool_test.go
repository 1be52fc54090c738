package brainpool

import (
	"bytes"
	"crypto/rand"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/testvec"
)

// oracle is affine brainpoolP256r1 arithmetic on math/big, an independent
// reference for public values in tests only.
type oracle struct{ p, a, b, n *big.Int }

type affinePt struct{ x, y *big.Int } // nil x: the identity

func newOracle() oracle {
	prm := Params()
	i := func(b []byte) *big.Int { return new(big.Int).SetBytes(b) }
	return oracle{i(prm.P), i(prm.A), i(prm.B), i(prm.N)}
}

func (o oracle) add(P, Q affinePt) affinePt {
	if P.x == nil {
		return Q
	}
	if Q.x == nil {
		return P
	}
	var l *big.Int
	if P.x.Cmp(Q.x) == 0 {
		if new(big.Int).Add(P.y, Q.y).Mod(new(big.Int).Add(P.y, Q.y), o.p).Sign() == 0 {
			return affinePt{}
		}
		num := new(big.Int).Mul(P.x, P.x)
		num.Mul(num, big.NewInt(3)).Add(num, o.a)
		den := new(big.Int).Lsh(P.y, 1)
		l = num.Mul(num, den.ModInverse(den, o.p))
	} else {
		num := new(big.Int).Sub(Q.y, P.y)
		den := new(big.Int).Sub(Q.x, P.x)
		den.Mod(den, o.p)
		l = num.Mul(num, den.ModInverse(den, o.p))
	}
	l.Mod(l, o.p)
	x := new(big.Int).Mul(l, l)
	x.Sub(x, P.x).Sub(x, Q.x).Mod(x, o.p)
	y := new(big.Int).Sub(P.x, x)
	y.Mul(y, l).Sub(y, P.y).Mod(y, o.p)
	return affinePt{x, y}
}

func (o oracle) mul(k *big.Int, P affinePt) affinePt {
	R := affinePt{}
	for i := k.BitLen() - 1; i >= 0; i-- {
		R = o.add(R, R)
		if k.Bit(i) == 1 {
			R = o.add(R, P)
		}
	}
	return R
}

func (o oracle) encode(P affinePt) []byte {
	if P.x == nil {
		return []byte{0}
	}
	out := []byte{4}
	out = append(out, P.x.FillBytes(make([]byte, 32))...)
	return append(out, P.y.FillBytes(make([]byte, 32))...)
}

func (o oracle) generator() affinePt {
	prm := Params()
	return affinePt{new(big.Int).SetBytes(prm.Gx), new(big.Int).SetBytes(prm.Gy)}
}

func (o oracle) onCurve(P affinePt) bool {
	l := new(big.Int).Mul(P.y, P.y)
	r := new(big.Int).Mul(P.x, P.x)
	r.Mul(r, P.x)
	r.Add(r, new(big.Int).Mul(o.a, P.x)).Add(r, o.b)
	return l.Sub(l, r).Mod(l, o.p).Sign() == 0
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParams checks RFC 5639 §3.4's parameters against each other: G is on
// the curve, n·G is the identity, and p ≡ 3 (mod 4) as the square root
// exponent assumes.
func TestParams(t *testing.T) {
	o := newOracle()
	if !o.onCurve(o.generator()) {
		t.Fatal("G is not on the curve")
	}
	if !o.p.ProbablyPrime(32) || !o.n.ProbablyPrime(32) {
		t.Fatal("p or n is not prime")
	}
	if o.p.Bit(0) != 1 || o.p.Bit(1) != 1 {
		t.Fatal("p is not 3 mod 4")
	}
	nG, err := NewPoint().ScalarBaseMult(o.n.Bytes())
	if err != nil || nG.IsIdentity() != 1 {
		t.Fatalf("n·G = %x, %v; want the identity", nG.Bytes(), err)
	}
	if got := NewGenerator().Bytes(); !bytes.Equal(got, o.encode(o.generator())) {
		t.Fatalf("generator encodes as %x", got)
	}
}

// TestAgainstOracle compares scalar multiplication, addition, doubling and
// negation with the math/big reference on random and edge-case inputs.
func TestAgainstOracle(t *testing.T) {
	o := newOracle()
	G := o.generator()
	ks := []*big.Int{big.NewInt(1), big.NewInt(2), big.NewInt(15), big.NewInt(16), big.NewInt(17),
		new(big.Int).Sub(o.n, big.NewInt(1)), new(big.Int).Sub(o.n, big.NewInt(2)),
		new(big.Int).Lsh(big.NewInt(1), 255), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))}
	for range 4 {
		k, _ := rand.Int(rand.Reader, o.n)
		ks = append(ks, k)
	}
	for _, k := range ks {
		want := o.encode(o.mul(k, G))
		got, err := NewPoint().ScalarBaseMult(k.Bytes())
		if err != nil || !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%x·G = %x, %v; want %x", k, got.Bytes(), err, want)
		}
	}
	P, _ := NewPoint().ScalarBaseMult(ks[9].Bytes())
	Q, _ := NewPoint().ScalarBaseMult(ks[10].Bytes())
	oP, oQ := o.mul(ks[9], G), o.mul(ks[10], G)
	cases := []struct {
		name string
		got  *Point
		want affinePt
	}{
		{"P+Q", NewPoint().Add(P, Q), o.add(oP, oQ)},
		{"P+P", NewPoint().Add(P, P), o.add(oP, oP)},
		{"2P", NewPoint().Double(P), o.add(oP, oP)},
		{"P+O", NewPoint().Add(P, NewPoint()), oP},
		{"O+P", NewPoint().Add(NewPoint(), P), oP},
		{"O+O", NewPoint().Add(NewPoint(), NewPoint()), affinePt{}},
		{"2O", NewPoint().Double(NewPoint()), affinePt{}},
		{"P+(-P)", NewPoint().Add(P, NewPoint().Negate(P)), affinePt{}},
		{"Q·P", must(NewPoint().ScalarMult(ks[10].Bytes(), P)), o.mul(ks[10], oP)},
		{"0·P", must(NewPoint().ScalarMult(nil, P)), affinePt{}},
		{"k·O", must(NewPoint().ScalarMult(ks[10].Bytes(), NewPoint())), affinePt{}},
	}
	for _, c := range cases {
		if got, want := c.got.Bytes(), o.encode(c.want); !bytes.Equal(got, want) {
			t.Errorf("%s = %x, want %x", c.name, got, want)
		}
	}
	// Aliased receivers.
	R := NewPoint().Set(P)
	R.Add(R, R)
	if R.Equal(NewPoint().Double(P)) != 1 || R.Equal(P) != 0 {
		t.Error("aliased Add or Equal is wrong")
	}
	if _, err := NewPoint().ScalarMult(make([]byte, 33), P); err == nil {
		t.Error("a 33-byte scalar was accepted")
	}
}

func must(p *Point, err error) *Point {
	if err != nil {
		panic(err)
	}
	return p
}

// TestEncoding checks the SEC 1 encodings and every refusal of SetBytes.
func TestEncoding(t *testing.T) {
	o := newOracle()
	for range 3 {
		k, _ := rand.Int(rand.Reader, o.n)
		P := must(NewPoint().ScalarBaseMult(k.Bytes()))
		u, c := P.Bytes(), P.BytesCompressed()
		if len(u) != UncompressedPointSize || len(c) != CompressedPointSize || !bytes.Equal(u[1:33], c[1:]) {
			t.Fatalf("encodings %x, %x", u, c)
		}
		if c[0] != 2+byte(new(big.Int).SetBytes(u[33:]).Bit(0)) {
			t.Fatalf("compressed prefix %#x for y = %x", c[0], u[33:])
		}
		for _, enc := range [][]byte{u, c} {
			Q, err := NewPoint().SetBytes(enc)
			if err != nil || Q.Equal(P) != 1 {
				t.Fatalf("SetBytes(%x) = %v", enc, err)
			}
		}
		x, err := P.BytesX()
		if err != nil || !bytes.Equal(x, u[1:33]) {
			t.Fatalf("BytesX = %x, %v", x, err)
		}
		// Coordinates plus p, the other root, other prefixes, off-curve.
		bad := [][]byte{
			append([]byte{4}, append(add256(u[1:33], Params().P), u[33:]...)...),
			append([]byte{4}, append(bytes.Clone(u[1:33]), add256(u[33:], Params().P)...)...),
			append([]byte{2}, add256(u[1:33], Params().P)...),
			append([]byte{6}, u[1:]...), append([]byte{7}, u[1:]...), append([]byte{5}, u[1:]...),
			append([]byte{1}, c[1:]...), u[:64], c[:32], append(bytes.Clone(u), 0), {},
		}
		offCurve := bytes.Clone(u)
		offCurve[64] ^= 1
		bad = append(bad, offCurve)
		for _, b := range bad {
			if _, err := NewPoint().SetBytes(b); !errors.Is(err, group.ErrInvalidEncoding) {
				t.Errorf("SetBytes(%x) = %v, want ErrInvalidEncoding", b, err)
			}
		}
	}
	if _, err := NewPoint().SetBytes([]byte{0}); !errors.Is(err, group.ErrIdentity) {
		t.Errorf("SetBytes(00) = %v, want ErrIdentity", err)
	}
	if b := NewPoint().Bytes(); !bytes.Equal(b, []byte{0}) {
		t.Errorf("identity encodes as %x", b)
	}
	if _, err := NewPoint().BytesX(); !errors.Is(err, group.ErrIdentity) {
		t.Errorf("identity BytesX: %v", err)
	}
	// An x with no point: x = 0 gives y² = b, which must not be a square
	// for this to be a refusal; find such an x by the oracle.
	for x := int64(0); ; x++ {
		r := new(big.Int).Exp(big.NewInt(x), big.NewInt(3), o.p)
		r.Add(r, new(big.Int).Mul(o.a, big.NewInt(x))).Add(r, o.b).Mod(r, o.p)
		if big.Jacobi(r, o.p) == -1 {
			enc := append([]byte{3}, big.NewInt(x).FillBytes(make([]byte, 32))...)
			if _, err := NewPoint().SetBytes(enc); !errors.Is(err, group.ErrInvalidEncoding) {
				t.Errorf("SetBytes(%x) with no point on the curve: %v", enc, err)
			}
			break
		}
	}
}

func add256(x, y []byte) []byte {
	s := new(big.Int).Add(new(big.Int).SetBytes(x), new(big.Int).SetBytes(y))
	if s.BitLen() > 256 {
		return nil
	}
	return s.FillBytes(make([]byte, 32))
}

func TestRandomScalar(t *testing.T) {
	n := new(big.Int).SetBytes(Params().N)
	x := unhex(t, "0113db979e07d9c8fdbea5b06a682c0d2ad67170ffcb65d7547d8c442d3ac237")
	got, err := RandomScalar(bytes.NewReader(append(make([]byte, 16), x...)))
	if err != nil || !bytes.Equal(got, x) {
		t.Fatalf("replay: %x, %v", got, err)
	}
	// 48 bytes of 0xff: (2^384 - 1) mod n, checked with math/big.
	ff := bytes.Repeat([]byte{0xff}, 48)
	want := new(big.Int).Mod(new(big.Int).SetBytes(ff), n).FillBytes(make([]byte, 32))
	if got, _ := RandomScalar(bytes.NewReader(ff)); !bytes.Equal(got, want) {
		t.Fatalf("reduction: %x, want %x", got, want)
	}
	// Zero is skipped.
	in := append(make([]byte, 48), append(make([]byte, 47), 5)...)
	if got, _ := RandomScalar(bytes.NewReader(in)); new(big.Int).SetBytes(got).Int64() != 5 {
		t.Fatalf("zero not resampled: %x", got)
	}
	if _, err := RandomScalar(bytes.NewReader(nil)); err == nil {
		t.Fatal("empty reader accepted")
	}
}

// Object identifiers of RFC 5480 §2.1.1 and RFC 5639 §4.1.
var (
	oidECPublicKey     = asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}
	oidBrainpoolP256r1 = asn1.ObjectIdentifier{1, 3, 36, 3, 3, 2, 8, 1, 1, 7}
)

type spki struct {
	Algorithm struct {
		Algorithm  asn1.ObjectIdentifier
		Parameters asn1.RawValue
	}
	PublicKey asn1.BitString
}

// parseSPKI is a strict parser for a SubjectPublicKeyInfo (RFC 5480 §2)
// holding a brainpoolP256r1 key: id-ecPublicKey with the namedCurve OID
// (explicit ECParameters are refused), DER only (re-encoding must give the
// input back), a whole number of bytes in the BIT STRING, and a point that
// SetBytes accepts.
func parseSPKI(der []byte) (*Point, error) {
	var k spki
	rest, err := asn1.Unmarshal(der, &k)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, errors.New("trailing data")
	}
	if re, err := asn1.Marshal(k); err != nil || !bytes.Equal(re, der) {
		return nil, errors.New("not DER")
	}
	if !k.Algorithm.Algorithm.Equal(oidECPublicKey) {
		return nil, errors.New("not id-ecPublicKey")
	}
	var curve asn1.ObjectIdentifier
	if r, err := asn1.Unmarshal(k.Algorithm.Parameters.FullBytes, &curve); err != nil || len(r) != 0 {
		return nil, errors.New("parameters are not a named curve")
	}
	if !curve.Equal(oidBrainpoolP256r1) {
		return nil, fmt.Errorf("curve %v", curve)
	}
	if k.PublicKey.BitLength%8 != 0 {
		return nil, errors.New("partial byte in the public key")
	}
	return NewPoint().SetBytes(k.PublicKey.Bytes)
}

// ecdh returns the x coordinate of priv·pub, refusing the identity.
func ecdh(priv []byte, pub *Point) ([]byte, error) {
	s, err := NewPoint().ScalarMult(priv, pub)
	if err != nil {
		return nil, err
	}
	return s.BytesX()
}

// TestWycheproofECDH runs every case of Wycheproof's
// ecdh_brainpoolP256r1_test.json (X.509 SubjectPublicKeyInfo public keys).
//
//   - valid: the key parses and the shared secret matches.
//   - invalid: the key is refused, or ECDH fails.
//   - acceptable: either refused, or the shared secret matches. Here that
//     means: the compressed key (CompressedPublic) is accepted and must
//     match; keys with BER-but-not-DER encodings (InvalidAsn) and keys with
//     explicit curve parameters (UnnamedCurve), which this parser refuses
//     by design, are rejected, which the test records.
func TestWycheproofECDH(t *testing.T) {
	var f testvec.ECDHFile
	testvec.JSON(t, "wycheproof/ecdh_brainpoolP256r1_test.json", &f)
	var n, accepted, rejectedAcceptable int
	for _, g := range f.TestGroups {
		if g.Curve != "brainpoolP256r1" || g.Encoding != "asn" {
			t.Fatalf("group for %s/%s", g.Curve, g.Encoding)
		}
		for _, tc := range g.Tests {
			n++
			name := fmt.Sprintf("tcId %d %q %v", tc.TcID, tc.Comment, tc.Flags)
			priv := bytes.TrimLeft(unhex(t, tc.Private), "\x00")
			shared := unhex(t, tc.Shared)
			pub, err := parseSPKI(unhex(t, tc.Public))
			var got []byte
			if err == nil {
				got, err = ecdh(priv, pub)
			}
			switch tc.Result {
			case "valid":
				if err != nil || !bytes.Equal(got, shared) {
					t.Errorf("%s: %x, %v; want %x", name, got, err, shared)
				}
			case "invalid":
				if err == nil {
					t.Errorf("%s: accepted (shared %x)", name, got)
				}
			case "acceptable":
				if err != nil {
					rejectedAcceptable++
					continue
				}
				accepted++
				if !bytes.Equal(got, shared) {
					t.Errorf("%s: accepted with shared %x, want %x", name, got, shared)
				}
			default:
				t.Errorf("%s: result %q", name, tc.Result)
			}
		}
	}
	if n != f.NumberOfTests {
		t.Errorf("ran %d cases, the file declares %d", n, f.NumberOfTests)
	}
	t.Logf("%d cases; acceptable: %d accepted (shared secret checked), %d refused", n, accepted, rejectedAcceptable)
}

// FuzzSetBytes: SetBytes never panics, and what it accepts re-encodes to
// the input and lies on the curve (checked by the math/big oracle).
func FuzzSetBytes(f *testing.F) {
	f.Add(NewGenerator().Bytes())
	f.Add(NewGenerator().BytesCompressed())
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, b []byte) {
		P, err := NewPoint().SetBytes(b)
		if err != nil {
			return
		}
		enc := P.Bytes()
		if len(b) == CompressedPointSize {
			enc = P.BytesCompressed()
		}
		if !bytes.Equal(enc, b) {
			t.Fatalf("SetBytes(%x) re-encodes as %x", b, enc)
		}
		u := P.Bytes()
		o := newOracle()
		if !o.onCurve(affinePt{new(big.Int).SetBytes(u[1:33]), new(big.Int).SetBytes(u[33:])}) {
			t.Fatalf("accepted %x off the curve", b)
		}
	})
}

func BenchmarkScalarMult(b *testing.B) {
	k, _ := RandomScalar(rand.Reader)
	P := NewGenerator()
	for b.Loop() {
		NewPoint().ScalarMult(k, P)
	}
}

func BenchmarkAdd(b *testing.B) {
	P, Q := NewGenerator(), NewPoint().Double(NewGenerator())
	R := NewPoint()
	for b.Loop() {
		R.Add(P, Q)
	}
}

func BenchmarkSetBytes(b *testing.B) {
	u := NewGenerator().Bytes()
	for b.Loop() {
		NewPoint().SetBytes(u)
	}
}
