package pace

import (
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"io"
	mrand "math/rand/v2"
	"slices"
	"testing"
	"time"
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

// BenchmarkUnavoidable is the primitive floor of a full run (Unavoidable:
// Online, and Password in the pbkdf2 variant), measured in the same run as
// BenchmarkFullRun.
func BenchmarkUnavoidable(b *testing.B) {
	for _, m := range mappings {
		for _, v := range variants {
			b.Run(m.String()+"/"+v.name, func(b *testing.B) {
				floor := unavoidable(b, m, v)
				for b.Loop() {
					floor()
				}
			})
		}
	}
}

// unavoidable returns a function computing the primitive floor of one run
// in variant v (see BenchmarkUnavoidable).
func unavoidable(b *testing.B, m Mapping, v variant) func() {
	f, err := Unavoidable(rand.Reader, m, DefaultIterations)
	if err != nil {
		b.Fatal(err)
	}
	return func() {
		if err := f.Online(); err != nil {
			b.Fatal(err)
		}
		if v.name == "pbkdf2" {
			if err := f.Password(); err != nil {
				b.Fatal(err)
			}
		}
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
				floorRun := unavoidable(b, m, v)
				var full, floor []time.Duration
				for b.Loop() {
					t0 := time.Now()
					fullRun(b, cfg)
					t1 := time.Now()
					floorRun()
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
