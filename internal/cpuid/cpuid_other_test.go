//go:build !amd64 || purego

package cpuid

import "testing"

// TestNoFeatures: off amd64, and with purego, no assembly path is chosen.
func TestNoFeatures(t *testing.T) {
	if X86 != (Features{}) {
		t.Errorf("features %+v", X86)
	}
}
