package cpace

import (
	"bytes"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/kat"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// The draft's vectors, transcribed into testdata/ (each file names its
// sections) and compiled in so that `kexlab vectors` runs them anywhere.
//
//go:embed testdata/p256.json testdata/appendix.json
var testdata embed.FS

// hexBytes is a byte string written in hex in the vector files.
type hexBytes []byte

func (h *hexBytes) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := hex.DecodeString(s)
	*h = v
	return err
}

// p256File is testdata/p256.json: Appendix B.5.9-B.5.11, in the shape of the
// draft repository's testvectors.json.
type p256File struct {
	Protocol protocolVector `json:"G_NistP256"`
	Points   pointsVector   `json:"G_NistP256_points"`
}

// protocolVector is one CPace run (Appendix B.5.9).
type protocolVector struct {
	PRS         hexBytes `json:"PRS"`
	CI          hexBytes `json:"CI"`
	SID         hexBytes `json:"sid"`
	G           hexBytes `json:"g"`
	YaScalar    hexBytes `json:"ya"`
	ADa         hexBytes `json:"ADa"`
	Ya          hexBytes `json:"Ya"`
	YbScalar    hexBytes `json:"yb"`
	ADb         hexBytes `json:"ADb"`
	Yb          hexBytes `json:"Yb"`
	K           hexBytes `json:"K"`
	ISKIR       hexBytes `json:"ISK_IR"`
	ISKSY       hexBytes `json:"ISK_SY"`
	SIDOutputIR hexBytes `json:"sid_output_ir"`
	SIDOutputOC hexBytes `json:"sid_output_oc"`
}

// pointsVector is the scalar_mult_vfy verification test (Appendix B.5.10,
// B.5.11).
// Its keys hold spaces and commas, which struct tags cannot name, so the
// valid case is read as a map; see the valid* keys.
type pointsVector struct {
	Valid     map[string]hexBytes `json:"Valid"`
	InvalidY1 hexBytes            `json:"Invalid Y1"`
	InvalidY2 hexBytes            `json:"Invalid Y2"`
}

// Keys of pointsVector.Valid.
const (
	validS          = "s"
	validX          = "X"
	validScalarMult = "G.scalar_mult(s,X) (full coordinates)"
	validVfy        = "G.scalar_mult_vfy(s,X) (only X-coordinate)"
)

// generatorVector is Appendix B.5.1, from testdata/appendix.json.
type generatorVector struct {
	SInBytes        int      `json:"H.s_in_bytes"`
	PRS             hexBytes `json:"PRS"`
	DSI             hexBytes `json:"DSI"`
	DST             hexBytes `json:"DST"`
	CI              hexBytes `json:"CI"`
	SID             hexBytes `json:"sid"`
	GeneratorString hexBytes `json:"generator_string"`
}

// KnownAnswerTests returns the draft's vectors for this suite as tests:
// every value of Appendix B.5 (generator, messages, K, ISK in both settings,
// sid_output, the scalar_mult_vfy cases) and whole protocol runs that
// replay the vectors' scalars.
func KnownAnswerTests() []kat.Test {
	var f p256File
	var app struct {
		Generator generatorVector `json:"calculate_generator"`
	}
	if err := loadJSON("testdata/p256.json", &f); err != nil {
		return []kat.Test{{Name: "cpace: testdata/p256.json", Run: func() error { return err }}}
	}
	if err := loadJSON("testdata/appendix.json", &app); err != nil {
		return []kat.Test{{Name: "cpace: testdata/appendix.json", Run: func() error { return err }}}
	}
	return append(generatorTests(app.Generator), vectorTests(f.Protocol, f.Points)...)
}

