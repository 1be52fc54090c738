package group

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/internal/kat"
	"github.com/kexlab/kexlab/internal/p256field"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/testvec"
)

// sharedH2C is the shape of the shared RFC 9380 suite vector files
// (hash-to-curve/P256_XMD-SHA-256_SSWU_{RO,NU}_.json).
type sharedH2C struct {
	Ciphersuite string `json:"ciphersuite"`
	DST         string `json:"dst"`
	Vectors     []struct {
		Msg string    `json:"msg"`
		P   h2cPoint  `json:"P"`
		Q0  *h2cPoint `json:"Q0"`
		Q1  *h2cPoint `json:"Q1"`
		Q   *h2cPoint `json:"Q"`
		U   []string  `json:"u"`
	} `json:"vectors"`
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func trimPoint(p *h2cPoint) *h2cPoint {
	return &h2cPoint{X: strings.TrimPrefix(p.X, "0x"), Y: strings.TrimPrefix(p.Y, "0x")}
}

func TestHashToCurveSharedVectors(t *testing.T) {
	for _, c := range []struct {
		file string
		ro   bool
	}{
		{"hash-to-curve/P256_XMD-SHA-256_SSWU_RO_.json", true},
		{"hash-to-curve/P256_XMD-SHA-256_SSWU_NU_.json", false},
	} {
		var v sharedH2C
		testvec.JSON(t, c.file, &v)
		if len(v.Vectors) == 0 {
			t.Fatalf("%s: no vectors", c.file)
		}
		dst := []byte(v.DST)
		for _, tv := range v.Vectors {
			msg := []byte(tv.Msg)
			want := []*h2cPoint{tv.Q}
			if c.ro {
				want = []*h2cPoint{tv.Q0, tv.Q1}
			}
			if len(tv.U) != len(want) {
				t.Fatalf("%s: %d u values", c.file, len(tv.U))
			}
			u, err := hashToField(msg, dst, len(tv.U))
			if err != nil {
				t.Fatal(err)
			}
			for i := range u {
				if got := u[i].Bytes(); !bytes.Equal(got, mustHex(t, tv.U[i])) {
					t.Errorf("%s %q: u[%d] = %x, want %s", v.Ciphersuite, tv.Msg, i, got, tv.U[i])
				}
				q, err := mapToCurve(&u[i])
				if err != nil {
					t.Fatal(err)
				}
				if err := checkPoint("Q", q, trimPoint(want[i])); err != nil {
					t.Errorf("%s %q: map_to_curve(u[%d]): %v", v.Ciphersuite, tv.Msg, i, err)
				}
			}
			hash := EncodeToCurve
			if c.ro {
				hash = HashToCurve
			}
			p, err := hash(msg, dst)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkPoint("P", p, trimPoint(&tv.P)); err != nil {
				t.Errorf("%s %q: %v", v.Ciphersuite, tv.Msg, err)
			}
		}
	}
}

func TestExpandMessageXMDSharedVectors(t *testing.T) {
	var v struct {
		DST   string `json:"DST"`
		Tests []struct {
			DSTPrime     string `json:"DST_prime"`
			LenInBytes   string `json:"len_in_bytes"`
			Msg          string `json:"msg"`
			UniformBytes string `json:"uniform_bytes"`
		} `json:"tests"`
	}
	testvec.JSON(t, "hash-to-curve/expand_message_xmd_SHA256_38.json", &v)
	if len(v.Tests) == 0 {
		t.Fatal("no vectors")
	}
	for _, tv := range v.Tests {
		n, err := strconv.ParseInt(tv.LenInBytes, 0, 32)
		if err != nil {
			t.Fatal(err)
		}
		// DST_prime = DST || I2OSP(len(DST), 1): a check on the file.
		if want := append([]byte(v.DST), byte(len(v.DST))); !bytes.Equal(mustHex(t, tv.DSTPrime), want) {
			t.Fatalf("DST_prime in the vector file is not DST || len(DST)")
		}
		got, err := ExpandMessageXMD([]byte(tv.Msg), []byte(v.DST), int(n))
		if err != nil {
			t.Fatal(err)
		}
		if want := mustHex(t, tv.UniformBytes); !bytes.Equal(got, want) {
			t.Errorf("msg %.20q len %d: got %x, want %x", tv.Msg, n, got, want)
		}
	}
}

func TestExpandMessageXMDLongDST(t *testing.T) {
	var ev expandVectors
	if err := json.Unmarshal(rfc9380LongDSTJSON, &ev); err != nil {
		t.Fatal(err)
	}
	if len(ev.DST) <= 255 || len(ev.Tests) == 0 {
		t.Fatalf("testdata: DST of %d bytes, %d tests", len(ev.DST), len(ev.Tests))
	}
	for _, tv := range ev.Tests {
		got, err := ExpandMessageXMD([]byte(tv.Msg), []byte(ev.DST), tv.LenInBytes)
		if err != nil {
			t.Fatal(err)
		}
		if want := mustHex(t, tv.UniformBytes); !bytes.Equal(got, want) {
			t.Errorf("msg %q len %d: got %x, want %x", tv.Msg, tv.LenInBytes, got, want)
		}
		// §5.3.3: an oversize DST behaves as its hash.
		h := sha256.Sum256(append([]byte("H2C-OVERSIZE-DST-"), ev.DST...))
		short, err := ExpandMessageXMD([]byte(tv.Msg), h[:], tv.LenInBytes)
		if err != nil || !bytes.Equal(short, got) {
			t.Errorf("long DST differs from its hashed form")
		}
	}
}

func TestExpandMessageXMDLimits(t *testing.T) {
	dst := []byte("QUUX-V01-CS02-with-expander-SHA256-128")
	for _, n := range []int{-1, 255*32 + 1, 65535, 65536, 1 << 40} {
		if _, err := ExpandMessageXMD(nil, dst, n); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("n = %d: err = %v, want ErrInvalidParameter", n, err)
		}
	}
	for _, n := range []int{0, 1, 31, 32, 33, 255 * 32} {
		out, err := ExpandMessageXMD([]byte("msg"), dst, n)
		if err != nil || len(out) != n {
			t.Errorf("n = %d: %d bytes, err %v", n, len(out), err)
		}
	}
	// Prefixes agree only when the requested length is the same (the
	// length is hashed into b_0).
	a, _ := ExpandMessageXMD([]byte("msg"), dst, 64)
	b, _ := ExpandMessageXMD([]byte("msg"), dst, 32)
	if bytes.Equal(a[:32], b) {
		t.Error("len_in_bytes is not bound into the output")
	}
	if _, err := ExpandMessageXMD(nil, nil, 32); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("empty DST: err = %v", err)
	}
	for _, f := range []func([]byte, []byte) (*Point, error){HashToCurve, EncodeToCurve} {
		if _, err := f([]byte("msg"), nil); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("empty DST accepted: %v", err)
		}
	}
	// The caller's DST is not modified (DST_prime is built in a copy).
	d := make([]byte, 10, 20)
	copy(d, "0123456789")
	ExpandMessageXMD(nil, d, 32)
	if got := d[:11]; got[10] != 0 {
		t.Error("ExpandMessageXMD wrote into the DST's spare capacity")
	}
}

