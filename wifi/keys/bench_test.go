package keys

import "testing"

func BenchmarkPMKFromPassphrase(b *testing.B) {
	for b.Loop() {
		PMKFromPassphrase("ThisIsAPassword", []byte("ThisIsASSID"))
	}
}
