//go:build amd64 && !purego

package cpuid

func init() { X86 = detect() }

func detect() (f Features) {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return f
	}
	_, _, ecx1, _ := cpuid(1, 0)
	_, ebx7, _, _ := cpuid(7, 0)
	const (
		ssse3   = 1 << 9  // CPUID.1:ECX
		sse41   = 1 << 19 // CPUID.1:ECX
		osxsave = 1 << 27 // CPUID.1:ECX
		avx     = 1 << 28 // CPUID.1:ECX
		bmi2    = 1 << 8  // CPUID.(EAX=7,ECX=0):EBX
		adx     = 1 << 19 // CPUID.(EAX=7,ECX=0):EBX
		sha     = 1 << 29 // CPUID.(EAX=7,ECX=0):EBX
	)
	f.SSSE3, f.SSE41 = ecx1&ssse3 != 0, ecx1&sse41 != 0
	f.BMI2, f.ADX, f.SHA = ebx7&bmi2 != 0, ebx7&adx != 0, ebx7&sha != 0
	if ecx1&osxsave != 0 && ecx1&avx != 0 {
		// XCR0 bits 1 and 2: the OS saves the XMM and YMM state.
		xcr0, _ := xgetbv()
		f.AVX = xcr0&6 == 6
	}
	return f
}

//go:noescape
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

//go:noescape
func xgetbv() (eax, edx uint32)
