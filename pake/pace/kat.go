package pace

import (
	"bytes"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kexlab/kexlab/internal/kat"
	"github.com/kexlab/kexlab/pake/pace/internal/suite"
)

// The ICAO worked examples, transcribed into testdata/ (each file names
// its appendix and the sources read) and compiled in for `kexlab vectors`.
//
//go:embed testdata/icao_9303_11_g1.json testdata/icao_9303_11_h1.json
var testdata embed.FS

// vector is one worked example: field name to value, hex except for the
// textual fields.
type vector map[string]string

// textFields are the fields that are not hex values.
var textFields = map[string]bool{"source": true, "mrz_information": true, "CAN": true, "CAN_note": true, "SK_PICC_note": true}

// b returns a hex field's bytes; a missing or malformed field gives nil,
// which fails every comparison.
func (v vector) b(name string) []byte {
	x, err := hex.DecodeString(v[name])
	if err != nil || len(x) == 0 {
		return nil
	}
	return x
}

func loadVector(name string) (vector, error) {
	b, err := testdata.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var v vector
	return v, json.Unmarshal(b, &v)
}

// KnownAnswerTests returns ICAO Doc 9303-11 Appendix G.1 (Generic Mapping)
// and H.1 (Integrated Mapping), both on brainpoolP256r1 with ICAO's KDF_π:
// every intermediate value, then whole runs of the terminal and the chip
// replaying the examples' nonces and keys.
func KnownAnswerTests() []kat.Test {
	return append(MappingKnownAnswerTests(GenericMapping), MappingKnownAnswerTests(IntegratedMapping)...)
}

// MappingKnownAnswerTests returns the known-answer tests of one mapping:
// Appendix G.1 for the Generic Mapping, H.1 for the Integrated Mapping.
func MappingKnownAnswerTests(m Mapping) []kat.Test {
	file, tests := "testdata/icao_9303_11_g1.json", gmTests
	if m == IntegratedMapping {
		file, tests = "testdata/icao_9303_11_h1.json", imTests
	}
	v, err := loadVector(file)
	if err != nil {
		return []kat.Test{{Name: "pace: " + file, Run: func() error { return err }}}
	}
	return tests(v)
}

func check(what string, got, want []byte) error {
	if !bytes.Equal(got, want) || want == nil {
		return kat.Mismatch(what, got, want)
	}
	return nil
}

// replay returns randomness from which the parties read exactly the given
// values: nonces (16 bytes) as they are, scalars (32 bytes) preceded by the
// 16 zero bytes that make RandomScalar's reduction return them.
func replay(values ...[]byte) *bytes.Reader {
	var b []byte
	for _, v := range values {
		if len(v) == 32 {
			b = append(b, make([]byte, 16)...)
		}
		b = append(b, v...)
	}
	return bytes.NewReader(b)
}

// request returns OID ‖ parameter ID from a PACEInfo SEQUENCE { OID (10
// bytes), INTEGER version, INTEGER parameterId } of the examples' shape.
func request(info []byte) []byte {
	if len(info) != 20 || info[2] != 0x06 || info[3] != 10 {
		return nil
	}
	return append(bytes.Clone(info[4:14]), info[19])
}

// bp is the curve of the worked examples.
var bp = suite.BrainpoolP256r1

func gmTests(v vector) []kat.Test {
	const sec = "ICAO 9303-11 G.1 "
	cfg := Config{Mapping: GenericMapping, Curve: BrainpoolP256r1, PasswordKey: ICAOPasswordKey}
	seed := MRZKeySeed(v["mrz_information"])
	return []kat.Test{
		{Name: sec + "K_pi = KDF_pi(SHA-1(MRZ information))", Run: func() error {
			kpi, err := ICAOPasswordKey(seed)
			return errors.Join(err, check("key seed", seed, v.b("key_seed")), check("K_pi", kpi, v.b("K_pi")))
		}},
		{Name: sec + "encrypted nonce", Run: func() error { return checkNonce(v) }},
		{Name: sec + "mapping keys, H and G'", Run: func() error {
			pcd, picc := bp.BaseMul(v.b("SK_map_PCD")), bp.BaseMul(v.b("SK_map_PICC"))
			h1, h2 := picc.Mul(v.b("SK_map_PCD")), pcd.Mul(v.b("SK_map_PICC"))
			return errors.Join(check("PK_map_PCD", pcd.Bytes(), v.b("PK_map_PCD")),
				check("PK_map_PICC", picc.Bytes(), v.b("PK_map_PICC")),
				check("H (terminal)", h1.Bytes(), v.b("H")), check("H (chip)", h2.Bytes(), v.b("H")),
				check("G' = s·G + H", bp.BaseMul(v.b("s")).Add(h1).Bytes(), v.b("G_mapped")))
		}},
		{Name: sec + "ephemeral keys, K, K_enc, K_mac", Run: func() error { return checkAgreement(v) }},
		{Name: sec + "token inputs and tokens", Run: func() error {
			return errors.Join(check("input of T_PCD", suite.PublicKeyDO(oidGM, v.b("PK_PICC")), v.b("token_input_PCD")),
				check("input of T_PICC", suite.PublicKeyDO(oidGM, v.b("PK_PCD")), v.b("token_input_PICC")),
				checkTokens(v, oidGM))
		}},
		{Name: sec + "protocol run, terminal and chip", Run: func() error {
			t, err1 := NewTerminal(replay(v.b("SK_map_PCD"), v.b("SK_PCD")), cfg, seed)
			c, err2 := NewChip(replay(v.b("s"), v.b("SK_map_PICC"), v.b("SK_PICC")), cfg, seed)
			if err := errors.Join(err1, err2); err != nil {
				return err
			}
			return runExchange(t, c, v, [][]byte{request(v.b("PACEInfo")), v.b("z"), v.b("PK_map_PCD"),
				v.b("PK_map_PICC"), v.b("PK_PCD"), v.b("PK_PICC"), v.b("T_PCD"), v.b("T_PICC")})
		}},
	}
}