// TestSSWUExceptionalCase checks the inputs where Z^2·u^4 + Z·u^2 = 0: u = 0
// and u = ±sqrt(-1/Z) (a square for P-256, since -1 and Z are both
// non-squares). There the map must take x1 = B/(Z·A) (§6.6.2, step 3; CMOV
// in step 7 of F.2) and y with sgn0(y) = sgn0(u). The expected point is
// computed from that formula with math/big.
func TestSSWUExceptionalCase(t *testing.T) {
	p := bigFieldP()
	a := big.NewInt(-3)
	bb, _ := new(big.Int).SetString("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b", 16)
	z := big.NewInt(-10)
	x := new(big.Int).Mul(z, a)
	x.ModInverse(x.Mod(x, p), p).Mul(x, bb).Mod(x, p)
	gx := new(big.Int).Exp(x, big.NewInt(3), p)
	gx.Add(gx, new(big.Int).Mul(a, x)).Add(gx, bb).Mod(gx, p)
	y := new(big.Int).Exp(gx, new(big.Int).Rsh(new(big.Int).Add(p, big.NewInt(1)), 2), p)
	if new(big.Int).Exp(y, big.NewInt(2), p).Cmp(gx) != 0 {
		t.Fatal("g(B/(Z·A)) is not square: wrong constants in the test")
	}

	// u^2 = -1/Z = 1/10.
	u := new(big.Int).ModInverse(big.NewInt(10), p)
	u.Exp(u, new(big.Int).Rsh(new(big.Int).Add(p, big.NewInt(1)), 2), p)
	for _, ub := range []*big.Int{big.NewInt(0), u, new(big.Int).Sub(p, u)} {
		var ue p256field.Element
		if _, err := ue.SetBytes(ub.FillBytes(make([]byte, 32))); err != nil {
			t.Fatal(err)
		}
		wantY := new(big.Int).Set(y)
		if wantY.Bit(0) != ub.Bit(0) {
			wantY.Sub(p, wantY)
		}
		q, err := mapToCurve(&ue)
		if err != nil {
			t.Fatal(err)
		}
		enc := q.Bytes()
		if !bytes.Equal(enc[1:33], x.FillBytes(make([]byte, 32))) || !bytes.Equal(enc[33:], wantY.FillBytes(make([]byte, 32))) {
			t.Errorf("map_to_curve(%x) = %x, want x=%x y=%x", ub, enc, x, wantY)
		}
	}
}

