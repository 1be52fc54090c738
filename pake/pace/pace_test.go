package pace

import (
	"bytes"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/kexlab/kexlab/internal/group/brainpool"
	"github.com/kexlab/kexlab/internal/kat"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

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

// TestKnownAnswers runs ICAO 9303-11 Appendix G.1 and H.1.
func TestKnownAnswers(t *testing.T) {
	runKATs(t, KnownAnswerTests())
	if n := len(MappingKnownAnswerTests(GenericMapping)) + len(MappingKnownAnswerTests(IntegratedMapping)); n != len(KnownAnswerTests()) {
		t.Errorf("per-mapping tests: %d, all: %d", n, len(KnownAnswerTests()))
	}
}

func readVectors(t *testing.T) (vector, vector) {
	t.Helper()
	g, err1 := loadVector("testdata/icao_9303_11_g1.json")
	h, err2 := loadVector("testdata/icao_9303_11_h1.json")
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	return g, h
}

// TestKATsDetectMismatch: corrupting any value of either vector makes at
// least one of its known-answer tests fail, so every value is compared.
func TestKATsDetectMismatch(t *testing.T) {
	g, h := readVectors(t)
	for _, c := range []struct {
		v     vector
		tests func(vector) []kat.Test
	}{{g, gmTests}, {h, imTests}} {
		for name, good := range c.v {
			if textFields[name] {
				continue
			}
			if c.v.b(name) == nil {
				t.Fatalf("%s is not hex", name)
			}
			last := good[len(good)-1]
			c.v[name] = good[:len(good)-1] + map[bool]string{true: "0", false: "1"}[last != '0']
			failed := 0
			for _, k := range c.tests(c.v) {
				if k.Run() != nil {
					failed++
				}
			}
			if failed == 0 {
				t.Errorf("corrupting %s went unnoticed", name)
			}
			c.v[name] = good
		}
	}
	for _, v := range []vector{g, h} {
		for name := range v {
			if textFields[name] && v.b(name) != nil && name != "CAN" {
				t.Errorf("text field %s holds hex", name)
			}
		}
	}
}

// fixedKey is a password-to-key function for tests: K_π = SHA-256(pw)[:16].
func fixedKey(pw []byte) ([]byte, error) {
	if len(pw) == 0 {
		return nil, fmt.Errorf("%w: empty", pakeerr.ErrInvalidParameter)
	}
	h := sha256.Sum256(pw)
	return h[:KeySize], nil
}

var (
	curves   = []Curve{P256, BrainpoolP256r1}
	mappings = []Mapping{GenericMapping, IntegratedMapping}
)

func config(m Mapping, c Curve) Config { return Config{Mapping: m, Curve: c, PasswordKey: fixedKey} }

// exchange runs a terminal and a chip to the end, with hook able to
// replace message i. It returns the transcript and the first error.
func exchange(t *testing.T, term, chp *Party, hook func(i int, m []byte) []byte) ([][]byte, error) {
	t.Helper()
	parties := [2]*Party{term, chp}
	var in []byte
	var msgs [][]byte
	for i := 0; i < 10; i++ {
		out, err := parties[i%2].Next(in)
		if err != nil {
			return msgs, err
		}
		if out == nil {
			return msgs, nil
		}
		if hook != nil {
			out = hook(i, out)
		}
		msgs = append(msgs, out)
		in = out
	}
	t.Fatal("exchange did not end")
	return nil, nil
}

func newPair(t *testing.T, c Config, pwT, pwC string) (*Party, *Party) {
	t.Helper()
	term, err := NewTerminal(rand.Reader, c, []byte(pwT))
	if err != nil {
		t.Fatal(err)
	}
	chp, err := NewChip(rand.Reader, c, []byte(pwC))
	if err != nil {
		t.Fatal(err)
	}
	return term, chp
}

func wantSizes(m Mapping) []int {
	if m == GenericMapping {
		return []int{RequestSize, NonceSize, PointSize, PointSize, PointSize, PointSize, TokenSize, TokenSize}
	}
	return []int{RequestSize, NonceSize, NonceSize + PointSize, PointSize, TokenSize, TokenSize}
}

func TestHonest(t *testing.T) {
	for _, c := range curves {
		for _, m := range mappings {
			t.Run(fmt.Sprintf("%v/%v", m, c), func(t *testing.T) {
				term, chp := newPair(t, config(m, c), "123456", "123456")
				msgs, err := exchange(t, term, chp, nil)
				if err != nil {
					t.Fatal(err)
				}
				sizes := wantSizes(m)
				if len(msgs) != len(sizes) {
					t.Fatalf("%d messages, want %d", len(msgs), len(sizes))
				}
				for i, n := range sizes {
					if len(msgs[i]) != n {
						t.Errorf("message %d: %d bytes, want %d", i+1, len(msgs[i]), n)
					}
				}
				wantReq := append(bytes.Clone(oidGM), byte(c))
				if m == IntegratedMapping {
					wantReq = append(bytes.Clone(oidIM), byte(c))
				}
				if !bytes.Equal(msgs[0], wantReq) {
					t.Errorf("request %x, want %x", msgs[0], wantReq)
				}
				kt, err1 := term.SessionKey()
				kc, err2 := chp.SessionKey()
				if err := errors.Join(err1, err2); err != nil || !bytes.Equal(kt, kc) || len(kt) != SessionKeySize {
					t.Fatalf("keys %x, %x, %v", kt, kc, err)
				}
				e, mac, _ := term.Keys()
				if !bytes.Equal(append(e, mac...), kt) {
					t.Error("Keys and SessionKey disagree")
				}
				for _, p := range []*Party{term, chp} {
					if !p.Done() {
						t.Error("not done")
					}
					if _, err := p.Next(msgs[len(msgs)-1]); !errors.Is(err, pakeerr.ErrState) {
						t.Errorf("Next after the end: %v", err)
					}
				}
			})
		}
	}
}

// TestWrongPassword: the chip, which checks the terminal's token first,
// rejects it with ErrAuthFailed, and neither side has a key.
func TestWrongPassword(t *testing.T) {
	for _, c := range curves {
		for _, m := range mappings {
			term, chp := newPair(t, config(m, c), "123456", "123457")
			msgs, err := exchange(t, term, chp, nil)
			if !errors.Is(err, pakeerr.ErrAuthFailed) {
				t.Fatalf("%v/%v: %v, want ErrAuthFailed", m, c, err)
			}
			if len(msgs) != len(wantSizes(m))-1 {
				t.Errorf("%v/%v: failed after %d messages, want at the chip's check of T_PCD", m, c, len(msgs))
			}
			for _, p := range []*Party{term, chp} {
				if _, err := p.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
					t.Errorf("%v/%v: session key after a failure: %v", m, c, err)
				}
			}
			if _, err := chp.Next(msgs[len(msgs)-1]); !errors.Is(err, pakeerr.ErrState) {
				t.Errorf("%v/%v: failed chip used again: %v", m, c, err)
			}
		}
	}
}

