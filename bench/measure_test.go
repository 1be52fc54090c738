package bench

import (
	"crypto/rand"
	"testing"

	"github.com/kexlab/kexlab/bench/meter"
)

// BenchmarkMeterOverhead is the cost the meters add to every sample
// (MemStats twice, the thread CPU clock twice, the wall clock).
func BenchmarkMeterOverhead(b *testing.B) {
	m := &measurer{rand: rand.Reader}
	if _, err := meter.ThreadCPU(); err == nil {
		m.cpu = true
	}
	var s Sample
	for b.Loop() {
		m.end(m.begin(), &s)
	}
}

// BenchmarkFakeExchange is the harness's own cost around a trivial
// exchange (timing wrapper, steps).
func BenchmarkFakeExchange(b *testing.B) {
	m := &measurer{rand: rand.Reader}
	s := fakeScheme{"bal", false, 5}
	info := s.Info()
	for b.Loop() {
		if _, _, _, err := m.exchange(s, info); err != nil {
			b.Fatal(err)
		}
	}
}