func bigFieldP() *big.Int {
	p, _ := new(big.Int).SetString("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff", 16)
	return p
}

// TestSSWUConstants checks c2 of sqrt_ratio: c2^2 = -Z = 10.
func TestSSWUConstants(t *testing.T) {
	var c2sq, ten p256field.Element
	c2sq.Square(sswuC2)
	ten.SetWideBytes([]byte{10})
	if c2sq.Equal(&ten) != 1 {
		t.Error("sswuC2^2 != 10")
	}
	var sum, zero p256field.Element
	if sum.Add(sswuZ, &ten).Equal(&zero) != 1 {
		t.Error("Z != -10")
	}
	var three p256field.Element
	three.SetWideBytes([]byte{3})
	if sum.Add(sswuA, &three).Equal(&zero) != 1 {
		t.Error("A != -3")
	}
}

func TestEmbeddedVectorsMatchShared(t *testing.T) {
	var hv h2cVectors
	if err := json.Unmarshal(rfc9380P256JSON, &hv); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"P256_XMD:SHA-256_SSWU_RO_": "hash-to-curve/P256_XMD-SHA-256_SSWU_RO_.json",
		"P256_XMD:SHA-256_SSWU_NU_": "hash-to-curve/P256_XMD-SHA-256_SSWU_NU_.json",
	}
	norm := func(p *h2cPoint) string {
		if p == nil {
			return ""
		}
		return strings.TrimPrefix(p.X, "0x") + "," + strings.TrimPrefix(p.Y, "0x")
	}
	if len(hv.Suites) != 2 {
		t.Fatalf("%d suites embedded", len(hv.Suites))
	}
	for _, s := range hv.Suites {
		var shared sharedH2C
		testvec.JSON(t, files[s.Suite], &shared)
		if shared.DST != s.DST || shared.Ciphersuite != s.Suite {
			t.Errorf("%s: DST %q, shared %q", s.Suite, s.DST, shared.DST)
		}
		if len(s.Vectors) == 0 {
			t.Errorf("%s: no embedded vectors", s.Suite)
		}
		for _, v := range s.Vectors {
			found := false
			for _, w := range shared.Vectors {
				if w.Msg != v.Msg {
					continue
				}
				found = true
				for i := range w.U {
					w.U[i] = strings.TrimPrefix(w.U[i], "0x")
				}
				if norm(&v.P) != norm(&w.P) || norm(v.Q0) != norm(w.Q0) || norm(v.Q1) != norm(w.Q1) ||
					norm(v.Q) != norm(w.Q) || strings.Join(v.U, ",") != strings.Join(w.U, ",") {
					t.Errorf("%s %q: embedded vector differs from the shared file", s.Suite, v.Msg)
				}
			}
			if !found {
				t.Errorf("%s %q: not in the shared file", s.Suite, v.Msg)
			}
		}
	}
}

