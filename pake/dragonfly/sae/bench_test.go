package sae

import (
	"crypto/rand"
	mrand "math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kexlab/kexlab/bench/meter"
	"github.com/kexlab/kexlab/internal/group"
)

// BenchmarkPWE measures password element derivation: constant-time
// 40-round hunting and pecking, its insecure early-exit variant (only to
// show what the constant-time loop costs), and hash-to-element, both from
// scratch (PT and PWE) and from a cached PT (one scalar multiplication).
func BenchmarkPWE(b *testing.B) {
	b.Run("hunt-and-peck-40-constant-time", func(b *testing.B) {
		for b.Loop() {
			HuntAndPeck(testPassword, staMAC, apMAC, nil)
		}
	})
	b.Run("hunt-and-peck-insecure-early-exit", func(b *testing.B) {
		for b.Loop() {
			HuntAndPeck(testPassword, staMAC, apMAC, &Options{InsecureEarlyExit: true})
		}
	})
	b.Run("h2e", func(b *testing.B) {
		for b.Loop() {
			h2ePWE(b, testSSID, testPassword)
		}
	})
	b.Run("h2e-PT-only", func(b *testing.B) {
		for b.Loop() {
			DerivePT(testSSID, testPassword, nil)
		}
	})
	b.Run("h2e-from-cached-PT", func(b *testing.B) {
		pt, _ := DerivePT(testSSID, testPassword, nil)
		for b.Loop() {
			pt.PWE(staMAC, apMAC)
		}
	})
}

// pweFunc derives one station's PWE as the registered profile does.
type pweFunc func(b *testing.B) *group.Point

var profiles = []struct {
	name        string
	huntAndPeck bool
	pwe         pweFunc
}{
	{"h2e", false, func(b *testing.B) *group.Point { return h2ePWE(b, testSSID, testPassword) }},
	{"hunt-and-peck", true, func(b *testing.B) *group.Point {
		pwe, err := HuntAndPeck(testPassword, staMAC, apMAC, nil)
		if err != nil {
			b.Fatal(err)
		}
		return pwe
	}},
}

// BenchmarkFullRun is one complete exchange: both stations derive PWE,
// commit, process and confirm.
func BenchmarkFullRun(b *testing.B) {
	for _, p := range profiles {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				fullRun(b, p.pwe)
			}
		})
	}
}

func deterministic(seed byte) *mrand.ChaCha8 {
	var s [32]byte
	s[0] = seed
	return mrand.NewChaCha8(s)
}

// BenchmarkInitiator and BenchmarkResponder are one station's share of an
// exchange (H2E, PT and PWE derived inside), against the other's messages
// recorded with fixed randomness.
func BenchmarkInitiator(b *testing.B) {
	pwe := h2ePWE(b, testSSID, testPassword)
	ini, _ := NewInitiator(deterministic(1), pwe)
	resp, _ := NewResponder(deterministic(2), pwe)
	m2, _ := resp.Next(must(ini.Next(nil)))
	for b.Loop() {
		ini, _ := NewInitiator(deterministic(1), h2ePWE(b, testSSID, testPassword))
		ini.Next(nil)
		if _, err := ini.Next(m2); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResponder(b *testing.B) {
	pwe := h2ePWE(b, testSSID, testPassword)
	ini, _ := NewInitiator(deterministic(1), pwe)
	resp, _ := NewResponder(deterministic(2), pwe)
	m1 := must(ini.Next(nil))
	m3 := must(ini.Next(must(resp.Next(m1))))
	for b.Loop() {
		resp, _ := NewResponder(deterministic(2), h2ePWE(b, testSSID, testPassword))
		resp.Next(m1)
		if _, err := resp.Next(m3); err != nil {
			b.Fatal(err)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// benchFloor returns Unavoidable's Password and Online together for the
// profile: the primitive floor of an authentication from the password.
func benchFloor(b *testing.B, huntAndPeck bool) func() {
	f, err := Unavoidable(rand.Reader, huntAndPeck, nil)
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

// BenchmarkUnavoidable measures the primitive floor of an authentication,
// both stations, to compare with BenchmarkFullRun.
func BenchmarkUnavoidable(b *testing.B) {
	for _, p := range profiles {
		b.Run("full-run-"+p.name, func(b *testing.B) {
			floor := benchFloor(b, p.huntAndPeck)
			for b.Loop() {
				floor()
			}
		})
	}
}

func fullRun(b *testing.B, pwe pweFunc) {
	ini, _ := NewInitiator(rand.Reader, pwe(b))
	resp, _ := NewResponder(rand.Reader, pwe(b))
	m1, _ := ini.Next(nil)
	m2, _ := resp.Next(m1)
	m3, _ := ini.Next(m2)
	if _, err := resp.Next(m3); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRatio runs a full exchange and its unavoidable primitives in
// every iteration, alternating their order, and times each by the CPU time
// of its thread, so that the load of other processes affects neither. It
// reports the median of each and full/unavoidable.
func BenchmarkRatio(b *testing.B) {
	for _, p := range profiles {
		b.Run(p.name, func(b *testing.B) {
			defer meter.LockThread()()
			floorRun := benchFloor(b, p.huntAndPeck)
			var full, floor, fullWall, floorWall []time.Duration
			for i := 0; b.Loop(); i++ {
				for j := 0; j < 2; j++ {
					t, w := meter.ThreadCPUOrWall(), time.Now()
					if (i+j)%2 == 0 {
						fullRun(b, p.pwe)
						full, fullWall = append(full, meter.ThreadCPUOrWall()-t), append(fullWall, time.Since(w))
					} else {
						floorRun()
						floor, floorWall = append(floor, meter.ThreadCPUOrWall()-t), append(floorWall, time.Since(w))
					}
				}
			}
			median := func(d []time.Duration) float64 {
				slices.Sort(d)
				return float64(d[len(d)/2].Nanoseconds())
			}
			f, u := median(full), median(floor)
			b.ReportMetric(f, "full-cpu-ns")
			b.ReportMetric(u, "unavoidable-cpu-ns")
			b.ReportMetric(f/u, "ratio")
			b.ReportMetric(median(fullWall)/median(floorWall), "wall-ratio")
		})
	}
}