func imTests(v vector) []kat.Test {
	const sec = "ICAO 9303-11 H.1 "
	cfg := Config{Mapping: IntegratedMapping, Curve: BrainpoolP256r1, PasswordKey: ICAOPasswordKey}
	can := []byte(v["CAN"])
	return []kat.Test{
		{Name: sec + "K_pi = KDF_pi(CAN)", Run: func() error {
			kpi, err := ICAOPasswordKey(can)
			return errors.Join(err, check("K_pi", kpi, v.b("K_pi")))
		}},
		{Name: sec + "encrypted nonce", Run: func() error { return checkNonce(v) }},
		{Name: sec + "R(s,t), R_p(s,t) and G' = f_G(R_p)", Run: func() error {
			x, err := suite.PseudoRandom(v.b("s"), v.b("t"))
			if err != nil {
				return err
			}
			rp := bp.Reduce(x)
			fg, err1 := bp.Encode(rp)
			g, err2 := bp.IntegratedMapping(v.b("s"), v.b("t"))
			if err := errors.Join(err1, err2); err != nil {
				return err
			}
			return errors.Join(check("R(s,t)", x, v.b("R")), check("R_p(s,t)", rp, v.b("R_p")),
				check("f_G(R_p)", fg, v.b("G_mapped")), check("G'", g.Bytes(), v.b("G_mapped")))
		}},
		{Name: sec + "ephemeral keys, K, K_enc, K_mac", Run: func() error { return checkAgreement(v) }},
		{Name: sec + "tokens", Run: func() error { return checkTokens(v, oidIM) }},
		{Name: sec + "protocol run, terminal and chip", Run: func() error {
			t, err1 := NewTerminal(replay(v.b("t"), v.b("SK_PCD")), cfg, can)
			c, err2 := NewChip(replay(v.b("s"), v.b("SK_PICC")), cfg, can)
			if err := errors.Join(err1, err2); err != nil {
				return err
			}
			return runExchange(t, c, v, [][]byte{request(v.b("PACEInfo")), v.b("z"),
				append(v.b("t"), v.b("PK_PCD")...), v.b("PK_PICC"), v.b("T_PCD"), v.b("T_PICC")})
		}},
	}
}

func checkNonce(v vector) error {
	z, err1 := suite.EncryptNonce(v.b("K_pi"), v.b("s"))
	s, err2 := suite.DecryptNonce(v.b("K_pi"), v.b("z"))
	return errors.Join(err1, err2, check("z = E(K_pi, s)", z, v.b("z")), check("s = D(K_pi, z)", s, v.b("s")))
}

// checkAgreement checks PK = SK·G' for both parties, K from either side,
// and K_enc, K_mac.
func checkAgreement(v vector) error {
	g, err1 := bp.Decode(v.b("G_mapped"))
	a, err2 := bp.Decode(v.b("PK_PICC"))
	b, err3 := bp.Decode(v.b("PK_PCD"))
	if err := errors.Join(err1, err2, err3); err != nil {
		return err
	}
	k1, err1 := a.Mul(v.b("SK_PCD")).BytesX()
	k2, err2 := b.Mul(v.b("SK_PICC")).BytesX()
	return errors.Join(err1, err2, check("PK_PCD", g.Mul(v.b("SK_PCD")).Bytes(), v.b("PK_PCD")),
		check("PK_PICC", g.Mul(v.b("SK_PICC")).Bytes(), v.b("PK_PICC")),
		check("K (terminal)", k1, v.b("K")), check("K (chip)", k2, v.b("K")),
		check("K_enc = KDF(K,1)", suite.KDF(v.b("K"), suite.CounterEnc), v.b("K_enc")),
		check("K_mac = KDF(K,2)", suite.KDF(v.b("K"), suite.CounterMAC), v.b("K_mac")))
}

func checkTokens(v vector, oid []byte) error {
	t1, err1 := suite.Token(v.b("K_mac"), oid, v.b("PK_PICC"))
	t2, err2 := suite.Token(v.b("K_mac"), oid, v.b("PK_PCD"))
	return errors.Join(err1, err2, check("T_PCD = MAC(K_mac, PK_PICC)", t1, v.b("T_PCD")),
		check("T_PICC = MAC(K_mac, PK_PCD)", t2, v.b("T_PICC")))
}

// runExchange drives terminal and chip to the end, checking every message
// against want and both session keys against K_enc ‖ K_mac.
func runExchange(t, c *Party, v vector, want [][]byte) error {
	parties := [2]*Party{t, c}
	names := [2]string{"terminal", "chip"}
	var in []byte
	for i, w := range want {
		out, err := parties[i%2].Next(in)
		if err != nil {
			return fmt.Errorf("message %d (%s): %w", i+1, names[i%2], err)
		}
		if err := check(fmt.Sprintf("message %d (%s)", i+1, names[i%2]), out, w); err != nil {
			return err
		}
		in = out
	}
	if out, err := t.Next(in); err != nil || out != nil {
		return fmt.Errorf("terminal's last Next = %x, %v; want nil, nil", out, err)
	}
	for i, p := range parties {
		k, err := p.SessionKey()
		if err := errors.Join(err, check(names[i]+" session key", k, append(v.b("K_enc"), v.b("K_mac")...))); err != nil {
			return err
		}
	}
	return nil
}
