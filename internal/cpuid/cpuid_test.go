package cpuid

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestAgainstProcCPUInfo: on Linux/amd64 the flags agree with the kernel's
// /proc/cpuinfo (bmi2, adx, ssse3, sse4_1, sha_ni, avx).
func TestAgainstProcCPUInfo(t *testing.T) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if runtime.GOARCH != "amd64" || err != nil {
		if X86 != (Features{}) {
			t.Errorf("features %+v off amd64", X86)
		}
		t.Skip("not linux/amd64")
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
	for name, got := range map[string]bool{"bmi2": X86.BMI2, "adx": X86.ADX, "ssse3": X86.SSSE3, "sse4_1": X86.SSE41, "sha_ni": X86.SHA, "avx": X86.AVX} {
		if got != flags[name] {
			t.Errorf("%s: cpuid says %v, /proc/cpuinfo %v", name, got, flags[name])
		}
	}
}
