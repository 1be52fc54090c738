package cpace

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/kat"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/testvec"
)

func readTestdata(t testing.TB, name string, v any) {
	t.Helper()
	if err := loadJSON(name, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func runKATs(t *testing.T, tests []kat.Test) {
	t.Helper()
	if len(tests) == 0 {
		t.Fatal("no tests")
	}
	for _, k := range tests {
		t.Run(k.Name, func(t *testing.T) {
			if err := k.Run(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestKnownAnswers runs the compiled-in vectors (Appendix B.5).
func TestKnownAnswers(t *testing.T) { runKATs(t, KnownAnswerTests()) }

// TestSharedVectors runs the same checks on the draft repository's
// testvectors.json, read from the shared vector folder.
func TestSharedVectors(t *testing.T) {
	var f p256File
	testvec.JSON(t, "cpace/testvectors.json", &f)
	runKATs(t, vectorTests(f.Protocol, f.Points))
}

// TestKATsDetectMismatch: each value check fails when its expected value
// is wrong, so a passing run means the values were compared.
func TestKATsDetectMismatch(t *testing.T) {
	var f p256File
	readTestdata(t, "testdata/p256.json", &f)
	for _, field := range []*hexBytes{&f.Protocol.Ya, &f.Protocol.Yb, &f.Protocol.K, &f.Protocol.ISKIR,
		&f.Protocol.ISKSY, &f.Protocol.SIDOutputIR, &f.Protocol.SIDOutputOC} {
		good := bytes.Clone(*field)
		(*field)[len(*field)-1] ^= 1
		failed := 0
		for _, k := range vectorTests(f.Protocol, f.Points) {
			if k.Run() != nil {
				failed++
			}
		}
		// The generator does not depend on these values; the others
		// must notice.
		if failed == 0 {
			t.Errorf("corrupting %x went unnoticed", good)
		}
		*field = good
	}
	f.Points.Valid[validVfy][0] ^= 1
	for _, k := range vectorTests(f.Protocol, f.Points) {
		if strings.Contains(k.Name, "B.5.10") && k.Run() == nil {
			t.Error("corrupted scalar_mult_vfy value went unnoticed")
		}
	}
}

// TestEmbeddedMatchesShared checks that testdata/p256.json, transcribed from
// the draft text, holds exactly the G_NistP256 and G_NistP256_points entries
// of the shared testvectors.json.
func TestEmbeddedMatchesShared(t *testing.T) {
	var shared, embedded map[string]any
	if err := json.Unmarshal(testvec.Read(t, "cpace/testvectors.json"), &shared); err != nil {
		t.Fatal(err)
	}
	readTestdata(t, "testdata/p256.json", &embedded)
	for _, key := range []string{"G_NistP256", "G_NistP256_points"} {
		if shared[key] == nil || !reflect.DeepEqual(shared[key], embedded[key]) {
			t.Errorf("%s: embedded copy differs from the shared file\nembedded %v\nshared   %v", key, embedded[key], shared[key])
		}
	}
}

// TestStringUtilities checks prepend_len, lv_cat, the lexicographical order,
// o_cat, transcript_ir and transcript_oc against Appendix A.
func TestStringUtilities(t *testing.T) {
	var v struct {
		PrependLen []struct{ In, Out hexBytes } `json:"prepend_len"`
		LVCat      []struct {
			In  []hexBytes
			Out hexBytes
		} `json:"lv_cat"`
		Larger []struct {
			A, B   hexBytes
			Larger bool
		} `json:"lexiographically_larger"`
		OCat []struct{ A, B, Out hexBytes } `json:"o_cat"`
		IR   []struct {
			Ya, ADa, Yb, ADb, Out hexBytes
		} `json:"transcript_ir"`
		OC []struct {
			Ya, ADa, Yb, ADb, Out hexBytes
		} `json:"transcript_oc"`
	}
	readTestdata(t, "testdata/appendix.json", &v)
	if len(v.PrependLen) != 4 || len(v.LVCat) != 1 || len(v.Larger) != 6 || len(v.OCat) != 2 || len(v.IR) != 2 || len(v.OC) != 2 {
		t.Fatalf("testdata/appendix.json: unexpected number of vectors: %+v", v)
	}
	for _, c := range v.PrependLen {
		if got := prependLen(c.In); !bytes.Equal(got, c.Out) {
			t.Errorf("prepend_len(%x) = %x, want %x", c.In, got, c.Out)
		}
	}
	for _, c := range v.LVCat {
		args := make([][]byte, len(c.In))
		for i := range c.In {
			args[i] = c.In[i]
		}
		if got := LVCat(args...); !bytes.Equal(got, c.Out) {
			t.Errorf("lv_cat(%x) = %x, want %x", args, got, c.Out)
		}
	}
	for _, c := range v.Larger {
		if got := lexicographicallyLarger(c.A, c.B); got != c.Larger {
			t.Errorf("lexiographically_larger(%x, %x) = %v, want %v", c.A, c.B, got, c.Larger)
		}
	}
	for _, c := range v.OCat {
		if got := oCat(c.A, c.B); !bytes.Equal(got, c.Out) {
			t.Errorf("o_cat(%x, %x) = %x, want %x", c.A, c.B, got, c.Out)
		}
	}
	for _, c := range v.IR {
		if got := transcriptIR(c.Ya, c.ADa, c.Yb, c.ADb); !bytes.Equal(got, c.Out) {
			t.Errorf("transcript_ir = %x, want %x", got, c.Out)
		}
	}
	for _, c := range v.OC {
		if got := transcriptOC(c.Ya, c.ADa, c.Yb, c.ADb); !bytes.Equal(got, c.Out) {
			t.Errorf("transcript_oc = %x, want %x", got, c.Out)
		}
		// Ordered concatenation does not depend on who is "a".
		if got := transcriptOC(c.Yb, c.ADb, c.Ya, c.ADa); !bytes.Equal(got, c.Out) {
			t.Errorf("transcript_oc with the parties swapped = %x, want %x", got, c.Out)
		}
	}
}

// TestLEB128 checks lengths beyond the appendix vectors against the LEB128
// definition (§6.3): 7 bits per byte, least significant first.
func TestLEB128(t *testing.T) {
	for _, c := range []struct {
		n    int
		want []byte
	}{
		{0, []byte{0x00}}, {127, []byte{0x7f}}, {128, []byte{0x80, 0x01}},
		{300, []byte{0xac, 0x02}}, {16383, []byte{0xff, 0x7f}},
		{16384, []byte{0x80, 0x80, 0x01}}, {624485, []byte{0xe5, 0x8e, 0x26}},
	} {
		if got := appendLEB128(nil, c.n); !bytes.Equal(got, c.want) {
			t.Errorf("LEB128(%d) = %x, want %x", c.n, got, c.want)
		}
		if got := lenPrefixSize(c.n); got != len(c.want) {
			t.Errorf("lenPrefixSize(%d) = %d, want %d", c.n, got, len(c.want))
		}
	}
}

// TestGeneratorStringPadding checks §8.1's padding rule: DSI, PRS and the
// zero padding fill the first 64-byte block (with the padding's length
// byte) until PRS alone is too long, after which there is no padding.
func TestGeneratorStringPadding(t *testing.T) {
	for n := 0; n <= 200; n++ {
		prs := bytes.Repeat([]byte{0xa5}, n)
		gs := generatorString([]byte(DSI), prs, nil, nil, hashBlockSize)
		head := len(prependLen([]byte(DSI))) + len(prependLen(prs))
		zpad := max(0, hashBlockSize-1-head)
		if len(gs) != head+1+zpad+2 {
			t.Fatalf("len(PRS)=%d: generator string of %d bytes, want %d", n, len(gs), head+1+zpad+2)
		}
		if !bytes.Equal(gs, LVCat([]byte(DSI), prs, make([]byte, zpad), nil, nil)) {
			t.Fatalf("len(PRS)=%d: generator string %x", n, gs)
		}
	}
}

func inputs(prs string) Inputs {
	return Inputs{PRS: []byte(prs), CI: []byte("ci"), SID: []byte("sid"), AD: []byte("ad")}
}

// exchange runs A (initiator or symmetric) against B and returns both.
func exchange(t *testing.T, a, b *Party) {
	t.Helper()
	ma, err := a.Next(nil)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := b.Next(ma)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := a.Next(mb); err != nil || out != nil {
		t.Fatalf("A's last Next = %x, %v", out, err)
	}
	if !a.Done() || !b.Done() {
		t.Fatal("parties not done")
	}
}

func keys(t *testing.T, a, b *Party) (ka, kb []byte) {
	t.Helper()
	ka, err := a.SessionKey()
	if err != nil {
		t.Fatal(err)
	}
	kb, err = b.SessionKey()
	if err != nil {
		t.Fatal(err)
	}
	return ka, kb
}

func mustParty(t testing.TB, newP constructor, in Inputs) *Party {
	t.Helper()
	p, err := newP(rand.Reader, in)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHonestRun(t *testing.T) {
	a := mustParty(t, NewInitiator, inputs("pw"))
	bIn := inputs("pw")
	bIn.AD = []byte("other ad")
	b := mustParty(t, NewResponder, bIn)
	exchange(t, a, b)
	ka, kb := keys(t, a, b)
	if !bytes.Equal(ka, kb) || len(ka) != KeySize {
		t.Fatalf("keys differ or wrong size: %x %x", ka, kb)
	}
	sa, _ := a.SIDOutput()
	sb, _ := b.SIDOutput()
	if !bytes.Equal(sa, sb) || bytes.Equal(sa, ka) {
		t.Errorf("sid_output: %x %x", sa, sb)
	}
	if ad, _ := a.PeerAD(); string(ad) != "other ad" {
		t.Errorf("A's PeerAD = %q", ad)
	}
	if ad, _ := b.PeerAD(); string(ad) != "ad" {
		t.Errorf("B's PeerAD = %q", ad)
	}
}

// TestMismatchedInputs: any difference in PRS, CI or sid gives different
// keys, with no error (there is no key confirmation).
func TestMismatchedInputs(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*Inputs)
	}{
		{"PRS", func(in *Inputs) { in.PRS = []byte("pW") }},
		{"PRS prefix", func(in *Inputs) { in.PRS = []byte("p") }},
		{"CI", func(in *Inputs) { in.CI = []byte("cj") }},
		{"sid", func(in *Inputs) { in.SID = nil }},
	} {
		bIn := inputs("pw")
		c.mod(&bIn)
		a := mustParty(t, NewInitiator, inputs("pw"))
		b := mustParty(t, NewResponder, bIn)
		exchange(t, a, b)
		if ka, kb := keys(t, a, b); bytes.Equal(ka, kb) {
			t.Errorf("%s differs but the keys are equal", c.name)
		}
	}
}

// TestWrongPRSVector: the vector's run with a wrong PRS on one side ends
// with keys other than ISK_IR.
func TestWrongPRSVector(t *testing.T) {
	var f p256File
	readTestdata(t, "testdata/p256.json", &f)
	v := f.Protocol
	a, err := NewInitiator(replay(v.YaScalar), Inputs{PRS: v.PRS, CI: v.CI, SID: v.SID, AD: v.ADa})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewResponder(replay(v.YbScalar), Inputs{PRS: []byte("Passwort"), CI: v.CI, SID: v.SID, AD: v.ADb})
	if err != nil {
		t.Fatal(err)
	}
	exchange(t, a, b)
	ka, kb := keys(t, a, b)
	if bytes.Equal(ka, kb) || bytes.Equal(ka, v.ISKIR) || bytes.Equal(kb, v.ISKIR) {
		t.Errorf("wrong PRS: A %x, B %x, ISK_IR %x", ka, kb, v.ISKIR)
	}
}

// TestTamperedAD: changing the AD in transit gives different keys.
func TestTamperedAD(t *testing.T) {
	a := mustParty(t, NewInitiator, inputs("pw"))
	b := mustParty(t, NewResponder, inputs("pw"))
	ma, _ := a.Next(nil)
	ma[len(ma)-1] ^= 1
	mb, err := b.Next(ma)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Next(mb); err != nil {
		t.Fatal(err)
	}
	if ka, kb := keys(t, a, b); bytes.Equal(ka, kb) {
		t.Error("tampered ADa but equal keys")
	}
}

// TestSymmetricOrders: in the symmetric setting both orders of speaking,
// including both parties sending first, give the vector's ISK_SY.
func TestSymmetricOrders(t *testing.T) {
	var f p256File
	readTestdata(t, "testdata/p256.json", &f)
	v := f.Protocol
	newPair := func() (*Party, *Party) {
		a, err := NewSymmetric(replay(v.YaScalar), Inputs{PRS: v.PRS, CI: v.CI, SID: v.SID, AD: v.ADa})
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewSymmetric(replay(v.YbScalar), Inputs{PRS: v.PRS, CI: v.CI, SID: v.SID, AD: v.ADb})
		if err != nil {
			t.Fatal(err)
		}
		return a, b
	}
	// B speaks first, A answers.
	a, b := newPair()
	exchange(t, b, a)
	ka, kb := keys(t, a, b)
	if !bytes.Equal(ka, v.ISKSY) || !bytes.Equal(kb, v.ISKSY) {
		t.Errorf("B first: %x %x, want %x", ka, kb, v.ISKSY)
	}
	// Both send before receiving.
	a, b = newPair()
	ma, err1 := a.Next(nil)
	mb, err2 := b.Next(nil)
	outA, err3 := a.Next(mb)
	outB, err4 := b.Next(ma)
	if err := errors.Join(err1, err2, err3, err4); err != nil || outA != nil || outB != nil {
		t.Fatalf("parallel run: %v, %x, %x", err, outA, outB)
	}
	ka, kb = keys(t, a, b)
	if !bytes.Equal(ka, v.ISKSY) || !bytes.Equal(kb, v.ISKSY) {
		t.Errorf("parallel: %x %x, want %x", ka, kb, v.ISKSY)
	}
	if s, _ := a.SIDOutput(); !bytes.Equal(s, v.SIDOutputOC) {
		t.Errorf("sid_output %x, want %x", s, v.SIDOutputOC)
	}
}

func TestStateMachine(t *testing.T) {
	isState := func(err error) bool { return errors.Is(err, pakeerr.ErrState) }
	isInvalid := func(err error) bool { return errors.Is(err, pakeerr.ErrInvalidMessage) }

	a := mustParty(t, NewInitiator, inputs("pw"))
	if _, err := a.SessionKey(); !isState(err) {
		t.Errorf("SessionKey before the run: %v", err)
	}
	if _, err := a.SIDOutput(); !isState(err) {
		t.Errorf("SIDOutput before the run: %v", err)
	}
	if _, err := a.PeerAD(); !isState(err) {
		t.Errorf("PeerAD before the run: %v", err)
	}
	if _, err := a.Next([]byte{1}); !isInvalid(err) {
		t.Errorf("initiator's first Next with a message: %v", err)
	}
	if _, err := a.Next(nil); !isState(err) {
		t.Errorf("Next after a failure: %v", err)
	}

	b := mustParty(t, NewResponder, inputs("pw"))
	if _, err := b.Next(nil); !isInvalid(err) {
		t.Errorf("responder's Next(nil): %v", err)
	}

	a = mustParty(t, NewInitiator, inputs("pw"))
	if _, err := a.Next(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Next(nil); !isInvalid(err) {
		t.Errorf("initiator's second Next(nil): %v", err)
	}

	a = mustParty(t, NewInitiator, inputs("pw"))
	b = mustParty(t, NewResponder, inputs("pw"))
	exchange(t, a, b)
	for _, p := range []*Party{a, b} {
		if _, err := p.Next(nil); !isState(err) {
			t.Errorf("Next(nil) after the end: %v", err)
		}
		if _, err := p.Next(make([]byte, ElementSize)); !isState(err) {
			t.Errorf("Next(msg) after the end: %v", err)
		}
	}
}

// TestMalformedMessages: every message whose point is not a valid
// uncompressed P-256 point other than the identity is rejected (§8.4.3,
// §9), and the receiver is dead afterwards.
func TestMalformedMessages(t *testing.T) {
	a := mustParty(t, NewInitiator, inputs("pw"))
	valid, _ := a.Next(nil)
	y := valid[:ElementSize]
	pt, err := group.NewPoint().SetBytes(y)
	if err != nil {
		t.Fatal(err)
	}
	mod := func(f func(m []byte)) []byte { m := bytes.Clone(valid); f(m); return m }
	// p, the field prime, as a non-canonical x coordinate.
	fieldP := []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	cases := map[string]struct {
		msg []byte
		why error
	}{
		"empty":             {[]byte{}, group.ErrInvalidEncoding},
		"identity":          {[]byte{0}, group.ErrIdentity},
		"identity + AD":     {[]byte{0, 'a', 'd'}, group.ErrInvalidEncoding},
		"truncated":         {valid[:ElementSize-1], group.ErrInvalidEncoding},
		"compressed":        {append(pt.BytesCompressed(), "ad"...), group.ErrInvalidEncoding},
		"hybrid prefix 06":  {mod(func(m []byte) { m[0] = 6 }), group.ErrInvalidEncoding},
		"prefix 05":         {mod(func(m []byte) { m[0] = 5 }), group.ErrInvalidEncoding},
		"off curve":         {mod(func(m []byte) { m[ElementSize-1] ^= 1 }), group.ErrInvalidEncoding},
		"x = p":             {mod(func(m []byte) { copy(m[1:33], fieldP) }), group.ErrInvalidEncoding},
		"all zero point":    {make([]byte, ElementSize), group.ErrInvalidEncoding},
		"prefix 04 + zeros": {append([]byte{4}, make([]byte, ElementSize-1)...), group.ErrInvalidEncoding},
	}
	for name, c := range cases {
		b := mustParty(t, NewResponder, inputs("pw"))
		out, err := b.Next(c.msg)
		if !errors.Is(err, pakeerr.ErrInvalidMessage) || !errors.Is(err, c.why) || out != nil {
			t.Errorf("%s: responder returned %x, %v; want ErrInvalidMessage and %v", name, out, err, c.why)
		}
		if _, err := b.Next(valid); !errors.Is(err, pakeerr.ErrState) {
			t.Errorf("%s: responder usable after rejecting: %v", name, err)
		}
		a := mustParty(t, NewInitiator, inputs("pw"))
		a.Next(nil)
		if _, err := a.Next(c.msg); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("%s: initiator accepted: %v", name, err)
		}
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("no entropy") }

func TestRandomFailure(t *testing.T) {
	for _, r := range []io.Reader{failingReader{}, bytes.NewReader(make([]byte, 47))} {
		if _, err := NewInitiator(r, inputs("pw")); !errors.Is(err, pakeerr.ErrRandom) {
			t.Errorf("NewInitiator with a failing reader: %v", err)
		}
	}
}

// TestInputsCopied: changing the caller's slices after New does not change
// the run.
func TestInputsCopied(t *testing.T) {
	in := inputs("pw")
	a := mustParty(t, NewInitiator, in)
	in.SID[0] ^= 1
	in.AD[0] ^= 1
	b := mustParty(t, NewResponder, inputs("pw"))
	exchange(t, a, b)
	if ka, kb := keys(t, a, b); !bytes.Equal(ka, kb) {
		t.Error("caller's slices aliased by the party")
	}
}

// FuzzResponder feeds arbitrary first messages to a responder: it must
// either answer with a well-formed message and a key, or reject with
// ErrInvalidMessage and be dead afterwards; it never panics.
func FuzzResponder(f *testing.F) {
	var pv p256File
	readTestdata(f, "testdata/p256.json", &pv)
	f.Add(append(bytes.Clone(pv.Protocol.Ya), pv.Protocol.ADa...))
	f.Add([]byte(pv.Points.InvalidY1))
	f.Add([]byte{0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, msg []byte) {
		b, err := NewResponder(replay(pv.Protocol.YbScalar), Inputs{PRS: pv.Protocol.PRS, AD: []byte("B")})
		if err != nil {
			t.Fatal(err)
		}
		out, err := b.Next(msg)
		if err != nil {
			if !errors.Is(err, pakeerr.ErrInvalidMessage) || out != nil || b.Done() {
				t.Fatalf("rejection: %x, %v, done=%v", out, err, b.Done())
			}
			if _, err := b.Next(msg); !errors.Is(err, pakeerr.ErrState) {
				t.Fatalf("dead party answered: %v", err)
			}
			return
		}
		if len(msg) < ElementSize || msg[0] != 4 || len(out) != ElementSize+1 || !b.Done() {
			t.Fatalf("accepted %x, answered %x", msg, out)
		}
		if _, err := group.NewPoint().SetBytes(msg[:ElementSize]); err != nil {
			t.Fatalf("accepted an invalid point %x: %v", msg[:ElementSize], err)
		}
		if ad, _ := b.PeerAD(); !bytes.Equal(ad, msg[ElementSize:]) {
			t.Fatalf("PeerAD %x, message %x", ad, msg)
		}
	})
}

// FuzzInitiator feeds arbitrary answers to an initiator that has sent its
// message.
func FuzzInitiator(f *testing.F) {
	var pv p256File
	readTestdata(f, "testdata/p256.json", &pv)
	f.Add(append(bytes.Clone(pv.Protocol.Yb), pv.Protocol.ADb...))
	f.Add([]byte(pv.Points.InvalidY1))
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, msg []byte) {
		a, err := NewInitiator(replay(pv.Protocol.YaScalar), Inputs{PRS: pv.Protocol.PRS})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Next(nil); err != nil {
			t.Fatal(err)
		}
		out, err := a.Next(msg)
		if err != nil {
			if !errors.Is(err, pakeerr.ErrInvalidMessage) || a.Done() {
				t.Fatalf("rejection: %v, done=%v", err, a.Done())
			}
			return
		}
		if out != nil || !a.Done() {
			t.Fatalf("accepted %x but out=%x done=%v", msg, out, a.Done())
		}
		if _, err := group.NewPoint().SetBytes(msg[:ElementSize]); err != nil || msg[0] != 4 {
			t.Fatalf("accepted an invalid point %x", msg)
		}
	})
}