func loadJSON(name string, v any) error {
	b, err := testdata.ReadFile(name)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// replay returns a randomness source from which sample_scalar draws exactly
// the scalar y (group.RandomScalar reduces 16 zero bytes || y to y).
func replay(y []byte) *bytes.Reader {
	return bytes.NewReader(append(make([]byte, 16), y...))
}

func check(what string, got, want []byte) error {
	if !bytes.Equal(got, want) {
		return kat.Mismatch(what, got, want)
	}
	return nil
}

func generatorTests(v generatorVector) []kat.Test {
	const sec = "draft-irtf-cfrg-cpace B.5.1 "
	return []kat.Test{
		{Name: sec + "generator_string", Run: func() error {
			return errors.Join(check("DSI", []byte(DSI), v.DSI), check("DST", []byte(dst), v.DST),
				check("generator_string", generatorString(v.DSI, v.PRS, v.CI, v.SID, v.SInBytes), v.GeneratorString))
		}},
	}
}

// vectorTests checks every value of a protocol vector and the
// scalar_mult_vfy cases. Steps after the generator start from the vector's
// g, so that each value is checked on its own.
func vectorTests(v protocolVector, pts pointsVector) []kat.Test {
	const sec = "draft-irtf-cfrg-cpace B.5 "
	scalar := func(b []byte) (*group.Scalar, error) { return group.NewScalar().SetCanonicalBytes(b) }
	tirVec := transcriptIR(v.Ya, v.ADa, v.Yb, v.ADb)
	tocVec := transcriptOC(v.Ya, v.ADa, v.Yb, v.ADb)
	return []kat.Test{
		{Name: sec + "calculate_generator (B.5.1)", Run: func() error {
			g, err := calculateGenerator(v.PRS, v.CI, v.SID)
			if err != nil {
				return err
			}
			return check("g", g.Bytes(), v.G)
		}},
		{Name: sec + "scalar_mult: Ya, Yb (B.5.2, B.5.3)", Run: func() error {
			g, err := group.NewPoint().SetBytes(v.G)
			if err != nil {
				return err
			}
			for _, c := range []struct {
				name    string
				y, want []byte
			}{{"Ya", v.YaScalar, v.Ya}, {"Yb", v.YbScalar, v.Yb}} {
				y, err := scalar(c.y)
				if err != nil {
					return err
				}
				if err := check(c.name, scalarMult(y, g), c.want); err != nil {
					return err
				}
			}
			return nil
		}},
		{Name: sec + "scalar_mult_vfy: K (B.5.4)", Run: func() error {
			for _, c := range []struct {
				name  string
				y, pt []byte
			}{{"scalar_mult_vfy(ya,Yb)", v.YaScalar, v.Yb}, {"scalar_mult_vfy(yb,Ya)", v.YbScalar, v.Ya}} {
				y, err := scalar(c.y)
				if err != nil {
					return err
				}
				k, err := scalarMultVfy(y, c.pt)
				if err != nil {
					return err
				}
				if err := check(c.name, k, v.K); err != nil {
					return err
				}
			}
			return nil
		}},
		{Name: sec + "ISK initiator/responder (B.5.5)", Run: func() error {
			return check("ISK_IR", intermediateSessionKey(v.SID, v.K, tirVec), v.ISKIR)
		}},
		{Name: sec + "ISK symmetric (B.5.6)", Run: func() error {
			return check("ISK_SY", intermediateSessionKey(v.SID, v.K, tocVec), v.ISKSY)
		}},
		{Name: sec + "sid_output (B.5.7)", Run: func() error {
			return errors.Join(check("sid_output_ir", sidOutput(tirVec), v.SIDOutputIR),
				check("sid_output_oc", sidOutput(tocVec), v.SIDOutputOC))
		}},
		{Name: sec + "scalar_mult_vfy valid input (B.5.10)", Run: func() error {
			s, err := scalar(pts.Valid[validS])
			if err != nil {
				return err
			}
			x, err := group.NewPoint().SetBytes(pts.Valid[validX])
			if err != nil {
				return err
			}
			k, err := scalarMultVfy(s, pts.Valid[validX])
			return errors.Join(err, check("scalar_mult(s,X)", scalarMult(s, x), pts.Valid[validScalarMult]),
				check("scalar_mult_vfy(s,X)", k, pts.Valid[validVfy]))
		}},
		{Name: sec + "scalar_mult_vfy invalid inputs (B.5.11)", Run: func() error {
			s, err := scalar(pts.Valid[validS])
			if err != nil {
				return err
			}
			for _, c := range []struct {
				name string
				pt   []byte
				why  error
			}{{"Y_i1", pts.InvalidY1, group.ErrInvalidEncoding}, {"Y_i2", pts.InvalidY2, group.ErrIdentity}} {
				k, err := scalarMultVfy(s, c.pt)
				if !errors.Is(err, pakeerr.ErrInvalidMessage) || !errors.Is(err, c.why) {
					return fmt.Errorf("scalar_mult_vfy(s,%s) = %x, %v; want an error wrapping %v", c.name, k, err, c.why)
				}
			}
			return nil
		}},
		{Name: sec + "protocol run, initiator/responder", Run: func() error {
			return runVector(v, NewInitiator, NewResponder, v.ISKIR, v.SIDOutputIR)
		}},
		{Name: sec + "protocol run, symmetric", Run: func() error {
			return runVector(v, NewSymmetric, NewSymmetric, v.ISKSY, v.SIDOutputOC)
		}},
		{Name: sec + "protocol aborts on invalid points (B.5.11, §9)", Run: func() error {
			return runInvalid(v, pts)
		}},
	}
}

type constructor func(rand io.Reader, in Inputs) (*Party, error)

// runVector replays the vector's scalars through the state machine: A
// speaks first, B answers, and both must send the vector's messages and
// derive its ISK and sid_output.
func runVector(v protocolVector, newA, newB constructor, isk, sidOut []byte) error {
	a, err := newA(replay(v.YaScalar), Inputs{PRS: v.PRS, CI: v.CI, SID: v.SID, AD: v.ADa})
	if err != nil {
		return err
	}
	b, err := newB(replay(v.YbScalar), Inputs{PRS: v.PRS, CI: v.CI, SID: v.SID, AD: v.ADb})
	if err != nil {
		return err
	}
	ma, err := a.Next(nil)
	if err != nil {
		return err
	}
	if err := check("Ya||ADa", ma, append(bytes.Clone(v.Ya), v.ADa...)); err != nil {
		return err
	}
	mb, err := b.Next(ma)
	if err != nil {
		return err
	}
	if err := check("Yb||ADb", mb, append(bytes.Clone(v.Yb), v.ADb...)); err != nil {
		return err
	}
	if out, err := a.Next(mb); err != nil || out != nil {
		return fmt.Errorf("A's last Next = %x, %v; want nil, nil", out, err)
	}
	for _, p := range []struct {
		name   string
		p      *Party
		peerAD []byte
	}{{"A", a, v.ADb}, {"B", b, v.ADa}} {
		k, err1 := p.p.SessionKey()
		s, err2 := p.p.SIDOutput()
		ad, err3 := p.p.PeerAD()
		if err := errors.Join(err1, err2, err3, check(p.name+" ISK", k, isk),
			check(p.name+" sid_output", s, sidOut), check(p.name+" peer AD", ad, p.peerAD)); err != nil {
			return err
		}
	}
	return nil
}

// runInvalid puts the invalid points of B.5.11 into the messages of A and
// of B and checks that the receiver aborts with ErrInvalidMessage (§9).
func runInvalid(v protocolVector, pts pointsVector) error {
	in := Inputs{PRS: v.PRS, CI: v.CI, SID: v.SID}
	for _, bad := range [][]byte{pts.InvalidY1, pts.InvalidY2} {
		msg := append(bytes.Clone(bad), v.ADa...)
		b, err := NewResponder(replay(v.YbScalar), in)
		if err != nil {
			return err
		}
		if out, err := b.Next(msg); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			return fmt.Errorf("responder given %x: %x, %v; want ErrInvalidMessage", msg, out, err)
		}
		a, err := NewInitiator(replay(v.YaScalar), in)
		if err != nil {
			return err
		}
		if _, err := a.Next(nil); err != nil {
			return err
		}
		if _, err := a.Next(msg); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			return fmt.Errorf("initiator given %x: %v; want ErrInvalidMessage", msg, err)
		}
		if _, err := a.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
			return fmt.Errorf("initiator has a session key after aborting: %v", err)
		}
	}
	return nil
}