func TestKnownAnswerTests(t *testing.T) {
	tests := KnownAnswerTests()
	if len(tests) < 10 {
		t.Fatalf("only %d known-answer tests", len(tests))
	}
	r := kat.RunAll(tests)
	for _, err := range r.Failures {
		t.Error(err)
	}
	// A corrupted vector must fail: flip a bit of the expected P.
	saved := bytes.Clone(rfc9380P256JSON)
	defer func() { rfc9380P256JSON = saved }()
	rfc9380P256JSON = bytes.Replace(rfc9380P256JSON, []byte("2c15230b"), []byte("2c15230c"), 1)
	if r := kat.RunAll(KnownAnswerTests()); r.Failed != 1 {
		t.Errorf("corrupted vector: %d failures, want 1", r.Failed)
	}
}

// TestHashToCurveOnCurve maps many messages and checks that the points are
// valid (nistec's SetBytes checks the curve equation) and that RO is the sum
// of the two maps.
func TestHashToCurveOnCurve(t *testing.T) {
	dst := []byte("kexlab-test-dst")
	for i := 0; i < 300; i++ {
		msg := []byte(strconv.Itoa(i))
		p, err := HashToCurve(msg, dst)
		if err != nil {
			t.Fatal(err)
		}
		u, _ := hashToField(msg, dst, 2)
		q0, err0 := mapToCurve(&u[0])
		q1, err1 := mapToCurve(&u[1])
		if err0 != nil || err1 != nil {
			t.Fatal(err0, err1)
		}
		if p.Equal(NewPoint().Add(q0, q1)) != 1 {
			t.Fatalf("msg %d: HashToCurve != map(u0) + map(u1)", i)
		}
		if _, err := NewPoint().SetBytes(p.Bytes()); err != nil {
			t.Fatalf("msg %d: %v", i, err)
		}
		// sgn0(y) == sgn0(u) (§6.6.2).
		enc := q0.Bytes()
		if int(enc[64]&1) != u[0].IsOdd() {
			t.Fatalf("msg %d: sign of y does not follow u", i)
		}
	}
}

