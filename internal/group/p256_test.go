package group

import (
	"bytes"
	"errors"
	"io"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/kexlab/kexlab/internal/testvec"
)

// Tests of the P-256 core: SEC 1 point decoding (SEC 1 v2 §2.3.4) and
// scalars mod n. math/big is the oracle, on public test values only.

var (
	p256N = new(big.Int).SetBytes(p256Order)
	p256P = bigFieldP()
)

// TestWycheproofPoints runs every public key of Wycheproof's
// ecdh_secp256r1_ecpoint_test.json through Point.SetBytes. "invalid" keys
// (off the curve, on the twist, compressed x without a square root, empty)
// must be refused. "valid" keys are accepted. The "acceptable" ones are the
// compressed encodings, which SetBytes accepts since SEC 1 §2.3.4 defines
// them and the schemes' study profile uses them. For every accepted key the
// ECDH shared secret (x of private·public) must match the file, which
// exercises ScalarMult on the edge-case points.
func TestWycheproofPoints(t *testing.T) {
	var f testvec.ECDHFile
	testvec.JSON(t, "wycheproof/ecdh_secp256r1_ecpoint_test.json", &f)
	counts := map[string]int{}
	for _, g := range f.TestGroups {
		if g.Curve != "secp256r1" {
			t.Fatalf("unexpected curve %q", g.Curve)
		}
		for _, tc := range g.Tests {
			counts[tc.Result]++
			pub := mustHex(t, tc.Public)
			p, err := NewPoint().SetBytes(pub)
			switch tc.Result {
			case "invalid":
				if err == nil {
					t.Errorf("tcId %d (%s %v): invalid point accepted", tc.TcID, tc.Comment, tc.Flags)
				} else if !errors.Is(err, ErrInvalidEncoding) && !errors.Is(err, ErrIdentity) {
					t.Errorf("tcId %d: error %v wraps neither ErrInvalidEncoding nor ErrIdentity", tc.TcID, err)
				}
				continue
			case "valid", "acceptable":
				if err != nil {
					t.Errorf("tcId %d (%s %v): rejected: %v", tc.TcID, tc.Comment, tc.Flags, err)
					continue
				}
			default:
				t.Fatalf("tcId %d: unknown result %q", tc.TcID, tc.Result)
			}
			// Canonical re-encoding in the same form.
			enc := p.Bytes()
			if len(pub) == CompressedPointSize {
				enc = p.BytesCompressed()
			}
			if !bytes.Equal(enc, pub) {
				t.Errorf("tcId %d: re-encoded as %x", tc.TcID, enc)
			}
			x, err := ecdhX(t, tc.Private, p)
			if err != nil || !bytes.Equal(x, mustHex(t, tc.Shared)) {
				t.Errorf("tcId %d: shared secret %x, want %s (err %v)", tc.TcID, x, tc.Shared, err)
			}
		}
	}
	if counts["invalid"] == 0 || counts["valid"] == 0 || counts["acceptable"] == 0 {
		t.Errorf("unexpected file contents: %v", counts)
	}
}