// TestTamperedTokens: a modified token fails with ErrAuthFailed at either
// side.
func TestTamperedTokens(t *testing.T) {
	for _, m := range mappings {
		n := len(wantSizes(m))
		for _, i := range []int{n - 2, n - 1} {
			term, chp := newPair(t, config(m, P256), "pw", "pw")
			_, err := exchange(t, term, chp, func(j int, msg []byte) []byte {
				if j == i {
					msg[3] ^= 0x10
				}
				return msg
			})
			if !errors.Is(err, pakeerr.ErrAuthFailed) {
				t.Errorf("%v: token %d modified: %v, want ErrAuthFailed", m, i+1, err)
			}
		}
	}
}

// invalidPoints returns encodings a party must refuse on curve c.
func invalidPoints(t *testing.T, c Curve, valid []byte) map[string][]byte {
	cv, _ := lookupCurve(c)
	p := new(big.Int).SetBytes(pBytes(c))
	offCurve := bytes.Clone(valid)
	offCurve[64] ^= 1
	// A coordinate written as itself plus p where that fits in 32 bytes
	// (on P-256 it rarely does), else x = p.
	nonCanonical := append(append([]byte{4}, pBytes(c)...), valid[33:]...)
	if xp := new(big.Int).Add(new(big.Int).SetBytes(valid[1:33]), p); xp.BitLen() <= 256 {
		nonCanonical = append(append([]byte{4}, xp.FillBytes(make([]byte, 32))...), valid[33:]...)
	} else if yp := new(big.Int).Add(new(big.Int).SetBytes(valid[33:]), p); yp.BitLen() <= 256 {
		nonCanonical = append(bytes.Clone(valid[:33]), yp.FillBytes(make([]byte, 32))...)
	}
	other := P256
	if c == P256 {
		other = BrainpoolP256r1
	}
	ocv, _ := lookupCurve(other)
	otherCurve := ocv.BaseMul([]byte{7}).Bytes()
	if _, err := cv.Decode(otherCurve); err == nil {
		t.Fatal("a point of the other curve decodes")
	}
	compressed := make([]byte, 33)
	compressed[0] = 2 | valid[64]&1
	copy(compressed[1:], valid[1:33])
	return map[string][]byte{
		"identity":         {0},
		"zero point":       append([]byte{4}, make([]byte, 64)...),
		"off curve":        offCurve,
		"x or y plus p":    nonCanonical,
		"other curve":      otherCurve,
		"compressed":       compressed,
		"hybrid prefix":    append([]byte{6 | valid[64]&1}, valid[1:]...),
		"truncated":        valid[:64],
		"extended":         append(bytes.Clone(valid), 0),
		"empty":            {},
		"all ones":         bytes.Repeat([]byte{0xff}, 65),
		"prefix 0x04 only": {4},
	}
}

