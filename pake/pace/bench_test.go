package pace

import (
	"crypto/aes"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"io"
	mrand "math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kexlab/kexlab/internal/cmac"
	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/pake/pace/internal/suite"
)

// The benchmarks run the default suite's curve, P-256, in two variants:
// "pbkdf2" with K_π = PBKDF2-HMAC-SHA256 at DefaultIterations (what the
// registered schemes do), and "protocol" with K_π already derived, which
// isolates the exchange itself.

var benchPassword = []byte("correct horse battery staple")

var benchSalt = PBKDF2Salt([]byte("server.kexlab"))

// precomputedKey is a password key that costs nothing: the "protocol"
// variant.
func precomputedKey(pw []byte) ([]byte, error) { return benchKpi, nil }

var benchKpi, _ = pbkdf2.Key(sha256.New, string(benchPassword), benchSalt, 1, KeySize)

type variant struct {
	name string
	key  func([]byte) ([]byte, error)
}

var variants = []variant{
	{"pbkdf2", PBKDF2PasswordKey(benchSalt, DefaultIterations)},
	{"protocol", precomputedKey},
}

func benchConfig(m Mapping, v variant) Config {
	return Config{Mapping: m, Curve: P256, PasswordKey: v.key}
}

// run drives one exchange to the end.
func run(b *testing.B, term, chp *Party) [][]byte {
	parties := [2]*Party{term, chp}
	var msgs [][]byte
	var in []byte
	for i := 0; ; i++ {
		out, err := parties[i%2].Next(in)
		if err != nil {
			b.Fatal(err)
		}
		if out == nil {
			return msgs
		}
		msgs = append(msgs, out)
		in = out
	}
}

// BenchmarkFullRun is one complete exchange: both parties created (K_π
// derived), every message, both keys.
func BenchmarkFullRun(b *testing.B) {
	for _, m := range mappings {
		for _, v := range variants {
			b.Run(m.String()+"/"+v.name, func(b *testing.B) {
				cfg := benchConfig(m, v)
				for b.Loop() {
					fullRun(b, cfg)
				}
			})
		}
	}
}

func fullRun(b *testing.B, cfg Config) {
	term, err1 := NewTerminal(rand.Reader, cfg, benchPassword)
	chp, err2 := NewChip(rand.Reader, cfg, benchPassword)
	if err1 != nil || err2 != nil {
		b.Fatal(err1, err2)
	}
	run(b, term, chp)
}

// seeded returns a deterministic randomness source, so that a recorded
// transcript can be replayed against one party.
func seeded(seed byte) io.Reader { return mrand.NewChaCha8([32]byte{seed}) }

// recorded returns the messages of an exchange with seeded randomness.
func recorded(b *testing.B, cfg Config) [][]byte {
	term, _ := NewTerminal(seeded(1), cfg, benchPassword)
	chp, _ := NewChip(seeded(2), cfg, benchPassword)
	return run(b, term, chp)
}

// benchParty measures one party's whole share of a run, answering the
// other side's recorded messages (the party replays the same randomness,
// so the recorded answers fit).
func benchParty(b *testing.B, chip bool) {
	for _, m := range mappings {
		for _, v := range variants {
			b.Run(m.String()+"/"+v.name, func(b *testing.B) {
				cfg := benchConfig(m, v)
				msgs := recorded(b, cfg)
				for b.Loop() {
					var p *Party
					var err error
					first := 1
					if chip {
						p, err = NewChip(seeded(2), cfg, benchPassword)
						first = 0
					} else if p, err = NewTerminal(seeded(1), cfg, benchPassword); err == nil {
						_, err = p.Next(nil)
					}
					if err != nil {
						b.Fatal(err)
					}
					for i := first; i < len(msgs); i += 2 {
						if _, err := p.Next(msgs[i]); err != nil {
							b.Fatal(err)
						}
					}
					if !p.Done() {
						b.Fatal("not done")
					}
				}
			})
		}
	}
}

// BenchmarkTerminal is the terminal's share of a run.
func BenchmarkTerminal(b *testing.B) { benchParty(b, false) }

// BenchmarkChip is the chip's share of a run.
func BenchmarkChip(b *testing.B) { benchParty(b, true) }

