package dragonfly

import (
	"crypto/rand"
	"slices"
	"testing"
	"time"

	"github.com/kexlab/kexlab/bench/meter"
	"github.com/kexlab/kexlab/internal/group"
)

// BenchmarkPWE measures password element derivation: the constant-time
// 40-round hunting and pecking the package uses, and the insecure
// early-exit variant that only shows what the constant-time loop costs.
func BenchmarkPWE(b *testing.B) {
	for _, c := range []struct {
		name string
		opts *Options
	}{
		{"hunt-and-peck-40-constant-time", nil},
		{"hunt-and-peck-insecure-early-exit", &Options{InsecureEarlyExit: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := PasswordElement(testPassword, aliceID, bobID, c.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func fullRun(b *testing.B) {
	ini, err := NewInitiator(rand.Reader, testPassword, aliceID, bobID, nil)
	if err != nil {
		b.Fatal(err)
	}
	resp, err := NewResponder(rand.Reader, testPassword, bobID, aliceID, nil)
	if err != nil {
		b.Fatal(err)
	}
	m1, _ := ini.Next(nil)
	m2, err := resp.Next(m1)
	if err != nil {
		b.Fatal(err)
	}
	m3, err := ini.Next(m2)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := resp.Next(m3); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkFullRun is one complete exchange: both parties derive PE,
// commit, process and confirm.
func BenchmarkFullRun(b *testing.B) {
	for b.Loop() {
		fullRun(b)
	}
}

// transcript records an exchange made with fixed randomness, so that one
// party can be benchmarked alone against the other's recorded messages.
func transcript(b *testing.B) (m1, m2, m3 []byte) {
	ini, _ := NewInitiator(deterministic(1), testPassword, aliceID, bobID, nil)
	resp, _ := NewResponder(deterministic(2), testPassword, bobID, aliceID, nil)
	m1, _ = ini.Next(nil)
	m2, _ = resp.Next(m1)
	m3, err := ini.Next(m2)
	if err != nil {
		b.Fatal(err)
	}
	return m1, m2, m3
}

// BenchmarkInitiator is the initiator's whole share of an exchange.
func BenchmarkInitiator(b *testing.B) {
	_, m2, _ := transcript(b)
	for b.Loop() {
		ini, err := NewInitiator(deterministic(1), testPassword, aliceID, bobID, nil)
		if err != nil {
			b.Fatal(err)
		}
		ini.Next(nil)
		if _, err := ini.Next(m2); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResponder is the responder's whole share of an exchange.
func BenchmarkResponder(b *testing.B) {
	m1, _, m3 := transcript(b)
	for b.Loop() {
		resp, err := NewResponder(deterministic(2), testPassword, bobID, aliceID, nil)
		if err != nil {
			b.Fatal(err)
		}
		resp.Next(m1)
		if _, err := resp.Next(m3); err != nil {
			b.Fatal(err)
		}
	}
}

// benchFloor returns Unavoidable's Online and Password together: the
// primitive floor of an exchange whose peers start from the password.
func benchFloor(b *testing.B) func() {
	f, err := Unavoidable(rand.Reader, nil)
	if err != nil {
		b.Fatal(err)
	}
	return func() {
		if err := f.Password(); err != nil {
			b.Fatal(err)
		}
		if err := f.Online(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnavoidable measures the primitive floor of an exchange, both
// peers, to compare with BenchmarkFullRun; "scalar-mult" is one
// variable-base multiplication, for the breakdown.
func BenchmarkUnavoidable(b *testing.B) {
	s, _ := group.RandomScalar(rand.Reader)
	b.Run("full-run", func(b *testing.B) {
		floor := benchFloor(b)
		for b.Loop() {
			floor()
		}
	})
	b.Run("scalar-mult", func(b *testing.B) {
		g := group.NewGenerator()
		for b.Loop() {
			g.ScalarMult(s, g)
		}
	})
}

// BenchmarkRatio runs a full exchange and its unavoidable primitives in
// every iteration, alternating their order, and times each by the CPU time
// of its thread, so that the load of other processes affects neither. It
// reports the median of each and full/unavoidable.
func BenchmarkRatio(b *testing.B) {
	defer meter.LockThread()()
	floorRun := benchFloor(b)
	var full, floor, fullWall, floorWall []time.Duration
	for i := 0; b.Loop(); i++ {
		for j := 0; j < 2; j++ {
			t, w := meter.ThreadCPUOrWall(), time.Now()
			if (i+j)%2 == 0 {
				fullRun(b)
				full, fullWall = append(full, meter.ThreadCPUOrWall()-t), append(fullWall, time.Since(w))
			} else {
				floorRun()
				floor, floorWall = append(floor, meter.ThreadCPUOrWall()-t), append(floorWall, time.Since(w))
			}
		}
	}
	reportRatio(b, full, floor, fullWall, floorWall)
}

// reportRatio reports the medians of the CPU and wall times of the full runs
// and of their unavoidable primitives, and the ratio of the CPU times.
func reportRatio(b *testing.B, full, floor, fullWall, floorWall []time.Duration) {
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds())
	}
	f, u := median(full), median(floor)
	b.ReportMetric(f, "full-cpu-ns")
	b.ReportMetric(u, "unavoidable-cpu-ns")
	b.ReportMetric(f/u, "ratio")
	b.ReportMetric(median(fullWall)/median(floorWall), "wall-ratio")
}