// TestInvalidPoints puts invalid points in every point-carrying message
// and checks the receiver aborts with ErrInvalidMessage and is dead.
func TestInvalidPoints(t *testing.T) {
	for _, c := range curves {
		for _, m := range mappings {
			for i := range wantSizes(m) {
				isPoint := (m == GenericMapping && i >= 2 && i <= 5) || (m == IntegratedMapping && (i == 2 || i == 3))
				if !isPoint {
					continue
				}
				term, chp := newPair(t, config(m, c), "pw", "pw")
				msgs, err := exchange(t, term, chp, nil)
				if err != nil {
					t.Fatal(err)
				}
				valid := msgs[i]
				prefix := []byte{}
				if m == IntegratedMapping && i == 2 {
					prefix, valid = valid[:NonceSize], valid[NonceSize:]
				}
				for name, bad := range invalidPoints(t, c, valid) {
					term, chp := newPair(t, config(m, c), "pw", "pw")
					receiver := chp
					if i%2 == 1 {
						receiver = term
					}
					_, err := exchange(t, term, chp, func(j int, msg []byte) []byte {
						if j == i {
							return append(bytes.Clone(prefix), bad...)
						}
						return msg
					})
					if !errors.Is(err, pakeerr.ErrInvalidMessage) {
						t.Errorf("%v/%v message %d, %s: %v, want ErrInvalidMessage", m, c, i+1, name, err)
					}
					if _, err := receiver.Next([]byte{1}); !errors.Is(err, pakeerr.ErrState) {
						t.Errorf("%v/%v message %d, %s: party used after aborting: %v", m, c, i+1, name, err)
					}
				}
			}
		}
	}
}

// TestSameEphemeralKey: a chip whose ephemeral key equals the terminal's
// aborts (ICAO requires the check), and so does a terminal that gets its
// own key reflected back.
func TestSameEphemeralKey(t *testing.T) {
	g, h := readVectors(t)
	// The chip draws the terminal's SK_PCD as its own, so PK_PICC = PK_PCD.
	gm := Config{Mapping: GenericMapping, Curve: BrainpoolP256r1, PasswordKey: ICAOPasswordKey}
	pw := MRZKeySeed(g["mrz_information"])
	term, _ := NewTerminal(replay(g.b("SK_map_PCD"), g.b("SK_PCD")), gm, pw)
	chp, _ := NewChip(replay(g.b("s"), g.b("SK_map_PICC"), g.b("SK_PCD")), gm, pw)
	if _, err := exchange(t, term, chp, nil); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("GM chip with the terminal's key: %v, want ErrInvalidMessage", err)
	}
	im := Config{Mapping: IntegratedMapping, Curve: BrainpoolP256r1, PasswordKey: ICAOPasswordKey}
	term, _ = NewTerminal(replay(h.b("t"), h.b("SK_PCD")), im, []byte(h["CAN"]))
	chp, _ = NewChip(replay(h.b("s"), h.b("SK_PCD")), im, []byte(h["CAN"]))
	if _, err := exchange(t, term, chp, nil); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("IM chip with the terminal's key: %v, want ErrInvalidMessage", err)
	}
	// Reflection: PK_PCD comes back as PK_PICC.
	for _, m := range mappings {
		term, chp := newPair(t, config(m, P256), "pw", "pw")
		keyMsg := 4
		if m == IntegratedMapping {
			keyMsg = 2
		}
		var pkPCD []byte
		_, err := exchange(t, term, chp, func(j int, msg []byte) []byte {
			if j == keyMsg {
				pkPCD = msg[len(msg)-PointSize:]
			}
			if j == keyMsg+1 {
				return bytes.Clone(pkPCD)
			}
			return msg
		})
		if !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("%v terminal given its own key: %v, want ErrInvalidMessage", m, err)
		}
	}
}

// TestRequest: the chip refuses a request for another protocol or curve.
func TestRequest(t *testing.T) {
	for _, m := range mappings {
		_, chp := newPair(t, config(m, P256), "pw", "pw")
		good := chp.request()
		bad := [][]byte{nil, {}, good[:10], append(bytes.Clone(good), 0),
			append(bytes.Clone(oidGM), 13), append(bytes.Clone(oidIM), 13)}
		if m == GenericMapping {
			bad = append(bad, append(bytes.Clone(oidIM), 12))
		} else {
			bad = append(bad, append(bytes.Clone(oidGM), 12))
		}
		for _, b := range bad {
			_, chp := newPair(t, config(m, P256), "pw", "pw")
			if _, err := chp.Next(b); !errors.Is(err, pakeerr.ErrInvalidMessage) {
				t.Errorf("%v chip given request %x: %v", m, b, err)
			}
		}
	}
}