func FuzzHashToCurve(f *testing.F) {
	f.Add([]byte(""), []byte("QUUX-V01-CS02-with-P256_XMD:SHA-256_SSWU_RO_"))
	f.Add([]byte("abc"), []byte("x"))
	f.Add(bytes.Repeat([]byte{0xff}, 300), bytes.Repeat([]byte{1}, 300))
	f.Fuzz(func(t *testing.T, msg, dst []byte) {
		for _, hash := range []func([]byte, []byte) (*Point, error){HashToCurve, EncodeToCurve} {
			p, err := hash(msg, dst)
			if len(dst) == 0 {
				if err == nil {
					t.Fatal("empty DST accepted")
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := NewPoint().SetBytes(p.Bytes()); err != nil {
				t.Fatalf("output not a valid point: %v", err)
			}
		}
	})
}

func FuzzExpandMessageXMD(f *testing.F) {
	f.Add([]byte("abc"), []byte("DST"), 32)
	f.Add([]byte(""), bytes.Repeat([]byte("D"), 256), 8160)
	f.Fuzz(func(t *testing.T, msg, dst []byte, n int) {
		out, err := ExpandMessageXMD(msg, dst, n)
		ok := len(dst) > 0 && n >= 0 && n <= 255*32
		if ok != (err == nil) {
			t.Fatalf("n = %d, len(dst) = %d: err = %v", n, len(dst), err)
		}
		if err == nil && len(out) != n {
			t.Fatalf("got %d bytes, want %d", len(out), n)
		}
	})
}

var benchDST = []byte("QUUX-V01-CS02-with-P256_XMD:SHA-256_SSWU_RO_")

func BenchmarkHashToCurve(b *testing.B) {
	msg := []byte("password-derived input of some length")
	for b.Loop() {
		if _, err := HashToCurve(msg, benchDST); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeToCurve(b *testing.B) {
	msg := []byte("password-derived input of some length")
	for b.Loop() {
		if _, err := EncodeToCurve(msg, benchDST); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExpandMessageXMD(b *testing.B) {
	msg := []byte("password-derived input of some length")
	for b.Loop() {
		if _, err := ExpandMessageXMD(msg, benchDST, 2*h2cL); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSqrtRatio checks sqrt_ratio (Appendix F.2.1.2) on random inputs
// against Euler's criterion in math/big, and its extra output 1/(u·v^3).
func TestSqrtRatio(t *testing.T) {
	p := bigFieldP()
	r := rand.New(rand.NewPCG(21, 22))
	elem := func(v *big.Int) *p256field.Element {
		e, err := new(p256field.Element).SetBytes(v.FillBytes(make([]byte, 32)))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	toBig := func(e *p256field.Element) *big.Int { return new(big.Int).SetBytes(e.Bytes()) }
	legendre := new(big.Int).Rsh(new(big.Int).Sub(p, big.NewInt(1)), 1)
	seen := map[int]int{}
	for i := 0; i < 200; i++ {
		ub, vb := randBelow(r, p), randBelow(r, p)
		if vb.Sign() == 0 {
			continue
		}
		if i == 0 {
			ub.SetInt64(0)
		}
		isQR, y, inv := sqrtRatio(elem(ub), elem(vb))
		seen[isQR]++
		ratio := new(big.Int).Mul(ub, new(big.Int).ModInverse(vb, p))
		ratio.Mod(ratio, p)
		square := new(big.Int).Exp(ratio, legendre, p).Cmp(big.NewInt(1)) <= 0 // 0 or 1
		if square != (isQR == 1) {
			t.Fatalf("u=%x v=%x: isQR = %d", ub, vb, isQR)
		}
		want := ratio
		if !square {
			want = new(big.Int).Mul(ratio, big.NewInt(-10))
		}
		y2 := new(big.Int).Exp(toBig(&y), big.NewInt(2), p)
		if y2.Cmp(want.Mod(want, p)) != 0 {
			t.Fatalf("u=%x v=%x: y^2 != (Z·)u/v", ub, vb)
		}
		uv3 := new(big.Int).Mul(ub, new(big.Int).Exp(vb, big.NewInt(3), p))
		wantInv := new(big.Int).ModInverse(uv3.Mod(uv3, p), p)
		if wantInv == nil {
			wantInv = new(big.Int)
		}
		if toBig(&inv).Cmp(wantInv) != 0 {
			t.Fatalf("u=%x v=%x: inv = %x, want %x", ub, vb, toBig(&inv), wantInv)
		}
	}
	if seen[0] == 0 || seen[1] == 0 {
		t.Errorf("only one branch exercised: %v", seen)
	}
}

// randBelow returns a pseudorandom value below m (test values only).
func randBelow(r *rand.Rand, m *big.Int) *big.Int {
	b := make([]byte, 40)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return new(big.Int).Mod(new(big.Int).SetBytes(b), m)
}
