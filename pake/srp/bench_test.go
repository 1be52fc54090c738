package srp

import (
	"crypto"
	"crypto/rand"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kexlab/kexlab/bench/meter"
	"github.com/kexlab/kexlab/bench/stats"
)

// benchSuites are the parameter sets the benchmarks cover: every RFC 5054
// group with SHA-256, and SHA-1 at 1024 and 3072 bits.
func benchSuites(b *testing.B, f func(b *testing.B, p *Params, rec *Record)) {
	type suite struct {
		bits int
		h    crypto.Hash
	}
	suites := []suite{{1024, crypto.SHA1}, {3072, crypto.SHA1}}
	for _, bits := range []int{1024, 1536, 2048, 3072, 4096, 6144, 8192} {
		suites = append(suites, suite{bits, crypto.SHA256})
	}
	for _, s := range suites {
		p, err := NewParams(s.bits, s.h)
		if err != nil {
			b.Fatal(err)
		}
		rec, err := Register(rand.Reader, p, testID, testPW)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%d-%s", s.bits, s.h), func(b *testing.B) { f(b, p, rec) })
	}
}

// fullRun is one exchange from a stored record: both parties created, four
// messages, both keys derived.
func fullRun(b *testing.B, p *Params, rec *Record) {
	c, err := NewClient(rand.Reader, p, testID, testPW)
	if err != nil {
		b.Fatal(err)
	}
	s, err := NewServer(rand.Reader, p, testID, rec)
	if err != nil {
		b.Fatal(err)
	}
	m1, _ := c.Next(nil)
	m2, err := s.Next(m1)
	if err != nil {
		b.Fatal(err)
	}
	m3, err := c.Next(m2)
	if err != nil {
		b.Fatal(err)
	}
	m4, err := s.Next(m3)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Next(m4); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkFullRun(b *testing.B) {
	benchSuites(b, func(b *testing.B, p *Params, rec *Record) {
		for b.Loop() {
			fullRun(b, p, rec)
		}
	})
}

// BenchmarkClient is the client's share of a run in the default suite:
// NewClient (a, A), then x, u, S, K, M1, M2 from message 2, and the check of
// message 4. The client's randomness is fixed so that the server's messages
// can be computed once, off the clock.
func BenchmarkClient(b *testing.B) {
	p := DefaultParams()
	rec, _ := Register(rand.Reader, p, testID, testPW)
	c, _ := NewClient(&detReader{seed: 1}, p, testID, testPW)
	s, _ := NewServer(rand.Reader, p, testID, rec)
	m1, _ := c.Next(nil)
	m2, _ := s.Next(m1)
	m3, _ := c.Next(m2)
	m4, err := s.Next(m3)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		c, _ := NewClient(&detReader{seed: 1}, p, testID, testPW)
		c.Next(nil)
		c.Next(m2)
		if _, err := c.Next(m4); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServer is the server's share: NewServer (b, B), then u, S, K,
// M1, M2 from message 1, and the check of message 3, with fixed randomness
// on both sides.
func BenchmarkServer(b *testing.B) {
	p := DefaultParams()
	rec, _ := Register(rand.Reader, p, testID, testPW)
	c, _ := NewClient(rand.Reader, p, testID, testPW)
	s, _ := NewServer(&detReader{seed: 2}, p, testID, rec)
	m1, _ := c.Next(nil)
	m2, _ := s.Next(m1)
	m3, err := c.Next(m2)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s, _ := NewServer(&detReader{seed: 2}, p, testID, rec)
		s.Next(m1)
		if _, err := s.Next(m3); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnavoidable is Unavoidable's Online, the primitive floor of a
// full run, measured in the same run as BenchmarkFullRun.
func BenchmarkUnavoidable(b *testing.B) {
	benchSuites(b, func(b *testing.B, p *Params, rec *Record) {
		floor := unavoidable(b, p)
		for b.Loop() {
			floor()
		}
	})
}

// unavoidable returns Unavoidable(p).Online, failing b on error.
func unavoidable(b *testing.B, p *Params) func() {
	f, err := Unavoidable(rand.Reader, p)
	if err != nil {
		b.Fatal(err)
	}
	return func() {
		if err := f.Online(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegister is Register: a salt, x and one fixed-base exponentiation.
func BenchmarkRegister(b *testing.B) {
	p := DefaultParams()
	for b.Loop() {
		if _, err := Register(rand.Reader, p, testID, testPW); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRatio runs a full exchange and its unavoidable exponentiations
// in every iteration, alternating their order, timing each by the CPU time
// of its thread so that the load of other processes affects neither, and
// reports the median of each and full/unavoidable.
func BenchmarkRatio(b *testing.B) {
	benchSuites(b, func(b *testing.B, p *Params, rec *Record) {
		defer meter.LockThread()()
		floor := unavoidable(b, p)
		var full, min []time.Duration
		for i := 0; b.Loop(); i++ {
			for j := 0; j < 2; j++ {
				t := meter.ThreadCPUOrWall()
				if (i+j)%2 == 0 {
					fullRun(b, p, rec)
					full = append(full, meter.ThreadCPUOrWall()-t)
				} else {
					floor()
					min = append(min, meter.ThreadCPUOrWall()-t)
				}
			}
		}
		reportRatio(b, full, min)
	})
}

func reportRatio(b *testing.B, full, floor []time.Duration) {
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds())
	}
	f, u := median(full), median(floor)
	b.ReportMetric(f, "full-cpu-ns")
	b.ReportMetric(u, "unavoidable-cpu-ns")
	b.ReportMetric(f/u, "ratio")
}

// BenchmarkKeyHash measures the timing channel of ProfileRFC5054's
// K = H(S without its leading zero bytes): batches of 64 session-key
// computations for a random S with a non-zero top byte (z=0) and for one
// with a zero top byte (z=1), interleaved, on thread CPU time. It reports
// the median time of one K for each, their ratio, the Mann–Whitney p-value
// of the two samples and Cliff's delta (0: indistinguishable). ProfilePadded
// hashes the same PAD(S) in both cases and serves as the control.
func BenchmarkKeyHash(b *testing.B) {
	const batch = 64
	for _, pr := range []Profile{ProfileRFC5054, ProfilePadded} {
		for _, s := range []struct {
			bits int
			h    crypto.Hash
		}{{2048, crypto.SHA1}, {2048, crypto.SHA256}, {3072, crypto.SHA1}, {3072, crypto.SHA256}} {
			p, err := NewProfileParams(s.bits, s.h, pr)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%v/%d-%v", pr, s.bits, s.h), func(b *testing.B) {
				defer meter.LockThread()()
				S := [2][]byte{make([]byte, p.ElementSize()), make([]byte, p.ElementSize())}
				rand.Read(S[0])
				rand.Read(S[1])
				S[0][0] |= 1
				S[1][0] = 0
				S[1][1] |= 1
				var times [2][]float64
				for i := 0; b.Loop(); i++ {
					for j := range 2 {
						z := (i + j) % 2
						t := meter.ThreadCPUOrWall()
						for range batch {
							p.sessionKey(S[z])
						}
						times[z] = append(times[z], float64(meter.ThreadCPUOrWall()-t)/batch)
					}
				}
				if len(times[0]) < 5 {
					return
				}
				m0, _ := stats.Quantile(times[0], 0.5)
				m1, _ := stats.Quantile(times[1], 0.5)
				mw, err := stats.MannWhitney(times[0], times[1], nil)
				if err != nil {
					b.Fatal(err)
				}
				d, _ := stats.CliffsDelta(times[1], times[0])
				b.ReportMetric(m0, "z0-ns")
				b.ReportMetric(m1, "z1-ns")
				b.ReportMetric(m1/m0, "z1/z0")
				b.ReportMetric(mw.P, "p")
				b.ReportMetric(d, "cliff")
			})
		}
	}
}