func TestState(t *testing.T) {
	for _, m := range mappings {
		term, chp := newPair(t, config(m, P256), "pw", "pw")
		if _, err := term.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
			t.Errorf("SessionKey before the run: %v", err)
		}
		if _, err := chp.Next(nil); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("chip speaking first: %v", err)
		}
		term, chp = newPair(t, config(m, P256), "pw", "pw")
		if _, err := term.Next([]byte{1}); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("terminal given a first message: %v", err)
		}
		term, chp = newPair(t, config(m, P256), "pw", "pw")
		req, _ := term.Next(nil)
		z, _ := chp.Next(req)
		if _, err := chp.Next(req); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("chip given the request twice: %v", err)
		}
		if _, err := term.Next(nil); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("terminal given nil for z: %v", err)
		}
		if _, err := term.Next(z); !errors.Is(err, pakeerr.ErrState) {
			t.Errorf("terminal used after failing: %v", err)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	bad := []Config{
		{Mapping: 0, Curve: P256, PasswordKey: fixedKey},
		{Mapping: 3, Curve: P256, PasswordKey: fixedKey},
		{Mapping: GenericMapping, Curve: 14, PasswordKey: fixedKey},
		{Mapping: GenericMapping, Curve: P256},
		{Mapping: GenericMapping, Curve: P256, PasswordKey: func([]byte) ([]byte, error) { return make([]byte, 32), nil }},
	}
	for i, c := range bad {
		if _, err := NewTerminal(rand.Reader, c, []byte("pw")); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("config %d: %v", i, err)
		}
		if _, err := NewChip(rand.Reader, c, []byte("pw")); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("config %d: %v", i, err)
		}
	}
	for _, f := range []func([]byte) ([]byte, error){ICAOPasswordKey, PBKDF2PasswordKey(nil, 1)} {
		if _, err := NewChip(rand.Reader, Config{Mapping: GenericMapping, Curve: P256, PasswordKey: f}, nil); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("empty password: %v", err)
		}
	}
	if _, err := PBKDF2PasswordKey(nil, -1)([]byte("pw")); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("negative iterations: %v", err)
	}
}

// TestPBKDF2PasswordKey checks the default password key against its
// definition with the standard library's PBKDF2, and the salt formula.
func TestPBKDF2PasswordKey(t *testing.T) {
	salt := PBKDF2Salt([]byte("chip"))
	h := sha256.New()
	h.Write([]byte("kexlab PACE K_pi salt v1"))
	h.Write([]byte{0, 0, 0, 0, 0, 0, 0, 4})
	h.Write([]byte("chip"))
	if !bytes.Equal(salt, h.Sum(nil)) {
		t.Fatal("salt formula")
	}
	for _, it := range []int{1, 2} {
		got, err := PBKDF2PasswordKey(salt, it)([]byte("pw"))
		want, _ := pbkdf2.Key(sha256.New, "pw", salt, it, KeySize)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%d iterations: %x, %v; want %x", it, got, err, want)
		}
	}
	if bytes.Equal(PBKDF2Salt([]byte("a")), PBKDF2Salt([]byte("b"))) {
		t.Error("salt ignores the chip identity")
	}
}

// failingReader returns n bytes of zeros and then an error.
type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, errors.New("no more randomness")
	}
	k := min(len(p), r.n)
	clear(p[:k])
	r.n -= k
	return k, nil
}

// TestRandomFailures: a randomness source that fails at any read makes
// the party fail with ErrRandom.
func TestRandomFailures(t *testing.T) {
	for _, m := range mappings {
		for _, c := range []struct {
			chip bool
			n    int
		}{{false, 0}, {false, 48}, {true, 0}, {true, 16}, {true, 64}} {
			if m == IntegratedMapping && c.chip && c.n == 64 {
				continue
			}
			var term, chp *Party
			if c.chip {
				term, _ = NewTerminal(rand.Reader, config(m, P256), []byte("pw"))
				chp, _ = NewChip(&failingReader{c.n}, config(m, P256), []byte("pw"))
			} else {
				term, _ = NewTerminal(&failingReader{c.n}, config(m, P256), []byte("pw"))
				chp, _ = NewChip(rand.Reader, config(m, P256), []byte("pw"))
			}
			if _, err := exchange(t, term, chp, nil); !errors.Is(err, pakeerr.ErrRandom) {
				t.Errorf("%v chip=%v after %d bytes: %v, want ErrRandom", m, c.chip, c.n, err)
			}
		}
	}
}

// pBytes returns the field prime of c.
func pBytes(c Curve) []byte {
	if c == P256 {
		b, _ := hex.DecodeString("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
		return b
	}
	return brainpool.Params().P
}
