package oeke

import (
	"crypto/rand"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kexlab/kexlab/bench/meter"
)

// The benchmarks run each suite twice: "exchange" starts from a derived
// password key (the protocol's own cost), "pbkdf2=100000" derives it in
// each party as the registered schemes do. BenchmarkUnavoidable measures,
// in the same run, what no implementation of the exchange can skip: per
// side, one fixed-base exponentiation (g^x, g^y) and one decoding plus
// exponentiation of the peer's element (Y^x, X^y), and in the second
// variant one PBKDF2 per side.
var benchModes = []struct {
	name       string
	iterations int // 0: the key is derived off the clock
}{{"exchange", 0}, {fmt.Sprintf("pbkdf2=%d", DefaultIterations), DefaultIterations}}

func benchSuites(b *testing.B, f func(b *testing.B, p *Params, iterations int)) {
	for _, p := range suites {
		for _, m := range benchModes {
			b.Run(p.label+"/"+m.name, func(b *testing.B) { f(b, p, m.iterations) })
		}
	}
}

// fixedKey returns the key derived once, off the clock, with the mode's
// iteration count (1 for "exchange").
func fixedKey(b *testing.B, p *Params, iterations int) []byte {
	k, err := p.DeriveKey([]byte("pw"), testSession, max(iterations, 1))
	if err != nil {
		b.Fatal(err)
	}
	return k
}

// benchKey returns the password key: derived here with the given
// iterations, or the fixed one when iterations is 0.
func benchKey(b *testing.B, p *Params, iterations int, fixed []byte) []byte {
	if iterations == 0 {
		return fixed
	}
	k, err := p.DeriveKey([]byte("pw"), testSession, iterations)
	if err != nil {
		b.Fatal(err)
	}
	return k
}

func BenchmarkFullRun(b *testing.B) {
	benchSuites(b, func(b *testing.B, p *Params, iterations int) {
		fixed := fixedKey(b, p, iterations)
		for b.Loop() {
			fullRun(b, p, iterations, fixed)
		}
	})
}

// fullRun is one exchange: both parties created (deriving their keys
// unless iterations is 0), three messages, both keys derived.
func fullRun(b *testing.B, p *Params, iterations int, fixed []byte) {
	c, _ := NewClient(rand.Reader, p, benchKey(b, p, iterations, fixed), testSession)
	s, _ := NewServer(rand.Reader, p, benchKey(b, p, iterations, fixed), testSession)
	m1, _ := c.Next(nil)
	m2, err := s.Next(m1)
	if err != nil {
		b.Fatal(err)
	}
	m3, err := c.Next(m2)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Next(m3); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkClient is the client's side: its key, x and X, then Y, K, Auth
// and sk from a message 2 computed off the clock.
func BenchmarkClient(b *testing.B) {
	benchSuites(b, func(b *testing.B, p *Params, iterations int) {
		fixed := fixedKey(b, p, iterations)
		for b.Loop() {
			c, _ := NewClient(rand.Reader, p, benchKey(b, p, iterations, fixed), testSession)
			m1, _ := c.Next(nil)
			b.StopTimer()
			s, _ := NewServer(rand.Reader, p, fixed, testSession)
			m2, err := s.Next(m1)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := c.Next(m2); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkServer is the server's side: its key, then y, K and message 2
// from a fixed X, then the check of Auth (computed off the clock).
func BenchmarkServer(b *testing.B) {
	benchSuites(b, func(b *testing.B, p *Params, iterations int) {
		fixed := fixedKey(b, p, iterations)
		for b.Loop() {
			b.StopTimer()
			c, _ := NewClient(rand.Reader, p, fixed, testSession)
			m1, _ := c.Next(nil)
			b.StartTimer()
			s, _ := NewServer(rand.Reader, p, benchKey(b, p, iterations, fixed), testSession)
			m2, err := s.Next(m1)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			m3, err := c.Next(m2)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := s.Next(m3); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkUnavoidable is Unavoidable's floor: Online, and Password in
// the mode that derives the key in each party.
func BenchmarkUnavoidable(b *testing.B) {
	benchSuites(b, func(b *testing.B, p *Params, iterations int) {
		floor := unavoidable(b, p, iterations)
		for b.Loop() {
			floor()
		}
	})
}

// unavoidable returns a function doing BenchmarkUnavoidable's work once.
func unavoidable(b *testing.B, p *Params, iterations int) func() {
	f, err := Unavoidable(rand.Reader, p, iterations)
	if err != nil {
		b.Fatal(err)
	}
	return func() {
		if err := f.Online(); err != nil {
			b.Fatal(err)
		}
		if iterations != 0 {
			if err := f.Password(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkRatio runs a full exchange and its unavoidable primitives in
// every iteration, alternating their order, timing each by the CPU time of
// its thread so that the load of other processes affects neither, and
// reports the median of each and full/unavoidable.
func BenchmarkRatio(b *testing.B) {
	benchSuites(b, func(b *testing.B, p *Params, iterations int) {
		defer meter.LockThread()()
		fixed := fixedKey(b, p, iterations)
		floor := unavoidable(b, p, iterations)
		var full, min []time.Duration
		for i := 0; b.Loop(); i++ {
			for j := 0; j < 2; j++ {
				t := meter.ThreadCPUOrWall()
				if (i+j)%2 == 0 {
					fullRun(b, p, iterations, fixed)
					full = append(full, meter.ThreadCPUOrWall()-t)
				} else {
					floor()
					min = append(min, meter.ThreadCPUOrWall()-t)
				}
			}
		}
		median := func(d []time.Duration) float64 {
			slices.Sort(d)
			return float64(d[len(d)/2].Nanoseconds())
		}
		f, u := median(full), median(min)
		b.ReportMetric(f, "full-cpu-ns")
		b.ReportMetric(u, "unavoidable-cpu-ns")
		b.ReportMetric(f/u, "ratio")
	})
}