// BenchmarkUnavoidable is the primitive floor of a full run, measured in
// the same run as BenchmarkFullRun: for each of the two parties, what any
// implementation of the protocol must compute, with the same primitives
// (nistec, crypto/aes, crypto/sha1, cmac, PBKDF2):
//
//   - the password key (pbkdf2 variant only) and one AES block (z);
//   - GM: two random scalars; two fixed-base multiplications (PK_Map and
//     s·G); three variable-base multiplications (H, PK, K); one point
//     addition; two point encodings (the points sent) and two decodings
//     (the points received);
//   - IM: one random scalar and t; R (seven AES key schedules and
//     blocks), the reduction mod p and f_G (its two field exponentiations
//     on bigmod), decoding G'; two variable-base multiplications (PK, K);
//     one encoding and one decoding;
//   - KDF(K, 1), KDF(K, 2) and two truncated CMACs (the tokens).
func BenchmarkUnavoidable(b *testing.B) {
	for _, m := range mappings {
		for _, v := range variants {
			b.Run(m.String()+"/"+v.name, func(b *testing.B) {
				msgs := recorded(b, benchConfig(m, v))
				for b.Loop() {
					unavoidable(b, m, v, msgs[3])
				}
			})
		}
	}
}

// unavoidable computes the primitive floor of one run (see
// BenchmarkUnavoidable). peerPK is a valid P-256 point standing for each
// point a party receives.
func unavoidable(b *testing.B, m Mapping, v variant, peerPK []byte) {
	s := make([]byte, NonceSize)
	t := make([]byte, NonceSize)
	for range 2 {
		kpi, err := v.key(benchPassword)
		if err != nil {
			b.Fatal(err)
		}
		blk, _ := aes.NewCipher(kpi)
		blk.Encrypt(s, s)
		var gen *group.Point
		if m == GenericMapping {
			skMap, _ := group.RandomScalar(rand.Reader)
			group.NewPoint().ScalarBaseMult(skMap).Bytes()
			q, err := group.NewPoint().SetBytes(peerPK)
			if err != nil {
				b.Fatal(err)
			}
			h := group.NewPoint().ScalarMult(skMap, q)
			gen = group.NewPoint().Add(group.NewPoint().ScalarBaseMult(group.NewScalar().SetReducedBytes(s)), h)
		} else {
			io.ReadFull(rand.Reader, t)
			x, _ := suite.PseudoRandom(s, t)
			enc, _ := suite.P256.Encode(suite.P256.Reduce(x))
			g, err := group.NewPoint().SetBytes(enc)
			if err != nil {
				b.Fatal(err)
			}
			gen = g
		}
		sk, _ := group.RandomScalar(rand.Reader)
		group.NewPoint().ScalarMult(sk, gen).Bytes()
		q, err := group.NewPoint().SetBytes(peerPK)
		if err != nil {
			b.Fatal(err)
		}
		k, _ := group.NewPoint().ScalarMult(sk, q).BytesX()
		kMac := suite.KDF(k, suite.CounterMAC)
		suite.KDF(k, suite.CounterEnc)
		cmac.Sum(kMac, suite.PublicKeyDO(oidGM, peerPK))
		cmac.Sum(kMac, suite.PublicKeyDO(oidGM, peerPK))
	}
}

// BenchmarkRatio alternates one full run and one floor computation per
// iteration and reports the median of each (full-ns, floor-ns) and their
// ratio, so that both see the same machine load: on a shared machine that
// is steadier than comparing BenchmarkFullRun with BenchmarkUnavoidable.
func BenchmarkRatio(b *testing.B) {
	for _, m := range mappings {
		for _, v := range variants {
			b.Run(m.String()+"/"+v.name, func(b *testing.B) {
				cfg := benchConfig(m, v)
				msgs := recorded(b, cfg)
				var full, floor []time.Duration
				for b.Loop() {
					t0 := time.Now()
					fullRun(b, cfg)
					t1 := time.Now()
					unavoidable(b, m, v, msgs[3])
					full = append(full, t1.Sub(t0))
					floor = append(floor, time.Since(t1))
				}
				mf, ml := median(full), median(floor)
				b.ReportMetric(float64(mf.Nanoseconds()), "full-ns")
				b.ReportMetric(float64(ml.Nanoseconds()), "floor-ns")
				b.ReportMetric(float64(mf)/float64(ml), "ratio")
			})
		}
	}
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
