//go:build amd64 && !purego && linux

package cpuid

import (
	"os"
	"strings"
	"testing"
)

// TestAgainstProcCPUInfo: the flags agree with the kernel's /proc/cpuinfo
// (bmi2, adx, ssse3, sse4_1, sha_ni, avx).
func TestAgainstProcCPUInfo(t *testing.T) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Fatal(err)
	}
	var flags map[string]bool
	for _, line := range strings.Split(string(b), "\n") {
		if name, val, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "flags" {
			flags = map[string]bool{}
			for _, f := range strings.Fields(val) {
				flags[f] = true
			}
			break
		}
	}
	if flags == nil {
		t.Fatal("no flags line in /proc/cpuinfo")
	}
	for name, got := range map[string]bool{"bmi2": X86.BMI2, "adx": X86.ADX, "ssse3": X86.SSSE3, "sse4_1": X86.SSE41, "sha_ni": X86.SHA, "avx": X86.AVX} {
		if got != flags[name] {
			t.Errorf("%s: cpuid says %v, /proc/cpuinfo %v", name, got, flags[name])
		}
	}
}