func TestSetBytesRejects(t *testing.T) {
	g := NewGenerator()
	gu, gc := g.Bytes(), g.BytesCompressed()
	withPrefix := func(b []byte, prefix byte) []byte {
		b = bytes.Clone(b)
		b[0] = prefix
		return b
	}
	offCurve := bytes.Clone(gu)
	offCurve[64] ^= 1
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"identity", []byte{0}, ErrIdentity},
		{"empty", nil, ErrInvalidEncoding},
		{"one byte 0x04", []byte{4}, ErrInvalidEncoding},
		{"identity with trailing zeros", make([]byte, 33), ErrInvalidEncoding},
		{"uncompressed, 64 bytes", gu[:64], ErrInvalidEncoding},
		{"uncompressed, 66 bytes", append(bytes.Clone(gu), 0), ErrInvalidEncoding},
		{"compressed, 32 bytes", gc[:32], ErrInvalidEncoding},
		{"compressed, 34 bytes", append(bytes.Clone(gc), 0), ErrInvalidEncoding},
		{"x only", gu[1:33], ErrInvalidEncoding},
		{"prefix 0x05", withPrefix(gu, 5), ErrInvalidEncoding},
		{"prefix 0x06 (hybrid)", withPrefix(gu, 6+gu[64]&1), ErrInvalidEncoding},
		{"prefix 0x07 (hybrid)", withPrefix(gu, 7-gu[64]&1), ErrInvalidEncoding},
		{"prefix 0x00, 65 bytes", withPrefix(gu, 0), ErrInvalidEncoding},
		{"prefix 0x02, 65 bytes", withPrefix(gu, 2), ErrInvalidEncoding},
		{"prefix 0x04, 33 bytes", withPrefix(gc, 4), ErrInvalidEncoding},
		{"prefix 0x01, 33 bytes", withPrefix(gc, 1), ErrInvalidEncoding},
		{"off curve", offCurve, ErrInvalidEncoding},
		{"x = p", append([]byte{4}, append(p256P.Bytes(), gu[33:]...)...), ErrInvalidEncoding},
		{"compressed x = p", append([]byte{2}, p256P.Bytes()...), ErrInvalidEncoding},
		{"all ones", bytes.Repeat([]byte{0xff}, 65), ErrInvalidEncoding},
	}
	// Non-canonical coordinates: a valid point whose x (or y) plus p still
	// fits in 32 bytes, encoded with that larger value.
	xs, ys := nonCanonicalEncodings(t)
	for _, b := range xs {
		cases = append(cases, struct {
			name string
			in   []byte
			want error
		}{"x + p", b, ErrInvalidEncoding})
	}
	for _, b := range ys {
		cases = append(cases, struct {
			name string
			in   []byte
			want error
		}{"y + p", b, ErrInvalidEncoding})
	}
	for _, c := range cases {
		p, err := NewPoint().SetBytes(c.in)
		if err == nil {
			t.Errorf("%s: accepted as %x", c.name, p.Bytes())
			continue
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
}

// nonCanonicalEncodings returns encodings of valid points with a
// coordinate v replaced by v + p, which fits in 32 bytes when v < 2^256 - p
// (about 2^224). Points with a small x are found by search; points with a
// small y are taken from Wycheproof's valid keys ("y-coordinate ... is
// small", "y = 1").
func nonCanonicalEncodings(t *testing.T) (xs, ys [][]byte) {
	t.Helper()
	limit := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), p256P)
	b, _ := new(big.Int).SetString("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b", 16)
	exp := new(big.Int).Rsh(new(big.Int).Add(p256P, big.NewInt(1)), 2)
	enc := func(prefix byte, vs ...*big.Int) []byte {
		out := []byte{prefix}
		for _, v := range vs {
			out = append(out, v.FillBytes(make([]byte, 32))...)
		}
		return out
	}
	for x := int64(0); len(xs) < 6 && x < 100; x++ {
		bx := big.NewInt(x)
		gx := new(big.Int).Exp(bx, big.NewInt(3), p256P)
		gx.Sub(gx, new(big.Int).Mul(big.NewInt(3), bx)).Add(gx, b).Mod(gx, p256P)
		y := new(big.Int).Exp(gx, exp, p256P)
		if new(big.Int).Exp(y, big.NewInt(2), p256P).Cmp(gx) != 0 {
			continue
		}
		if _, err := NewPoint().SetBytes(enc(4, bx, y)); err != nil {
			t.Fatalf("oracle point (%d, %x) rejected: %v", x, y, err)
		}
		xp := new(big.Int).Add(bx, p256P)
		xs = append(xs, enc(4, xp, y), enc(byte(2+y.Bit(0)), xp))
	}
	for _, tc := range []string{
		// Wycheproof ecdh_secp256r1_ecpoint_test.json, tcId 50 and 228.
		"04000000000000000000000001ea77d449ffffffffffffffffffffffffffffffff000000007afbc0b325e820646dec622fb558a51c342aa257f4b6a8ec5ddf144f",
		"0409e78d4ef60d05f750f6636209092bc43cbdd6b47e11a9de20a9feb2a50bb96c0000000000000000000000000000000000000000000000000000000000000001",
	} {
		pub := mustHex(t, tc)
		if _, err := NewPoint().SetBytes(pub); err != nil {
			t.Fatalf("valid Wycheproof point rejected: %v", err)
		}
		y := new(big.Int).SetBytes(pub[33:])
		if y.Cmp(limit) >= 0 {
			continue
		}
		ys = append(ys, enc(4, new(big.Int).SetBytes(pub[1:33]), y.Add(y, p256P)))
	}
	if len(xs) == 0 || len(ys) == 0 {
		t.Fatalf("found %d x and %d y cases", len(xs), len(ys))
	}
	return xs, ys
}

func TestPointRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for i, s := range p256TestScalars(t, r, 30) {
		p := NewPoint().ScalarBaseMult(s)
		if s.IsZero() == 1 {
			if p.IsIdentity() != 1 || !bytes.Equal(p.Bytes(), []byte{0}) || !bytes.Equal(p.BytesCompressed(), []byte{0}) {
				t.Fatal("0·G is not the identity or is not encoded as 0x00")
			}
			if _, err := p.BytesX(); !errors.Is(err, ErrIdentity) {
				t.Fatal("BytesX of the identity did not fail")
			}
			continue
		}
		for _, enc := range [][]byte{p.Bytes(), p.BytesCompressed()} {
			q, err := NewPoint().SetBytes(enc)
			if err != nil {
				t.Fatalf("%d: %v", i, err)
			}
			if q.Equal(p) != 1 {
				t.Fatalf("%d: round trip changed the point", i)
			}
		}
		if len(p.Bytes()) != UncompressedPointSize || len(p.BytesCompressed()) != CompressedPointSize {
			t.Fatal("encoding lengths")
		}
		x, _ := p.BytesX()
		if !bytes.Equal(x, p.Bytes()[1:33]) {
			t.Fatal("BytesX differs from the encoding's x")
		}
		// -P has the same x and the other parity.
		n := NewPoint().Negate(p)
		if NewPoint().Add(p, n).IsIdentity() != 1 || n.BytesCompressed()[0] == p.BytesCompressed()[0] {
			t.Fatal("Negate")
		}
		if NewPoint().Set(p).Equal(p) != 1 {
			t.Fatal("Set")
		}
	}
}

func toScalar(t *testing.T, v *big.Int) *Scalar {
	t.Helper()
	s, err := NewScalar().SetCanonicalBytes(v.FillBytes(make([]byte, 32)))
	if err != nil {
		t.Fatalf("SetCanonicalBytes(%x): %v", v, err)
	}
	return s
}

func TestScalarCanonical(t *testing.T) {
	one := big.NewInt(1)
	for _, v := range []*big.Int{
		p256N, new(big.Int).Add(p256N, one),
		new(big.Int).Sub(new(big.Int).Lsh(one, 256), one),
	} {
		if _, err := NewScalar().SetCanonicalBytes(v.FillBytes(make([]byte, 32))); !errors.Is(err, ErrInvalidScalar) {
			t.Errorf("%x: err = %v, want ErrInvalidScalar", v, err)
		}
	}
	for _, n := range []int{0, 1, 31, 33, 48, 64} {
		if _, err := NewScalar().SetCanonicalBytes(make([]byte, n)); !errors.Is(err, ErrInvalidScalar) {
			t.Errorf("%d bytes: err = %v, want ErrInvalidScalar", n, err)
		}
	}
	nm1 := new(big.Int).Sub(p256N, one)
	if !bytes.Equal(toScalar(t, nm1).Bytes(), nm1.Bytes()) {
		t.Error("n-1 round trip")
	}
}

func TestScalarReducedBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for n := 0; n <= 100; n++ {
		for trial := 0; trial < 8; trial++ {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(r.Uint32())
				if trial == 0 {
					b[i] = 0xff
				}
			}
			got := NewScalar().SetReducedBytes(b).Bytes()
			want := new(big.Int).Mod(new(big.Int).SetBytes(b), p256N)
			if !bytes.Equal(got, want.FillBytes(make([]byte, 32))) {
				t.Fatalf("len %d: %x mod n = %x, want %x", n, b, got, want)
			}
		}
	}
}

func TestScalarArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	mod := func(v *big.Int) []byte { return v.Mod(v, p256N).FillBytes(make([]byte, 32)) }
	vals := []*big.Int{big.NewInt(0), big.NewInt(1), new(big.Int).Sub(p256N, big.NewInt(1))}
	for len(vals) < 60 {
		b := make([]byte, 32)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		vals = append(vals, new(big.Int).Mod(new(big.Int).SetBytes(b), p256N))
	}
	for i, xb := range vals {
		yb := vals[(i*13+5)%len(vals)]
		x, y := toScalar(t, xb), toScalar(t, yb)
		check := func(op string, got *Scalar, want []byte) {
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("%s(%x, %x) = %x, want %x", op, xb, yb, got.Bytes(), want)
			}
		}
		check("Add", NewScalar().Add(x, y), mod(new(big.Int).Add(xb, yb)))
		check("Sub", NewScalar().Sub(x, y), mod(new(big.Int).Sub(xb, yb)))
		check("Mul", NewScalar().Mul(x, y), mod(new(big.Int).Mul(xb, yb)))
		check("Negate", NewScalar().Negate(x), mod(new(big.Int).Neg(xb)))
		wantInv := make([]byte, 32) // inv0: the inverse of 0 is 0
		if xb.Sign() != 0 {
			wantInv = mod(new(big.Int).ModInverse(xb, p256N))
		}
		check("Invert", NewScalar().Invert(x), wantInv)
		check("Set", NewScalar().Set(x), mod(new(big.Int).Set(xb)))
		// Aliasing and independence of the result from later changes.
		z := NewScalar().Set(x)
		z.Add(z, z)
		check("Add aliased", z, mod(new(big.Int).Add(xb, xb)))
		check("Set copy", x, mod(new(big.Int).Set(xb)))
		if got, want := x.Equal(y), xb.Cmp(yb) == 0; (got == 1) != want {
			t.Fatalf("Equal(%x, %x) = %d", xb, yb, got)
		}
		if got, want := x.IsZero(), xb.Sign() == 0; (got == 1) != want {
			t.Fatalf("IsZero(%x) = %d", xb, got)
		}
	}
	// Scalar arithmetic agrees with the group: (x+y)·G = x·G + y·G.
	x, y := toScalar(t, vals[5]), toScalar(t, vals[6])
	lhs := NewPoint().ScalarBaseMult(NewScalar().Add(x, y))
	rhs := NewPoint().Add(NewPoint().ScalarBaseMult(x), NewPoint().ScalarMult(y, NewGenerator()))
	if lhs.Equal(rhs) != 1 {
		t.Error("(x+y)·G != x·G + y·G")
	}
}

type p256FailingReader struct{}

func (p256FailingReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

func TestRandomScalarReplay(t *testing.T) {
	x := mustHex(t, "0612465c89a023ab17855b0a6bcebfd3febb53aef84138647b5352e02c10c346")
	in := append(make([]byte, 16), x...)
	s, err := RandomScalar(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(s.Bytes(), x) {
		t.Errorf("replayed scalar = %x, want %x", s.Bytes(), x)
	}
	// A zero draw is retried: 48 zero bytes, then the replay of x.
	s, err = RandomScalar(bytes.NewReader(append(make([]byte, 48), in...)))
	if err != nil || !bytes.Equal(s.Bytes(), x) {
		t.Errorf("after a zero draw: %x, %v", s.Bytes(), err)
	}
	if _, err := RandomScalar(p256FailingReader{}); err == nil {
		t.Error("failing reader: no error")
	}
	if _, err := RandomScalar(bytes.NewReader(make([]byte, 47))); err == nil {
		t.Error("short reader: no error")
	}
}

func FuzzPointSetBytes(f *testing.F) {
	g := NewGenerator()
	f.Add(g.Bytes())
	f.Add(g.BytesCompressed())
	f.Add([]byte{0})
	f.Add([]byte{})
	f.Add(append([]byte{2}, p256P.Bytes()...))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := NewPoint().SetBytes(b)
		if err != nil {
			if !errors.Is(err, ErrInvalidEncoding) && !errors.Is(err, ErrIdentity) {
				t.Fatalf("unexpected error type: %v", err)
			}
			return
		}
		if p.IsIdentity() == 1 {
			t.Fatal("identity accepted")
		}
		enc := p.Bytes()
		if len(b) == CompressedPointSize {
			enc = p.BytesCompressed()
		}
		if !bytes.Equal(enc, b) {
			t.Fatalf("accepted %x, re-encodes as %x", b, enc)
		}
	})
}

func FuzzScalarSetCanonicalBytes(f *testing.F) {
	f.Add(p256Order)
	f.Add(make([]byte, 32))
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := NewScalar().SetCanonicalBytes(b)
		canonical := len(b) == ScalarSize && new(big.Int).SetBytes(b).Cmp(p256N) < 0
		if canonical != (err == nil) {
			t.Fatalf("%x: err = %v", b, err)
		}
		if err == nil && !bytes.Equal(s.Bytes(), b) {
			t.Fatalf("%x re-encodes as %x", b, s.Bytes())
		}
		// Any length reduces without panicking, to a canonical scalar.
		r := NewScalar().SetReducedBytes(b).Bytes()
		if want := new(big.Int).Mod(new(big.Int).SetBytes(b), p256N); !bytes.Equal(r, want.FillBytes(make([]byte, 32))) {
			t.Fatalf("SetReducedBytes(%x) = %x", b, r)
		}
	})
}

func BenchmarkScalarBaseMult(b *testing.B) {
	s := NewScalar().SetReducedBytes(bytes.Repeat([]byte{0xa5}, 48))
	p := NewPoint()
	for b.Loop() {
		p.ScalarBaseMult(s)
	}
}

func BenchmarkScalarMult(b *testing.B) {
	s := NewScalar().SetReducedBytes(bytes.Repeat([]byte{0xa5}, 48))
	q := NewPoint().ScalarBaseMult(s)
	p := NewPoint()
	for b.Loop() {
		p.ScalarMult(s, q)
	}
}

func BenchmarkSetBytesCompressed(b *testing.B) {
	enc := NewPoint().ScalarBaseMult(NewScalar().SetReducedBytes([]byte{7})).BytesCompressed()
	for b.Loop() {
		if _, err := NewPoint().SetBytes(enc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSetBytesUncompressed(b *testing.B) {
	enc := NewPoint().ScalarBaseMult(NewScalar().SetReducedBytes([]byte{7})).Bytes()
	for b.Loop() {
		if _, err := NewPoint().SetBytes(enc); err != nil {
			b.Fatal(err)
		}
	}
}
